package graph

import (
	"cmp"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// Tiers are the topological levels (§6 step 4): everything in one tier may
// run in parallel once the tiers before it have run. Pipelines in a cycle,
// or downstream of one, are in none.
func (g *Graph) Tiers() [][]string {
	out := make([][]string, len(g.tiers))
	for i, t := range g.tiers {
		out[i] = g.names(t)
	}
	return out
}

// RunOrder is the tiers concatenated: a sequential order that is always safe.
func (g *Graph) RunOrder() []string {
	var out []string
	for _, t := range g.tiers {
		out = append(out, g.names(t)...)
	}
	return out
}

// ProducersOf are the pipelines an edge into the named one comes from,
// sorted, each once.
func (g *Graph) ProducersOf(name string) []string {
	p, ok := g.byName[name]
	if !ok {
		return nil
	}
	return g.names(g.producersOf(p))
}

// ConsumersOf are the pipelines an edge from the named one goes to, sorted,
// each once.
func (g *Graph) ConsumersOf(name string) []string {
	p, ok := g.byName[name]
	if !ok {
		return nil
	}
	return g.names(g.consumersOf(p))
}

// Count is the number of findings of a kind.
func (g *Graph) Count(k Kind) int {
	n := 0
	for i := range g.Findings {
		if g.Findings[i].Kind == k {
			n++
		}
	}
	return n
}

// Actionable reports whether any finding fails --strict (§9).
func (g *Graph) Actionable() bool {
	for i := range g.Findings {
		if g.Findings[i].Kind.Actionable() {
			return true
		}
	}
	return false
}

// Producer is a pipeline that writes a dataset: Key is its sources key that
// matched (the name itself, or a glob covering it).
type Producer struct {
	Pipeline string
	Key      string
}

// Consumer is a pipeline that reads a dataset: Dependency is its depends_on
// entry that matched.
type Consumer struct {
	Pipeline   string
	Dependency governance.Dependency
}

// Producers are the pipelines whose sources keys match a dataset name or
// pattern (§5, both ways), in pipeline order then key order. It uses the same
// matching and index as the edges.
func (g *Graph) Producers(dataset string) []Producer {
	ids := lookup(g.keyIndex(), dataset, nil)
	out := make([]Producer, len(ids))
	for i, id := range ids {
		p := g.keyOwner[id]
		out[i] = Producer{Pipeline: g.Pipelines[p].Name, Key: g.Pipelines[p].Key(int(id - g.keyStart[p]))}
	}
	return out
}

// Consumers are the pipelines whose depends_on entries match a dataset name
// or pattern (§5, both ways), in pipeline order then entry order. A pipeline
// that also produces the dataset is listed: its entry is still there, though
// the graph drops the self-edge.
func (g *Graph) Consumers(dataset string) []Consumer {
	ids := lookup(g.deps, dataset, nil)
	out := make([]Consumer, len(ids))
	for i, id := range ids {
		p := g.depOwner[id]
		out[i] = Consumer{Pipeline: g.Pipelines[p].Name, Dependency: g.Pipelines[p].DependsOn[id-g.depStart[p]]}
	}
	return out
}

// Find returns the named pipeline, nil when the graph has none of that name.
func (g *Graph) Find(name string) *Pipeline {
	if p, ok := g.byName[name]; ok {
		return &g.Pipelines[p]
	}
	return nil
}

// FindingsOf are the findings about the named pipeline, in report order:
// those naming it, a multiple-producers finding on one of its keys, and the
// cycle finding when it is in no tier.
func (g *Graph) FindingsOf(name string) []Finding {
	pi, ok := g.byName[name]
	if !ok {
		return nil
	}
	return g.findingsAbout(map[int32]bool{pi: true})
}

// Node is one pipeline in its graph.
type Node struct {
	Pipeline *Pipeline
	// Tier is the pipeline's tier, -1 when it is in none (a cycle).
	Tier    int
	Inputs  []Input
	Outputs []Output
}

// Input is one depends_on entry and the edges it made: one per matched
// producer key (none for an unresolved or self-only entry).
type Input struct {
	Dependency governance.Dependency
	Producers  []Producer
}

// Output is one sources key and the edges it feeds.
type Output struct {
	Key       string
	Consumers []Consumer
}

// Pipeline returns the named pipeline with its inputs, outputs and tier.
func (g *Graph) Pipeline(name string) (Node, bool) {
	pi, ok := g.byName[name]
	if !ok {
		return Node{}, false
	}
	p := &g.Pipelines[pi]
	n := Node{Pipeline: p, Tier: int(g.tierOf[pi])}
	n.Inputs = make([]Input, len(p.DependsOn))
	for j, d := range p.DependsOn {
		n.Inputs[j].Dependency = d
	}
	for _, e := range g.in[pi] {
		edge := &g.Edges[e]
		n.Inputs[edge.dep].Producers = append(n.Inputs[edge.dep].Producers, Producer{Pipeline: edge.Producer, Key: edge.Dataset})
	}
	n.Outputs = make([]Output, p.KeyCount())
	for k := range n.Outputs {
		n.Outputs[k].Key = p.Key(k)
	}
	for _, e := range g.out[pi] {
		edge := &g.Edges[e]
		c := &g.Pipelines[edge.consumer]
		n.Outputs[edge.key].Consumers = append(n.Outputs[edge.key].Consumers, Consumer{Pipeline: c.Name, Dependency: c.DependsOn[edge.dep]})
	}
	return n, true
}

// Reach is a pipeline reached by following edges, Distance edges away.
type Reach struct {
	Pipeline string
	Distance int
}

// Upstream are the pipelines the named one reads from, directly (distance
// 1) and through others, up to depth edges away (depth ≤ 0: no limit);
// ordered by distance, then name. The pipeline itself is never listed, even
// in a cycle.
func (g *Graph) Upstream(name string, depth int) []Reach {
	return g.reach(name, depth, g.producersOf)
}

// Downstream are the pipelines that read from the named one, as Upstream.
func (g *Graph) Downstream(name string, depth int) []Reach {
	return g.reach(name, depth, g.consumersOf)
}

func (g *Graph) reach(name string, depth int, next func(int32) []int32) []Reach {
	start, ok := g.byName[name]
	if !ok {
		return nil
	}
	seen := map[int32]bool{start: true}
	var out []Reach
	frontier := []int32{start}
	for d := 1; len(frontier) > 0 && (depth <= 0 || d <= depth); d++ {
		var found []int32
		for _, p := range frontier {
			for _, q := range next(p) {
				if !seen[q] {
					seen[q] = true
					found = append(found, q)
				}
			}
		}
		for _, q := range found {
			out = append(out, Reach{Pipeline: g.Pipelines[q].Name, Distance: d})
		}
		frontier = found
	}
	slices.SortFunc(out, func(a, b Reach) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), strings.Compare(a.Pipeline, b.Pipeline))
	})
	return out
}

func (g *Graph) names(ps []int32) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = g.Pipelines[p].Name
	}
	return out
}

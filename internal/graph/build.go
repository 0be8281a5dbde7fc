package graph

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/keyindex"
)

// Edge is one producer → consumer link: a consumer's dependency matched a
// producer's sources key.
type Edge struct {
	Producer string
	Consumer string
	Dataset  string // the producer's sources key
	Pattern  string // the consumer's depends_on entry that matched it
	Optional bool

	producer, consumer int32 // positions in Graph.Pipelines
	key                int32 // position in the producer's keys
	dep                int32 // position in the consumer's DependsOn
}

// Graph is the dependency graph of a set of pipelines. It is immutable once
// built and safe for concurrent readers.
type Graph struct {
	Pipelines []Pipeline
	Edges     []Edge
	// Findings are in report order (§6 step 6), the schedule findings
	// included when Options.CheckSchedules was set.
	Findings []Finding

	tiers  [][]int32 // pipeline positions, each tier by name
	tierOf []int32   // -1 for a pipeline in no tier
	byName map[string]int32

	// Every sources key and every depends_on entry has an id: pipeline
	// order, then document order. Pipeline p's keys are the ids
	// keyStart[p] to keyStart[p+1], its entries depStart[p] to depStart[p+1].
	keyStart, depStart []int32
	keyOwner, depOwner []int32 // id → pipeline position
	deps               *keyindex.Index
	// ownHit marks the entries that matched a key of their own pipeline
	// (the self-dependency finding), by entry id.
	ownHit  []bool
	in, out [][]int32 // edge ids by consumer, by producer

	keysOnce sync.Once
	keys     *keyindex.Index // every key by id, built when first asked (Producers)
}

// Options are the inputs a graph may take beyond its pipelines.
type Options struct {
	// CheckSchedules adds the schedule findings (§7) for Flows, a
	// deployment's scheduled flows. Without it the four schedule kinds never
	// appear; with it and no flows, every active pipeline is not-deployed.
	CheckSchedules bool
	Flows          []Flow
	// Workers bounds how many goroutines match keys at once; 0 is one per
	// processor.
	Workers int
}

// Build resolves every dependency against every output (graph.md §6) and
// computes the tiers and the findings. The pipelines are kept in the order
// given, which is the order of edges, of the mermaid and json renderings and
// of ties between findings. Names must be unique (Load's names are); Build
// keeps the slice, which the caller must not change afterwards.
//
// Matching looks every key up in an index of the dependencies (match.go),
// never through every (dependency, key) pair.
func Build(pipelines []Pipeline, opts Options) *Graph {
	g := newGraph(pipelines)
	keys, start := byDep(g.matchAll(g.deps, nil, opts.Workers), len(g.depOwner))
	g.finish(keys, start, opts)
	return g
}

// sameAs reports whether pipelines are prev's, each unchanged and in the
// same place.
func sameAs(prev *Graph, pipelines []Pipeline, unchanged func(i int) bool) bool {
	if len(pipelines) != len(prev.Pipelines) {
		return false
	}
	for i := range pipelines {
		if !unchanged(i) || pipelines[i].Name != prev.Pipelines[i].Name {
			return false
		}
	}
	return true
}

// Update is Build for pipelines of which only some changed since prev was
// built: unchanged(i) says that pipelines[i] is, field for field, the
// pipeline of the same name in prev (a unit a reload reused). The edges
// between unchanged pipelines are taken from prev; only the keys of the
// changed pipelines are looked up among every dependency, and only the
// dependencies of the changed pipelines among every key. The result is
// what Build(pipelines, opts) returns: prev itself when every pipeline
// is unchanged and in its place in prev (a reload that changed only what
// the graph does not read, such as the owners registry), as a Graph is
// immutable.
func Update(prev *Graph, pipelines []Pipeline, unchanged func(i int) bool, opts Options) *Graph {
	if sameAs(prev, pipelines, unchanged) {
		return prev
	}
	g := newGraph(pipelines)
	n := len(pipelines)
	prevPos := make([]int32, n)                  // -1: changed, or new
	newPos := make([]int32, len(prev.Pipelines)) // -1: changed, or gone
	for i := range newPos {
		newPos[i] = -1
	}
	for i := range pipelines {
		prevPos[i] = -1
		if pp, ok := prev.byName[pipelines[i].Name]; ok && unchanged(i) {
			prevPos[i], newPos[pp] = pp, int32(i)
		}
	}
	changedDep := func(d int32) bool { return prevPos[g.depOwner[d]] < 0 }
	var hits []keyHit
	// The unchanged consumers' edges from unchanged producers, as they were.
	for c := range pipelines {
		pc := prevPos[c]
		if pc < 0 {
			continue
		}
		for j := g.depStart[c]; j < g.depStart[c+1]; j++ {
			g.ownHit[j] = prev.ownHit[prev.depStart[pc]+j-g.depStart[c]]
		}
		for _, e := range prev.in[pc] {
			edge := &prev.Edges[e]
			if p := newPos[edge.producer]; p >= 0 {
				hits = append(hits, keyHit{dep: g.depStart[c] + edge.dep, key: g.keyStart[p] + edge.key})
			}
		}
	}
	// The changed producers' keys, among the unchanged consumers' entries.
	for p := range pipelines {
		if prevPos[p] < 0 {
			hits = g.matchKeys(g.deps, p, p+1, func(d int32) bool { return !changedDep(d) }, hits)
		}
	}
	// The changed consumers' entries, among every key: every key is looked
	// up in an index of those entries alone.
	var changed []int32
	var texts []string
	for d := range g.depOwner {
		if changedDep(int32(d)) {
			changed = append(changed, int32(d))
			texts = append(texts, g.Pipelines[g.depOwner[d]].DependsOn[int32(d)-g.depStart[g.depOwner[d]]].Dataset)
		}
	}
	if len(changed) > 0 {
		for _, h := range g.matchAll(keyindex.New(texts), nil, opts.Workers) {
			hits = append(hits, keyHit{dep: changed[h.dep], key: h.key})
		}
	}
	keys, start := byDep(hits, len(g.depOwner))
	for d := range len(g.depOwner) {
		slices.Sort(keys[start[d]:start[d+1]]) // key order, as Build has them
	}
	g.finish(keys, start, opts)
	return g
}

// newGraph numbers the keys and entries of pipelines and indexes the
// entries.
func newGraph(pipelines []Pipeline) *Graph {
	n := len(pipelines)
	g := &Graph{Pipelines: pipelines, byName: make(map[string]int32, n),
		keyStart: make([]int32, n+1), depStart: make([]int32, n+1)}
	for i := range pipelines {
		p := &pipelines[i]
		g.byName[p.Name] = int32(i)
		g.keyStart[i+1] = g.keyStart[i] + int32(p.KeyCount())
		g.depStart[i+1] = g.depStart[i] + int32(len(p.DependsOn))
	}
	// Made of their size: a graph is made again on every reload, and a
	// tree's keys are many.
	g.keyOwner = make([]int32, 0, g.keyStart[n])
	g.depOwner = make([]int32, 0, g.depStart[n])
	texts := make([]string, 0, g.depStart[n])
	for i := range pipelines {
		p := &pipelines[i]
		for range p.KeyCount() {
			g.keyOwner = append(g.keyOwner, int32(i))
		}
		for _, d := range p.DependsOn {
			g.depOwner = append(g.depOwner, int32(i))
			texts = append(texts, d.Dataset)
		}
	}
	g.deps = keyindex.New(texts)
	g.ownHit = make([]bool, len(texts))
	return g
}

// finish makes the edges and the findings from each entry's matched keys
// (keys[start[d]:start[d+1]] for entry d, in key order), then the tiers.
func (g *Graph) finish(keys, start []int32, opts Options) {
	pipelines := g.Pipelines
	findings := g.multipleProducers()
	g.in = make([][]int32, len(pipelines))
	g.out = make([][]int32, len(pipelines))
	if len(keys) > 0 {
		g.Edges = make([]Edge, 0, len(keys)) // an edge for each key matched, but a pipeline's own
	}
	for c := range pipelines {
		consumer := &pipelines[c]
		for j, dep := range consumer.DependsOn {
			d := g.depStart[c] + int32(j)
			hits := keys[start[d]:start[d+1]]
			own := g.ownHit[d]
			kept := hits[:0]
			for _, id := range hits {
				if g.keyOwner[id] == int32(c) {
					own = true
				} else {
					kept = append(kept, id)
				}
			}
			hits = kept
			g.ownHit[d] = own
			if own {
				findings = append(findings, Finding{Kind: SelfDependency, Pipeline: consumer.Name, Dataset: dep.Dataset,
					Detail: consumer.Name + " depends on " + dep.Dataset + ", which it produces itself — dropped from the graph"})
			}
			if len(hits) == 0 {
				if !dep.External && !own {
					findings = append(findings, Finding{Kind: Unresolved, Pipeline: consumer.Name, Dataset: dep.Dataset,
						Detail: consumer.Name + " depends on " + dep.Dataset + ", which no scanned pipeline produces and which is not marked `external: true` — a typo, or a tree not globbed"})
				}
				continue
			}
			if dep.External {
				names := make([]string, 0, len(hits))
				for _, id := range hits {
					names = append(names, pipelines[g.keyOwner[id]].Name)
				}
				findings = append(findings, Finding{Kind: ExternalSatisfied, Pipeline: consumer.Name, Dataset: dep.Dataset,
					Detail: consumer.Name + " marks " + dep.Dataset + " external, but " + strings.Join(sortedSet(names), ", ") + " produces it in this scan — the graph closed"})
			}
			for _, id := range hits {
				p := g.keyOwner[id]
				k := id - g.keyStart[p]
				e := int32(len(g.Edges))
				g.Edges = append(g.Edges, Edge{
					Producer: pipelines[p].Name, Consumer: consumer.Name,
					Dataset: pipelines[p].Key(int(k)), Pattern: dep.Dataset, Optional: dep.Optional,
					producer: p, consumer: int32(c), key: k, dep: int32(j),
				})
				g.in[c] = append(g.in[c], e)
				g.out[p] = append(g.out[p], e)
			}
		}
	}
	if len(g.Edges) == 0 {
		g.Edges = nil // as a graph without edges always has them
	}

	for _, e := range g.Edges {
		if !pipelines[e.producer].Active && pipelines[e.consumer].Active {
			findings = append(findings, Finding{Kind: InactiveProducer, Pipeline: e.Consumer, Dataset: e.Dataset,
				Detail: e.Consumer + " is active and reads " + e.Dataset + " from " + e.Producer + ", which is marked inactive — whatever it reads is as old as the last time that pipeline ran"})
		}
	}

	g.computeTiers()
	var cycled []string
	for i, t := range g.tierOf {
		if t < 0 {
			cycled = append(cycled, pipelines[i].Name)
		}
	}
	if len(cycled) > 0 {
		slices.Sort(cycled)
		findings = append(findings, Finding{Kind: Cycle,
			Detail: "cycle, or downstream of one — no run order exists for: " + strings.Join(cycled, ", ")})
	}
	sortFindings(findings)
	if opts.CheckSchedules {
		findings = append(findings, checkSchedules(g, opts.Flows)...)
		sortFindings(findings)
	}
	g.Findings = findings
}

// keyIndex is every key by id, built when first asked for: the
// configurations' indexes joined, their texts and globs shared, and an
// index of its own for a pipeline made from Produces.
func (g *Graph) keyIndex() *keyindex.Index {
	g.keysOnce.Do(func() {
		parts := make([]*keyindex.Index, len(g.Pipelines))
		for i := range g.Pipelines {
			if p := &g.Pipelines[i]; p.keys != nil {
				parts[i] = p.keys
			} else {
				parts[i] = keyindex.New(p.Produces)
			}
		}
		g.keys = keyindex.Join(parts)
	})
	return g.keys
}

// multipleProducers reports every key that two or more pipelines declare,
// compared as exact text (§6 step 1), in key order. The keys' index found
// the texts given again while filing them; a table of every key here
// would be a second one, made on every reload.
func (g *Graph) multipleProducers() []Finding {
	again := map[string][]string{}
	ix := g.keyIndex()
	for first, repeat := range ix.Repeats() {
		key := ix.Text(first)
		if again[key] == nil {
			again[key] = []string{g.Pipelines[g.keyOwner[first]].Name}
		}
		again[key] = append(again[key], g.Pipelines[g.keyOwner[repeat]].Name)
	}
	var keys []string
	for key, owners := range again {
		again[key] = sortedSet(owners)
		if len(again[key]) > 1 {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	out := make([]Finding, 0, len(keys))
	for _, key := range keys {
		out = append(out, Finding{Kind: MultipleProducers, Dataset: key,
			Detail: key + " is declared by " + strings.Join(again[key], ", ") + " — two answers to who owns it, and an ambiguous producer for anything depending on it"})
	}
	return out
}

// computeTiers places pipelines in levels (§6 step 4): a pipeline goes in
// the first tier after all of its producers; a tier is sorted by name.
// Pipelines in a cycle, or downstream of one, are never placed.
func (g *Graph) computeTiers() {
	n := len(g.Pipelines)
	g.tierOf = make([]int32, n)
	waiting := make([]int, n) // distinct producers not yet placed
	consumers := make([][]int32, n)
	for c := range n {
		g.tierOf[c] = -1
		seen := map[int32]bool{}
		for _, e := range g.in[c] {
			p := g.Edges[e].producer
			if !seen[p] {
				seen[p] = true
				waiting[c]++
				consumers[p] = append(consumers[p], int32(c))
			}
		}
	}
	var tier []int32
	for i := range n {
		if waiting[i] == 0 {
			tier = append(tier, int32(i))
		}
	}
	for len(tier) > 0 {
		slices.SortFunc(tier, func(a, b int32) int {
			return cmp.Or(strings.Compare(g.Pipelines[a].Name, g.Pipelines[b].Name), cmp.Compare(a, b))
		})
		t := int32(len(g.tiers))
		g.tiers = append(g.tiers, tier)
		var next []int32
		for _, p := range tier {
			g.tierOf[p] = t
			for _, c := range consumers[p] {
				if waiting[c]--; waiting[c] == 0 {
					next = append(next, c)
				}
			}
		}
		tier = next
	}
}

// sortedSet sorts names and drops repeats, in place.
func sortedSet(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}

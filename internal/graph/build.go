package graph

import (
	"cmp"
	"slices"
	"strings"
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
	key                int32 // position in the producer's Produces
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

	keys     *matchIndex // every sources key, pipeline order then key order
	keyOwner []int32     // key id → pipeline position
	keyPos   []int32     // key id → position in its pipeline's Produces
	deps     *matchIndex // every depends_on pattern, pipeline order then entry order
	depOwner []int32
	depPos   []int32
	in, out  [][]int32 // edge ids by consumer, by producer
}

// Options are the inputs a graph may take beyond its pipelines.
type Options struct {
	// CheckSchedules adds the schedule findings (§7) for Flows, a
	// deployment's scheduled flows. Without it the four schedule kinds never
	// appear; with it and no flows, every active pipeline is not-deployed.
	CheckSchedules bool
	Flows          []Flow
}

// Build resolves every dependency against every output (graph.md §6) and
// computes the tiers and the findings. The pipelines are kept in the order
// given, which is the order of edges, of the mermaid and json renderings and
// of ties between findings. Names must be unique (Load's names are); Build
// keeps the slice, which the caller must not change afterwards.
//
// Matching goes through indexes of the keys (matchIndex), not through every
// (dependency, key) pair.
func Build(pipelines []Pipeline, opts Options) *Graph {
	g := &Graph{Pipelines: pipelines, byName: make(map[string]int32, len(pipelines))}
	for i := range pipelines {
		g.byName[pipelines[i].Name] = int32(i)
	}
	g.indexKeys()
	g.indexDeps()

	findings := g.multipleProducers()
	g.in = make([][]int32, len(pipelines))
	g.out = make([][]int32, len(pipelines))
	var hits []int32
	for c := range pipelines {
		consumer := &pipelines[c]
		for j, d := range consumer.DependsOn {
			hits = g.keys.lookup(d.Dataset, hits)
			own := false
			kept := hits[:0]
			for _, id := range hits {
				if g.keyOwner[id] == int32(c) {
					own = true
				} else {
					kept = append(kept, id)
				}
			}
			hits = kept
			if own {
				findings = append(findings, Finding{Kind: SelfDependency, Pipeline: consumer.Name, Dataset: d.Dataset,
					Detail: consumer.Name + " depends on " + d.Dataset + ", which it produces itself — dropped from the graph"})
			}
			if len(hits) == 0 {
				if !d.External && !own {
					findings = append(findings, Finding{Kind: Unresolved, Pipeline: consumer.Name, Dataset: d.Dataset,
						Detail: consumer.Name + " depends on " + d.Dataset + ", which no scanned pipeline produces and which is not marked `external: true` — a typo, or a tree not globbed"})
				}
				continue
			}
			if d.External {
				names := make([]string, 0, len(hits))
				for _, id := range hits {
					names = append(names, pipelines[g.keyOwner[id]].Name)
				}
				findings = append(findings, Finding{Kind: ExternalSatisfied, Pipeline: consumer.Name, Dataset: d.Dataset,
					Detail: consumer.Name + " marks " + d.Dataset + " external, but " + strings.Join(sortedSet(names), ", ") + " produces it in this scan — the graph closed"})
			}
			for _, id := range hits {
				p := g.keyOwner[id]
				e := int32(len(g.Edges))
				g.Edges = append(g.Edges, Edge{
					Producer: pipelines[p].Name, Consumer: consumer.Name,
					Dataset: pipelines[p].Produces[g.keyPos[id]], Pattern: d.Dataset, Optional: d.Optional,
					producer: p, consumer: int32(c), key: g.keyPos[id], dep: int32(j),
				})
				g.in[c] = append(g.in[c], e)
				g.out[p] = append(g.out[p], e)
			}
		}
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
	return g
}

func (g *Graph) indexKeys() {
	var texts []string
	for i := range g.Pipelines {
		for k, key := range g.Pipelines[i].Produces {
			texts = append(texts, key)
			g.keyOwner = append(g.keyOwner, int32(i))
			g.keyPos = append(g.keyPos, int32(k))
		}
	}
	g.keys = newMatchIndex(texts)
}

func (g *Graph) indexDeps() {
	var texts []string
	for i := range g.Pipelines {
		for j, d := range g.Pipelines[i].DependsOn {
			texts = append(texts, d.Dataset)
			g.depOwner = append(g.depOwner, int32(i))
			g.depPos = append(g.depPos, int32(j))
		}
	}
	g.deps = newMatchIndex(texts)
}

// multipleProducers reports every key that two or more pipelines declare,
// compared as exact text (§6 step 1), in key order.
func (g *Graph) multipleProducers() []Finding {
	// Most keys have one producer: remember the first, and list the owners
	// only of keys declared again.
	first := make(map[string]int32, len(g.keyOwner))
	again := map[string][]string{}
	for i := range g.Pipelines {
		for _, key := range g.Pipelines[i].Produces {
			p, ok := first[key]
			if !ok {
				first[key] = int32(i)
				continue
			}
			if again[key] == nil {
				again[key] = []string{g.Pipelines[p].Name}
			}
			again[key] = append(again[key], g.Pipelines[i].Name)
		}
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

package graph

import (
	"slices"
)

// Neighbourhood is the part of a graph around one pipeline: the pipeline,
// those up to Depth edges upstream and downstream of it, and every edge
// between two of them, each pipeline in its tier of the whole graph. It is
// what a person reads of one pipeline in a graph of a thousand: its size
// grows with the pipelines near it, not with the graph.
type Neighbourhood struct {
	Focus string
	Depth int // edges away; 0 is no limit
	// Upstream and Downstream are as Graph.Upstream and Graph.Downstream
	// say them: by distance, then name.
	Upstream, Downstream []Reach

	g       *Graph
	members []int32 // positions in g.Pipelines, in g's order
	in      map[int32]bool
}

// Neighbourhood is the named pipeline's neighbourhood up to depth edges
// away (depth ≤ 0: no limit); ok is false when the graph has no such
// pipeline.
func (g *Graph) Neighbourhood(name string, depth int) (n *Neighbourhood, ok bool) {
	focus, ok := g.byName[name]
	if !ok {
		return nil, false
	}
	n = &Neighbourhood{Focus: name, Depth: max(0, depth), Upstream: g.Upstream(name, depth), Downstream: g.Downstream(name, depth),
		g: g, in: map[int32]bool{focus: true}}
	for _, r := range append(slices.Clip(n.Upstream), n.Downstream...) {
		n.in[g.byName[r.Pipeline]] = true
	}
	for p := range n.in {
		n.members = append(n.members, p)
	}
	slices.Sort(n.members)
	return n, true
}

// Len is the number of pipelines in the neighbourhood, the focus included.
func (n *Neighbourhood) Len() int { return len(n.members) }

// Has reports whether the named pipeline is in the neighbourhood.
func (n *Neighbourhood) Has(name string) bool {
	p, ok := n.g.byName[name]
	return ok && n.in[p]
}

// Pipelines are the neighbourhood's pipelines, in the graph's order.
func (n *Neighbourhood) Pipelines() []*Pipeline {
	out := make([]*Pipeline, len(n.members))
	for i, p := range n.members {
		out[i] = &n.g.Pipelines[p]
	}
	return out
}

// Edges are the graph's edges whose producer and consumer are both in the
// neighbourhood, in the graph's order.
func (n *Neighbourhood) Edges() []Edge {
	ids := n.edgeIDs()
	out := make([]Edge, len(ids))
	for i, e := range ids {
		out[i] = n.g.Edges[e]
	}
	return out
}

// EachEdge calls fn with each edge Edges lists, in order, without copying
// them, until fn returns false.
func (n *Neighbourhood) EachEdge(fn func(e *Edge) bool) {
	for _, e := range n.edgeIDs() {
		if !fn(&n.g.Edges[e]) {
			return
		}
	}
}

func (n *Neighbourhood) edgeIDs() []int32 {
	var ids []int32
	for _, c := range n.members {
		for _, e := range n.g.in[c] {
			if n.in[n.g.Edges[e].producer] {
				ids = append(ids, e)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// Tier is the named pipeline's tier in the whole graph, -1 when it is in
// none (a cycle) or not in the graph.
func (n *Neighbourhood) Tier(name string) int {
	p, ok := n.g.byName[name]
	if !ok {
		return -1
	}
	return int(n.g.tierOf[p])
}

// Tiers are the neighbourhood's pipelines in the whole graph's tiers:
// Tiers()[t] are those of tier t, by name, empty for a tier the
// neighbourhood has none of, up to the last tier it has.
func (n *Neighbourhood) Tiers() [][]string {
	last := -1
	for _, p := range n.members {
		last = max(last, int(n.g.tierOf[p]))
	}
	out := make([][]string, last+1)
	for t := range out {
		out[t] = []string{}
		for _, p := range n.g.tiers[t] {
			if n.in[p] {
				out[t] = append(out[t], n.g.Pipelines[p].Name)
			}
		}
	}
	return out
}

// Findings are the findings about the neighbourhood's pipelines, in report
// order, each once: as FindingsOf says them for each.
func (n *Neighbourhood) Findings() []Finding { return n.g.findingsAbout(n.in) }

// findingsAbout are the findings about the pipelines of set: those naming
// one, a multiple-producers finding on one of their keys, and the cycle
// finding when one is in no tier.
func (g *Graph) findingsAbout(set map[int32]bool) []Finding {
	var keys map[string]bool
	inCycle := false
	for p := range set {
		inCycle = inCycle || g.tierOf[p] < 0
	}
	var out []Finding
	for _, f := range g.Findings {
		switch {
		case f.Kind == Cycle:
			if inCycle {
				out = append(out, f)
			}
		case f.Kind == MultipleProducers:
			if keys == nil {
				keys = map[string]bool{}
				for p := range set {
					pl := &g.Pipelines[p]
					for k := range pl.KeyCount() {
						keys[pl.Key(k)] = true
					}
				}
			}
			if keys[f.Dataset] {
				out = append(out, f)
			}
		default:
			if p, ok := g.byName[f.Pipeline]; ok && f.HasPipeline() && set[p] {
				out = append(out, f)
			}
		}
	}
	return out
}

package snapshot

import (
	"slices"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/graph"
)

// The pipeline dependency graph (graph.md) is part of every snapshot: built
// in the same build, from the same units the check passed, and swapped with
// the rest, so it hot-reloads and carries the snapshot's revision.
//
// A snapshot holds it in the two readings `governanced graph` offers:
//
//   - Graph, graph.md's own: each pipeline as its base file says it,
//     deployer overlays ignored, so that it is what `governanced graph` prints
//     for the same files. It is read from the base as the check parsed it
//     (check.UnitResult.Base), never from the files again; for a base the
//     check passes, that reading and graph.Parse's agree (a test and a fuzz
//     target hold them to it).
//   - MergedGraph, `governanced graph --overlays`': each app as it is served,
//     its overlay's active and depends_on replacing the base's and its
//     sources keys added. It is built when first asked for.
//
// A pipeline is named after its app, as /apps names it: the snapshot serves
// one app per name, so the graph's names are unique without graph.md §4.1's
// disambiguation. Pipelines are in the order the check met the units, which
// is graph.md's discovery order for the same PATHs.
//
// Findings are never a reason to refuse a revision: like the reference's,
// they are warnings about how pipelines fit together (--strict is the
// command's), and a tree whose every file passes the check is served with
// its cycles and unresolved inputs, which /status and /metrics count.

// servedGraph is one reading of the graph and its counts.
type servedGraph struct {
	g      *graph.Graph
	counts GraphCounts
}

// GraphCounts are the sizes of a graph and its findings, as /status and
// /metrics report them.
type GraphCounts struct {
	// Overlays tells which reading: false for the base files (graph.md's),
	// true for the merged configurations.
	Overlays  bool `json:"overlays"`
	Pipelines int  `json:"pipelines"`
	// Declaring are the pipelines that declare their inputs (depends_on
	// present, possibly empty).
	Declaring int `json:"declaring_inputs"`
	Edges     int `json:"edges"`
	Tiers     int `json:"tiers"`
	// Unplaced are the pipelines in no tier: in a cycle, or downstream of one.
	Unplaced int `json:"unplaced"`
	// Findings counts every kind of GraphKinds, zeros included.
	Findings map[graph.Kind]int `json:"findings"`
}

// GraphKinds are the finding kinds a served graph can report, in report
// order: every kind but the schedule checks', which need a deployment's
// flows the service does not hold (graph.md §7.1).
func GraphKinds() []graph.Kind {
	kinds := graph.Kinds()
	return slices.DeleteFunc(kinds, graph.Kind.FromSchedules)
}

// graphInputs are what a graph is built from: each app's pipeline, and for
// a reload the graph served before with which pipelines are unchanged
// since (their units reused, ADR-0004), so that only the changed ones are
// matched again (graph.Update).
type graphInputs struct {
	nodes   []graph.Pipeline
	reused  []bool // nodes[i] is prev's pipeline of the same name, unchanged
	prev    *graph.Graph
	workers int // goroutines matching keys; 0 is one per processor
}

func newServedGraph(in graphInputs, overlays bool) *servedGraph {
	opts := graph.Options{Workers: in.workers}
	var g *graph.Graph
	if in.prev != nil {
		g = graph.Update(in.prev, in.nodes, func(i int) bool { return in.reused[i] }, opts)
	} else {
		g = graph.Build(in.nodes, opts)
	}
	c := GraphCounts{Overlays: overlays, Pipelines: len(g.Pipelines), Edges: len(g.Edges), Findings: map[graph.Kind]int{}}
	for i := range g.Pipelines {
		if g.Pipelines[i].Declared {
			c.Declaring++
		}
	}
	placed := 0
	for _, t := range g.Tiers() {
		c.Tiers++
		placed += len(t)
	}
	c.Unplaced = c.Pipelines - placed
	for _, k := range GraphKinds() {
		c.Findings[k] = 0
	}
	for i := range g.Findings {
		c.Findings[g.Findings[i].Kind]++
	}
	return &servedGraph{g: g, counts: c}
}

// baseNode is a unit's pipeline as its base file says it (graph.md §4).
func baseNode(name, file string, base *governance.Config) graph.Pipeline {
	return graph.FromConfig(name, file, base)
}

// Graph is the dependency graph of the base files (graph.md's reading,
// overlays ignored): what `governanced graph` prints for the same files.
// It is shared by every reader; treat it as read-only.
func (s *Snapshot) Graph() *graph.Graph { return s.graph.g }

// MergedGraph is the dependency graph of the apps as served, each base
// merged with its overlay (`governanced graph --overlays`), built when first
// asked for. Treat it as read-only.
func (s *Snapshot) MergedGraph() *graph.Graph { return s.merged().g }

// GraphOf is MergedGraph when overlays, else Graph.
func (s *Snapshot) GraphOf(overlays bool) *graph.Graph {
	if overlays {
		return s.MergedGraph()
	}
	return s.Graph()
}

// GraphCounts are the counts of Graph, the base files' reading: the one
// /status and /metrics report.
func (s *Snapshot) GraphCounts() GraphCounts { return s.graph.counts }

func (s *Snapshot) merged() *servedGraph {
	s.mergedOnce.Do(func() {
		nodes := make([]graph.Pipeline, len(s.unitOrder))
		for i, a := range s.unitOrder {
			nodes[i] = graph.FromConfig(a.Name, a.File, a.Config)
		}
		s.mergedGraph = newServedGraph(graphInputs{nodes: nodes}, true)
	})
	return s.mergedGraph
}

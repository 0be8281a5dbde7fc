package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/treegen"
)

func loadGraph(t *testing.T, dir string) *graph.Graph {
	t.Helper()
	d, err := graph.Discover(dir, []string{"apps/*"})
	if err != nil {
		t.Fatal(err)
	}
	pipelines, _, err := graph.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	return graph.Build(pipelines, graph.Options{})
}

func names(ps []*graph.Pipeline) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// TestNeighbourhoodReal: a pipeline of the real tree and those near it,
// in the whole graph's tiers.
func TestNeighbourhoodReal(t *testing.T) {
	g := loadGraph(t, testcorpus.Path(t, "reference/celine-pipelines"))
	for _, c := range []struct {
		focus     string
		depth     int
		pipelines []string // in discovery order
		tiers     [][]string
		edges     int
	}{
		// weather reads mt's forecasts and feeds nothing.
		{"weather", 1, []string{"mt", "weather"}, [][]string{{"mt"}, {"weather"}}, 4},
		// mt feeds weather and grid; grid's other producer, om, is not mt's
		// neighbour.
		{"mt", 1, []string{"grid", "mt", "weather"}, [][]string{{"mt"}, {"grid", "weather"}}, 5},
		{"grid", 3, []string{"grid", "mt", "om"}, [][]string{{"mt", "om"}, {"grid"}}, 4},
		// Edges between two neighbours are kept (overture feeds
		// pv_detection, which feeds pv_estimation too).
		{"pv_estimation", 1, []string{"overture", "pv_detection", "pv_estimation", "rec_it", "trentino_rooftops"},
			[][]string{{"overture"}, {"pv_detection", "rec_it", "trentino_rooftops"}, {"pv_estimation"}}, 6},
		{"pv_estimation", 2, []string{"overture", "pv_detection", "pv_estimation", "rec_it", "rec_metering", "rec_registry", "trentino_rooftops"},
			[][]string{{"overture", "rec_metering", "rec_registry"}, {"pv_detection", "rec_it", "trentino_rooftops"}, {"pv_estimation"}}, 8},
		// A pipeline with no edge is alone.
		{"osm", 1, []string{"osm"}, [][]string{{"osm"}}, 0},
	} {
		n, ok := g.Neighbourhood(c.focus, c.depth)
		if !ok {
			t.Fatalf("%s: not found", c.focus)
		}
		got := names(n.Pipelines())
		slices.Sort(got)
		if diff := cmp.Diff(c.pipelines, got); diff != "" {
			t.Errorf("%s depth %d: pipelines (-want +got):\n%s", c.focus, c.depth, diff)
		}
		if diff := cmp.Diff(c.tiers, n.Tiers()); diff != "" {
			t.Errorf("%s depth %d: tiers (-want +got):\n%s", c.focus, c.depth, diff)
		}
		if len(n.Edges()) != c.edges {
			t.Errorf("%s depth %d: %d edges, want %d", c.focus, c.depth, len(n.Edges()), c.edges)
		}
		if tier := n.Tier(c.focus); tier < 0 || !slices.Contains(g.Tiers()[tier], c.focus) {
			t.Errorf("%s: tier %d", c.focus, tier)
		}
	}
	if _, ok := g.Neighbourhood("nothing", 1); ok {
		t.Error("a pipeline the graph lacks has a neighbourhood")
	}
}

// TestNeighbourhoodAgrees holds a neighbourhood to the whole graph on a
// generated tree of 100 pipelines with broad depends_on entries: its
// pipelines are those a walk of the edges reaches (either way, up to the
// depth), its edges every edge between two of them, its tiers the
// graph's, its findings those FindingsOf says of each. At depth 1 it holds
// at most a third of the pipelines.
func TestNeighbourhoodAgrees(t *testing.T) {
	tree := treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: 100, Sources: 100, Seed: 1})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	g := loadGraph(t, dir)
	if len(g.Edges) < 100 {
		t.Fatalf("%d edges: the tree tests nothing", len(g.Edges))
	}
	tierOf := map[string]int{}
	for i, tier := range g.Tiers() {
		for _, name := range tier {
			tierOf[name] = i
		}
	}
	for _, focus := range []string{"app_0000", "app_0010", "app_0042", "app_0099"} {
		for _, depth := range []int{1, 2, 3} {
			n, ok := g.Neighbourhood(focus, depth)
			if !ok {
				t.Fatalf("%s: not found", focus)
			}
			// A walk of the edges, each way.
			want := map[string]bool{focus: true}
			for _, up := range []bool{true, false} {
				frontier := []string{focus}
				seen := map[string]bool{focus: true}
				for range depth {
					var next []string
					for _, e := range g.Edges {
						from, to := e.Consumer, e.Producer
						if !up {
							from, to = e.Producer, e.Consumer
						}
						if slices.Contains(frontier, from) && !seen[to] {
							seen[to] = true
							next = append(next, to)
							want[to] = true
						}
					}
					frontier = next
				}
			}
			var wantNames []string
			for _, p := range g.Pipelines {
				if want[p.Name] {
					wantNames = append(wantNames, p.Name)
				}
			}
			what := fmt.Sprintf("%s depth %d", focus, depth)
			if diff := cmp.Diff(wantNames, names(n.Pipelines())); diff != "" {
				t.Fatalf("%s: pipelines (-walk +neighbourhood):\n%s", what, diff)
			}
			var wantEdges []graph.Edge
			for _, e := range g.Edges {
				if want[e.Producer] && want[e.Consumer] {
					wantEdges = append(wantEdges, e)
				}
			}
			if diff := cmp.Diff(wantEdges, n.Edges(), cmpopts.IgnoreUnexported(graph.Edge{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: edges (-want +got):\n%s", what, diff)
			}
			for tier, members := range n.Tiers() {
				for _, name := range members {
					if tierOf[name] != tier || n.Tier(name) != tier {
						t.Errorf("%s: %s in tier %d, the graph's %d", what, name, tier, tierOf[name])
					}
				}
			}
			var wantFindings []graph.Finding
			for _, f := range g.Findings {
				for _, name := range wantNames {
					if slices.ContainsFunc(g.FindingsOf(name), func(o graph.Finding) bool { return cmp.Equal(o, f) }) {
						wantFindings = append(wantFindings, f)
						break
					}
				}
			}
			if diff := cmp.Diff(wantFindings, n.Findings(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: findings (-want +got):\n%s", what, diff)
			}
			if depth == 1 && n.Len() > len(g.Pipelines)/3 {
				t.Errorf("%s: %d of %d pipelines", what, n.Len(), len(g.Pipelines))
			}
		}
	}
}

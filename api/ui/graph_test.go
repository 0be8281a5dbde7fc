package ui

import (
	"slices"
	"strings"
	"testing"
)

// TestGraphPages holds the graph page, the dataset pages' producers and
// consumers and the app pages' place in the graph to the graph's own
// answers, over the 17 real pipelines. The pages' reading is the apps as
// served.
func TestGraphPages(t *testing.T) {
	store := celineStore(t)
	h := handler(store)
	snap := store.Current()
	g := snap.MergedGraph()
	if len(g.Edges) == 0 || len(g.Tiers()) < 2 {
		t.Fatalf("the real tree's graph has %d edges in %d tiers: the test tests nothing", len(g.Edges), len(g.Tiers()))
	}

	p := get(t, h, "/ui/graph")
	if p.status != 200 {
		t.Fatalf("/ui/graph: %d", p.status)
	}
	text := p.text()
	mustContain(t, "graph", text, plural(len(g.Pipelines), "pipeline", "pipelines"), plural(len(g.Edges), "edge", "edges"))
	for i, tier := range g.Tiers() {
		mustContain(t, "graph", text, "Tier "+itoa(i+1)+": "+strings.Join(tier, ", "))
	}
	// The drawing: a box per pipeline, linking to its app, and a curve per
	// pair of pipelines an edge links.
	boxes := map[string]bool{}
	for _, a := range p.all("a") {
		if strings.Contains(attr(a, "class"), "node") {
			boxes[attr(a, "href")] = true
		}
	}
	for i := range g.Pipelines {
		if !boxes[appURL(g.Pipelines[i].Name)] {
			t.Errorf("no box for %s", g.Pipelines[i].Name)
		}
	}
	pairs := map[string]bool{}
	for _, e := range g.Edges {
		pairs[e.Producer+" → "+e.Consumer] = true
	}
	if n := len(p.all("path")) - 1; n != len(pairs) { // less the arrowhead's
		t.Errorf("%d curves, want %d", n, len(pairs))
	}
	for _, f := range g.Findings {
		mustContain(t, "graph findings", text, string(f.Kind))
	}
	mustContain(t, "graph", text, "Each app as it is served")
	base := get(t, h, "/ui/graph?overlays=false")
	mustContain(t, "graph?overlays=false", base.text(), "Each pipeline as its base file says it", plural(len(snap.Graph().Edges), "edge", "edges"))
	for i, tier := range snap.Graph().Tiers() {
		mustContain(t, "graph?overlays=false", base.text(), "Tier "+itoa(i+1)+": "+strings.Join(tier, ", "))
	}

	// Every dataset: its producers and consumers.
	checked := 0
	for _, d := range snap.Datasets() {
		p := get(t, h, datasetURL(d.ID, d.App.Name))
		producers := p.rows("Producers:")
		var want []string
		for _, pr := range g.Producers(d.ID) {
			want = append(want, pr.Pipeline+" | "+pr.Key)
		}
		if !slices.Equal(producers, want) {
			t.Errorf("%s: producers %v, want %v", d.ID, producers, want)
		}
		consumers := p.rows("Consumers:")
		cs := g.Consumers(d.ID)
		if len(consumers) != len(cs) {
			t.Errorf("%s: %d consumers, want %d", d.ID, len(consumers), len(cs))
		}
		for i, c := range cs {
			if i < len(consumers) && !strings.HasPrefix(consumers[i], c.Pipeline+" | "+c.Dependency.Dataset) {
				t.Errorf("%s: consumer %q, want %s reading %s", d.ID, consumers[i], c.Pipeline, c.Dependency.Dataset)
			}
		}
		if len(cs) > 0 {
			checked++
		}
	}
	if checked == 0 {
		t.Error("no dataset of the real tree has a consumer: the test tests nothing")
	}

	// Every app: its tier and neighbours.
	for _, a := range snap.Apps() {
		p := get(t, h, appURL(a.Name))
		text := p.text()
		up, down := g.ProducersOf(a.Name), g.ConsumersOf(a.Name)
		if len(up) > 0 {
			mustContain(t, a.Name, text, "Reads from: "+strings.Join(up, ", ")+".")
		}
		if len(down) > 0 {
			mustContain(t, a.Name, text, "Read by: "+strings.Join(down, ", ")+".")
		}
		// Each depends_on entry with the pipelines producing it.
		n, _ := g.Pipeline(a.Name)
		rows := p.rows("The datasets the app’s pipeline reads")
		if len(rows) != len(n.Inputs) {
			t.Errorf("%s: %d inputs, want %d", a.Name, len(rows), len(n.Inputs))
			continue
		}
		for i, in := range n.Inputs {
			for _, pr := range in.Producers {
				if !strings.Contains(rows[i], pr.Pipeline+" ("+pr.Key+")") {
					t.Errorf("%s: input %s lacks producer %s (%s): %q", a.Name, in.Dependency.Dataset, pr.Pipeline, pr.Key, rows[i])
				}
			}
		}
	}

	// Without a graph there is no graph page, and no section about one.
	bare := handlerWith(Options{Store: store})
	if p := get(t, bare, "/ui/graph"); p.status != 404 {
		t.Errorf("/ui/graph without a graph: %d", p.status)
	}
	if p := get(t, bare, "/ui/"); slices.Contains(p.hrefs(), "/ui/graph") {
		t.Error("the menu links a graph page that is not there")
	}
	if p := get(t, bare, datasetURL(snap.Datasets()[0].ID, "")); strings.Contains(p.text(), "Who writes it") {
		t.Error("a dataset page without a graph speaks of one")
	}
}

func itoa(n int) string { return num(n) }

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
	// Tiers numbered as governanced graph numbers them, from 0.
	for i, tier := range g.Tiers() {
		mustContain(t, "graph", text, "Tier "+itoa(i)+": "+strings.Join(tier, ", "))
	}
	// The drawing: a box per pipeline, leading to its neighbourhood, and a
	// curve per pair of pipelines an edge links.
	boxes := map[string]bool{}
	for _, a := range p.all("a") {
		if strings.Contains(attr(a, "class"), "node") {
			boxes[attr(a, "href")] = true
		}
	}
	for i := range g.Pipelines {
		if !boxes[graphURL(g.Pipelines[i].Name, 1, true)] {
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
		mustContain(t, "graph?overlays=false", base.text(), "Tier "+itoa(i)+": "+strings.Join(tier, ", "))
	}

	// Every dataset: its producers and consumers.
	checked := 0
	for _, d := range snap.Datasets() {
		p := get(t, h, datasetURL(d.ID(), d.App.Name))
		producers := p.rows("Producers:")
		var want []string
		for _, pr := range g.Producers(d.ID()) {
			want = append(want, pr.Pipeline+" | "+pr.Key)
		}
		if !slices.Equal(producers, want) {
			t.Errorf("%s: producers %v, want %v", d.ID(), producers, want)
		}
		consumers := p.rows("Consumers:")
		cs := g.Consumers(d.ID())
		if len(consumers) != len(cs) {
			t.Errorf("%s: %d consumers, want %d", d.ID(), len(consumers), len(cs))
		}
		for i, c := range cs {
			if i < len(consumers) && !strings.HasPrefix(consumers[i], c.Pipeline+" | "+c.Dependency.Dataset) {
				t.Errorf("%s: consumer %q, want %s reading %s", d.ID(), consumers[i], c.Pipeline, c.Dependency.Dataset)
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
		n, _ := g.Pipeline(a.Name)
		if n.Tier >= 0 {
			mustContain(t, a.Name, text, "Tier "+itoa(n.Tier)+" of the graph as served")
		} else {
			mustContain(t, a.Name, text, "In no tier")
		}
		if !slices.Contains(p.hrefs(), graphURL(a.Name, 1, true)) {
			t.Errorf("%s: no link to its neighbourhood", a.Name)
		}
		// Each depends_on entry with the pipelines producing it.
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
	if p := get(t, bare, datasetURL(snap.Datasets()[0].ID(), "")); strings.Contains(p.text(), "Who writes it") {
		t.Error("a dataset page without a graph speaks of one")
	}
}

func itoa(n int) string { return num(n) }

// TestGraphFocusPage: a pipeline's neighbourhood on the real tree is drawn
// with it, its producers and its consumers only, each box in its tier of
// the whole graph; the depth and the pipeline are checked.
func TestGraphFocusPage(t *testing.T) {
	h := handler(celineStore(t))
	for _, c := range []struct {
		target  string
		boxes   []string
		columns []string
		text    []string
	}{
		{"/ui/graph?focus=weather", []string{"mt", "weather"}, []string{"tier 0", "tier 1"},
			[]string{"weather and its neighbours", "Reads from mt 1 edge up", "Read by No pipeline of the tree."}},
		{"/ui/graph?focus=mt", []string{"grid", "mt", "weather"}, []string{"tier 0", "tier 1"},
			[]string{"Read by grid 1 edge down · its neighbours weather 1 edge down"}},
		{"/ui/graph?focus=pv_estimation&depth=2&overlays=false", []string{"overture", "pv_detection", "pv_estimation", "rec_it", "rec_metering", "rec_registry", "trentino_rooftops"},
			[]string{"tier 0", "tier 1", "tier 2"}, []string{"rec_metering 2 edges up", "Each pipeline as its base file says it"}},
	} {
		p := get(t, h, c.target)
		if p.status != 200 {
			t.Fatalf("%s: %d", c.target, p.status)
		}
		var boxes, columns []string
		for _, a := range p.all("a") {
			if strings.Contains(attr(a, "class"), "node") {
				boxes = append(boxes, nodeText(firstChild(a, "title")))
			}
		}
		for _, tx := range p.all("text") {
			if attr(tx, "class") == "column" {
				columns = append(columns, nodeText(tx))
			}
		}
		for i, b := range boxes {
			boxes[i] = strings.TrimSuffix(b, " (inactive)")
		}
		slices.Sort(boxes)
		if !slices.Equal(boxes, c.boxes) {
			t.Errorf("%s: boxes %q, want %q", c.target, boxes, c.boxes)
		}
		if !slices.Equal(columns, c.columns) {
			t.Errorf("%s: columns %q, want %q", c.target, columns, c.columns)
		}
		mustContain(t, c.target, p.text(), c.text...)
	}
	for target, want := range map[string]int{
		"/ui/graph?focus=nothing":          404,
		"/ui/graph?focus=weather&depth=4":  400,
		"/ui/graph?focus=weather&depth=no": 400,
	} {
		if p := get(t, h, target); p.status != want {
			t.Errorf("%s: %d, want %d", target, p.status, want)
		}
	}
}

// TestGraphPageAtScale: at 100 pipelines with broad depends_on entries
// (the tree gen_tree.py --apps 100 --sources 100 makes) the graph page
// lists the pipelines by tier with their counts instead of drawing a
// tangle, a search narrows the list, and a pipeline's neighbourhood is
// drawn with at most a third of the pipelines.
func TestGraphPageAtScale(t *testing.T) {
	store := pipelinesStore(t, 100)
	h := handler(store)
	g := store.Current().MergedGraph()
	p := get(t, h, "/ui/graph")
	if p.status != 200 || len(p.all("svg")) != 0 {
		t.Fatalf("/ui/graph: %d with %d drawings", p.status, len(p.all("svg")))
	}
	text := p.text()
	mustContain(t, "list", text, "are too many to draw at once", "Pipelines by tier", "100 pipelines. A name leads to its neighbours.")
	for i, tier := range g.Tiers() {
		mustContain(t, "list", text, "Tier "+itoa(i)+" ("+plural(len(tier), "pipeline", "pipelines")+"): "+strings.Join(tier, ", "))
	}
	mustContain(t, "list", text, "In no tier (in a cycle, or downstream of one) (")

	found := get(t, h, "/ui/graph?find=APP_001")
	mustContain(t, "find", found.text(), "10 pipelines whose name holds APP_001")
	links := 0
	for _, href := range found.hrefs() {
		if strings.HasPrefix(href, "/ui/graph?focus=app_001") {
			links++
		}
	}
	if links != 10 {
		t.Errorf("find: %d pipelines listed, want 10", links)
	}

	// A whole name goes to that pipeline's neighbourhood.
	if p := get(t, h, "/ui/graph?find=app_0010"); p.status != 303 || p.header.Get("Location") != "/ui/graph?focus=app_0010" {
		t.Errorf("find=app_0010: %d to %q", p.status, p.header.Get("Location"))
	}
	focus := get(t, h, "/ui/graph?focus=app_0010")
	boxes := 0
	for _, a := range focus.all("a") {
		if strings.Contains(attr(a, "class"), "node") {
			boxes++
		}
	}
	n, _ := g.Neighbourhood("app_0010", 1)
	if boxes != n.Len() || boxes < 2 || boxes > len(g.Pipelines)/3 {
		t.Errorf("app_0010's neighbourhood: %d boxes (it has %d pipelines, of %d)", boxes, n.Len(), len(g.Pipelines))
	}
	if len(focus.body) > 64<<10 {
		t.Errorf("the neighbourhood's page is %d KB", len(focus.body)>>10)
	}
}

package ui

import (
	"net/http"
	"strconv"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// The pipeline dependency graph (graph.md) as a page: the pipelines in
// tiers, drawn by the server as SVG (a tiered layout needs no graph
// library), the same tiers as text, and the graph's findings. A dataset's
// page adds who produces and who consumes it, an app's page its upstream
// and downstream pipelines. All of it reads the graph the snapshot holds,
// through Options.Graph.

// graphOf is the snapshot's graph in the reading the request asks for, or
// nil when the pages are given no graph. The pages show what is served, so
// their reading is the apps as served, each base merged with its overlay;
// `overlays=false` asks for the base files' (graph.md's, what `governanced
// graph` and GET /graph print by default).
func (p *Pages) graphOf(snap *snapshot.Snapshot, r *http.Request) (g *graph.Graph, overlays bool) {
	if p.graph == nil {
		return nil, false
	}
	overlays = true
	if b, err := strconv.ParseBool(r.URL.Query().Get("overlays")); err == nil {
		overlays = b
	}
	return p.graph(snap, overlays), overlays
}

// The page draws the whole graph, and a drawing of thousands of curves is
// neither readable nor small (a few hundred apps each depending on
// datasets.*.* make millions of edges, tens of megabytes of SVG). Past
// these the page says how large the graph is and where to read it instead,
// and lists the first findings only.
const (
	maxDrawnPipelines = 1000
	maxDrawnEdges     = 5000
	maxListedFindings = 1000
)

// graphView is the graph page's body.
type graphView struct {
	Overlays                          bool
	Pipelines, Edges, Tiers, Unplaced int
	// TooLarge is a graph past maxDrawnPipelines or maxDrawnEdges: no
	// drawing.
	TooLarge               bool
	MaxPipelines, MaxEdges int
	Drawing                drawing
	TierRows               []tierRow
	UnplacedNames          []string
	Findings               []graphFinding
	MoreFindings           int    // findings past maxListedFindings, not listed
	JSON                   string // the same graph from GET /graph
	FirstPage              string // its first page
}

type tierRow struct {
	Tier      int // from 1
	Pipelines []string
}

type graphFinding struct {
	Kind, Pipeline, Dataset, Detail string
	Actionable                      bool
}

func (p *Pages) graphPage(w http.ResponseWriter, r *http.Request) {
	snap := p.current(w, r)
	if snap == nil {
		return
	}
	g, overlays := p.graphOf(snap, r)
	if g == nil {
		p.fail(w, r, http.StatusNotFound, "No graph", "This server serves no dependency graph.", link{"Every app", Prefix + "/apps"})
		return
	}
	body := graphView{Overlays: overlays, Pipelines: len(g.Pipelines), Edges: len(g.Edges),
		MaxPipelines: maxDrawnPipelines, MaxEdges: maxDrawnEdges}
	if body.TooLarge = len(g.Pipelines) > maxDrawnPipelines || len(g.Edges) > maxDrawnEdges; !body.TooLarge {
		body.Drawing = draw(g)
	}
	placed := map[string]bool{}
	for i, t := range g.Tiers() {
		body.TierRows = append(body.TierRows, tierRow{Tier: i + 1, Pipelines: t})
		for _, name := range t {
			placed[name] = true
		}
	}
	body.Tiers = len(body.TierRows)
	for i := range g.Pipelines {
		if name := g.Pipelines[i].Name; !placed[name] {
			body.UnplacedNames = append(body.UnplacedNames, name)
		}
	}
	body.Unplaced = len(body.UnplacedNames)
	for i, f := range g.Findings {
		if i == maxListedFindings {
			body.MoreFindings = len(g.Findings) - i
			break
		}
		body.Findings = append(body.Findings, graphFinding{Kind: string(f.Kind), Pipeline: f.Pipeline, Dataset: f.Dataset, Detail: f.Detail, Actionable: f.Kind.Actionable()})
	}
	body.JSON = "/graph?overlays=" + strconv.FormatBool(overlays)
	body.FirstPage = body.JSON + "&limit=1000&offset=0"
	v := p.newView(r, snap, "graph", "Graph")
	v.Body = body
	p.render(w, r, http.StatusOK, "graph", v)
}

// drawing is the graph laid out in tiers: one column per tier from left to
// right, the pipelines no tier holds (a cycle, or downstream of one) in a
// last column, an edge as a curve from a producer's right side to a
// consumer's left.
type drawing struct {
	Width, Height int
	Columns       []column
	Nodes         []node
	Edges         []edgePath
}

type column struct {
	X, Y  int
	Label string
}

type node struct {
	X, Y, W, H   int
	TextX, TextY int
	Name, Label  string
	URL          string
	Inactive     bool
	Unplaced     bool
}

type edgePath struct {
	D        string
	Title    string
	Optional bool
}

// The drawing's measures, in CSS pixels.
const (
	nodeW, nodeH       = 210, 34
	colGap, rowGap     = 90, 14
	marginX, marginTop = 16, 40 // the top margin holds the column labels
	labelChars         = 26     // characters of a name a box shows; its title has all
)

func draw(g *graph.Graph) drawing {
	var cols [][]string
	placed := map[string]bool{}
	for _, t := range g.Tiers() {
		cols = append(cols, t)
		for _, name := range t {
			placed[name] = true
		}
	}
	tiers := len(cols)
	var rest []string
	for i := range g.Pipelines {
		if name := g.Pipelines[i].Name; !placed[name] {
			rest = append(rest, name)
		}
	}
	if len(rest) > 0 {
		cols = append(cols, rest)
	}
	d := drawing{}
	at := map[string]node{}
	tallest := 0
	for c, names := range cols {
		x := marginX + c*(nodeW+colGap)
		label := "tier " + strconv.Itoa(c+1)
		if c == tiers {
			label = "in no tier (a cycle)"
		}
		d.Columns = append(d.Columns, column{X: x, Y: marginTop - 14, Label: label})
		for i, name := range names {
			y := marginTop + i*(nodeH+rowGap)
			pipe, _ := g.Pipeline(name)
			n := node{X: x, Y: y, W: nodeW, H: nodeH, TextX: x + 10, TextY: y + nodeH/2 + 5, Name: name, Label: shorten(name, labelChars),
				URL: appURL(name), Inactive: pipe.Pipeline != nil && !pipe.Pipeline.Active, Unplaced: c == tiers}
			at[name] = n
			d.Nodes = append(d.Nodes, n)
		}
		tallest = max(tallest, len(names))
	}
	d.Width = marginX*2 + max(1, len(cols))*(nodeW+colGap) - colGap
	d.Height = marginTop + max(1, tallest)*(nodeH+rowGap)
	// One curve per pair of pipelines, however many datasets link them.
	type pair struct{ from, to string }
	drawn := map[pair]int{}
	for _, e := range g.Edges {
		k := pair{e.Producer, e.Consumer}
		if i, ok := drawn[k]; ok {
			d.Edges[i].Title += ", " + e.Dataset
			d.Edges[i].Optional = d.Edges[i].Optional && e.Optional
			continue
		}
		from, to := at[e.Producer], at[e.Consumer]
		x1, y1 := from.X+from.W, from.Y+from.H/2
		x2, y2 := to.X, to.Y+to.H/2
		bend := max(40, (x2-x1)/2)
		path := "M" + strconv.Itoa(x1) + "," + strconv.Itoa(y1) +
			" C" + strconv.Itoa(x1+bend) + "," + strconv.Itoa(y1) +
			" " + strconv.Itoa(x2-bend) + "," + strconv.Itoa(y2) +
			" " + strconv.Itoa(x2) + "," + strconv.Itoa(y2)
		drawn[k] = len(d.Edges)
		d.Edges = append(d.Edges, edgePath{D: path, Title: e.Producer + " → " + e.Consumer + ": " + e.Dataset, Optional: e.Optional})
	}
	return d
}

// shorten keeps the first n characters of s, marking a cut with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// neighbours are a dataset's producers and consumers in the graph.
type neighbours struct {
	Overlays  bool
	Producers []producerView
	Consumers []consumerView
}

type producerView struct {
	Pipeline, Key string
	Glob          bool // the key is a glob covering the name, or the name a glob covering the key
}

type consumerView struct {
	Pipeline, Dependency string
	External, Optional   bool
	Description          string
}

func datasetNeighbours(g *graph.Graph, overlays bool, name string) *neighbours {
	n := &neighbours{Overlays: overlays}
	for _, pr := range g.Producers(name) {
		n.Producers = append(n.Producers, producerView{Pipeline: pr.Pipeline, Key: pr.Key, Glob: pr.Key != name})
	}
	for _, c := range g.Consumers(name) {
		n.Consumers = append(n.Consumers, consumerView{Pipeline: c.Pipeline, Dependency: c.Dependency.Dataset,
			External: c.Dependency.External, Optional: c.Dependency.Optional, Description: derefDescription(c.Dependency)})
	}
	return n
}

func derefDescription(d governance.Dependency) string { return deref(d.Description) }

// pipelineView is an app's place in the graph.
type pipelineView struct {
	Overlays   bool
	Tier       int // from 1; 0 in no tier
	Upstream   []string
	Downstream []string
	// Inputs are the producers of each depends_on entry, in the order the
	// graph's pipeline states them.
	Inputs []graph.Input
}

func appPipeline(g *graph.Graph, overlays bool, app string) *pipelineView {
	n, ok := g.Pipeline(app)
	if !ok {
		return nil
	}
	return &pipelineView{Overlays: overlays, Tier: n.Tier + 1, Upstream: g.ProducersOf(app), Downstream: g.ConsumersOf(app), Inputs: n.Inputs}
}

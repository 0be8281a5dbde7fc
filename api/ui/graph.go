package ui

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

// A drawing is read only while it is small: past a few dozen pipelines
// the curves cross until no edge can be followed (and a few hundred apps
// each depending on datasets.*.* make millions of edges, tens of megabytes
// of SVG). So the page draws the whole graph only below these sizes, and
// otherwise lists the pipelines by tier, each leading to its
// neighbourhood, which is drawn when it is below the second pair of sizes.
const (
	maxWholePipelines = 30
	maxWholeCurves    = 120
	maxFocusPipelines = 80
	maxFocusCurves    = 300
	// maxListedPipelines bounds the names the list shows, all tiers
	// together; a search narrows it.
	maxListedPipelines = 500
	maxListedFindings  = 1000
	// maxFocusDepth is the deepest neighbourhood the page draws, as GET
	// /graph?focus= answers.
	maxFocusDepth = 3
	// curveDatasets is how many datasets a curve's title names.
	curveDatasets = 5
)

// graphView is the graph page's body.
type graphView struct {
	Overlays                          bool
	Pipelines, Edges, Tiers, Unplaced int
	// Mode is "whole" (the graph drawn), "list" (too large: the
	// pipelines by tier) or "focus" (a pipeline's neighbourhood).
	Mode                    string
	MaxPipelines, MaxCurves int
	Drawing                 drawing
	TierRows                []tierRow
	UnplacedNames           []string
	// The list: Find narrows it to the names holding it; Listed of
	// Matching names are shown.
	Find             string
	Listed, Matching int
	Focus            *focusView
	Findings         []graphFinding
	MoreFindings     int    // findings past maxListedFindings, not listed
	JSON             string // the same graph (or neighbourhood) from GET /graph
	FirstPage        string // its first page
	Query            string // "&overlays=false" when the page reads the base files, else ""
}

type tierRow struct {
	Tier      int // as governanced graph numbers it: from 0; -1 for no tier
	Count     int
	Pipelines []string
	More      int // names of the tier not listed
}

// focusView is a pipeline's neighbourhood.
type focusView struct {
	Name                 string
	Depth                int
	Depths               []int
	Upstream, Downstream []reachView
	Pipelines, Edges     int
	// TooLarge is a neighbourhood past maxFocusPipelines or
	// maxFocusCurves: listed, not drawn.
	TooLarge bool
}

type reachView struct {
	Pipeline string
	Distance int
}

type graphFinding struct {
	Kind, Pipeline, Dataset, Detail string
	Actionable                      bool
}

func (p *Pages) graphPage(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	g, overlays := p.graphOf(snap, r)
	if g == nil {
		p.fail(w, r, http.StatusNotFound, "No graph", "This server serves no dependency graph.", link{"Every app", Prefix + "/apps"})
		return
	}
	q := r.URL.Query()
	body := graphView{Overlays: overlays, Pipelines: len(g.Pipelines), Edges: len(g.Edges), Find: strings.TrimSpace(q.Get("find"))}
	if !overlays {
		body.Query = "&overlays=false"
	}
	body.JSON = "/graph?overlays=" + strconv.FormatBool(overlays)
	placed := 0
	for _, t := range g.Tiers() {
		placed += len(t)
	}
	body.Tiers, body.Unplaced = len(g.Tiers()), len(g.Pipelines)-placed
	findings := g.Findings
	if focus := q.Get("focus"); focus != "" {
		depth := 1
		if v := q.Get("depth"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxFocusDepth {
				p.fail(w, r, http.StatusBadRequest, "No such depth", "depth counts edges from the pipeline: a whole number from 1 to "+strconv.Itoa(maxFocusDepth)+", not "+quoted(v)+".",
					link{"The neighbourhood of " + focus, graphURL(focus, 1, overlays)})
				return
			}
			depth = n
		}
		n, ok := g.Neighbourhood(focus, depth)
		if !ok {
			p.fail(w, r, http.StatusNotFound, "No pipeline "+focus, "The graph has no pipeline called "+quoted(focus)+".", link{"Every pipeline", Prefix + "/graph"})
			return
		}
		body.showFocus(g, n, focus, depth, overlays)
		findings = n.Findings()
	} else {
		if body.Find != "" && g.Find(body.Find) != nil {
			// A pipeline's whole name: its neighbourhood.
			http.Redirect(w, r, graphURL(body.Find, 1, overlays), http.StatusSeeOther)
			return
		}
		body.showWhole(g, overlays)
	}
	body.listFindings(findings)
	title := "Graph"
	if body.Focus != nil {
		title = body.Focus.Name + " in the graph"
	}
	v := p.newView(r, snap, "graph", title)
	v.Body = body
	p.render(w, r, http.StatusOK, "graph", v)
}

// showFocus shows a pipeline's neighbourhood n, depth edges deep: drawn
// when it is small enough, else its summary alone.
func (body *graphView) showFocus(g *graph.Graph, n *graph.Neighbourhood, focus string, depth int, overlays bool) {
	body.Mode, body.MaxPipelines, body.MaxCurves = "focus", maxFocusPipelines, maxFocusCurves
	body.Focus = focusOf(n)
	body.JSON += "&focus=" + url.QueryEscape(focus) + "&depth=" + strconv.Itoa(depth)
	var unplaced []string
	for _, pl := range n.Pipelines() {
		if n.Tier(pl.Name) < 0 {
			unplaced = append(unplaced, pl.Name)
		}
	}
	roles := map[string]string{focus: "focus"}
	for _, rc := range n.Upstream {
		roles[rc.Pipeline] = "up"
	}
	for _, rc := range n.Downstream {
		roles[rc.Pipeline] += " down" // both, in a cycle
	}
	body.Focus.Edges = 0
	n.EachEdge(func(*graph.Edge) bool { body.Focus.Edges++; return true })
	if n.Len() > maxFocusPipelines {
		body.Focus.TooLarge = true
	} else if d, ok := draw(g, n.Tiers(), unplaced, n.EachEdge, roles, maxFocusCurves, overlays); ok {
		body.Drawing = d
	} else {
		body.Focus.TooLarge = true
	}
}

// showWhole shows the whole graph: drawn when it is small enough and
// nothing is searched for, else its pipelines listed by tier.
func (body *graphView) showWhole(g *graph.Graph, overlays bool) {
	body.FirstPage = body.JSON + "&limit=1000&offset=0"
	var unplaced []string
	in := map[string]bool{}
	for _, t := range g.Tiers() {
		for _, name := range t {
			in[name] = true
		}
	}
	for i := range g.Pipelines {
		if name := g.Pipelines[i].Name; !in[name] {
			unplaced = append(unplaced, name)
		}
	}
	d, ok := drawing{}, false
	if len(g.Pipelines) <= maxWholePipelines && body.Find == "" {
		d, ok = draw(g, g.Tiers(), unplaced, eachEdge(g), nil, maxWholeCurves, overlays)
	}
	if ok {
		body.Mode, body.Drawing = "whole", d
		for i, t := range g.Tiers() {
			body.TierRows = append(body.TierRows, tierRow{Tier: i, Count: len(t), Pipelines: t})
		}
		body.UnplacedNames = unplaced
	} else {
		body.Mode = "list"
		body.listTiers(g.Tiers(), unplaced)
	}
	body.MaxPipelines, body.MaxCurves = maxWholePipelines, maxWholeCurves
}

// listFindings lists the first maxListedFindings findings and counts the rest.
func (body *graphView) listFindings(findings []graph.Finding) {
	for i, f := range findings {
		if i == maxListedFindings {
			body.MoreFindings = len(findings) - i
			break
		}
		body.Findings = append(body.Findings, graphFinding{Kind: string(f.Kind), Pipeline: f.Pipeline, Dataset: f.Dataset, Detail: f.Detail, Actionable: f.Kind.Actionable()})
	}
}

// listTiers lists the pipelines of each tier whose names hold the search
// (any case), at most maxListedPipelines in all, with each tier's count.
func (v *graphView) listTiers(tiers [][]string, unplaced []string) {
	find := strings.ToLower(v.Find)
	add := func(tier int, names []string) {
		row := tierRow{Tier: tier}
		for _, name := range names {
			if find != "" && !strings.Contains(strings.ToLower(name), find) {
				continue
			}
			row.Count++
			v.Matching++
			if v.Listed < maxListedPipelines {
				row.Pipelines = append(row.Pipelines, name)
				v.Listed++
			} else {
				row.More++
			}
		}
		if row.Count > 0 {
			v.TierRows = append(v.TierRows, row)
		}
	}
	for i, t := range tiers {
		add(i, t)
	}
	add(-1, unplaced)
}

func focusOf(n *graph.Neighbourhood) *focusView {
	f := &focusView{Name: n.Focus, Depth: n.Depth, Pipelines: n.Len()}
	for d := 1; d <= maxFocusDepth; d++ {
		f.Depths = append(f.Depths, d)
	}
	for _, rc := range n.Upstream {
		f.Upstream = append(f.Upstream, reachView{rc.Pipeline, rc.Distance})
	}
	for _, rc := range n.Downstream {
		f.Downstream = append(f.Downstream, reachView{rc.Pipeline, rc.Distance})
	}
	return f
}

// graphURL is a pipeline's neighbourhood on the graph page.
func graphURL(pipeline string, depth int, overlays bool) string {
	u := Prefix + "/graph?focus=" + url.QueryEscape(pipeline)
	if depth != 1 {
		u += "&depth=" + strconv.Itoa(depth)
	}
	if !overlays {
		u += "&overlays=false"
	}
	return u
}

func eachEdge(g *graph.Graph) func(func(*graph.Edge) bool) {
	return func(fn func(*graph.Edge) bool) {
		for i := range g.Edges {
			if !fn(&g.Edges[i]) {
				return
			}
		}
	}
}

// drawing is a graph laid out in tiers: one column per tier holding a
// pipeline, left to right, labelled with the tier's number; the pipelines
// in no tier (a cycle, or downstream of one) in a last column; an edge as a
// curve from a producer's right side to a consumer's left.
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
	Role         string // "focus", "up", "down" or "" in a neighbourhood
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

// draw lays out the pipelines of tiers (tiers[t] in tier t's column; an
// empty tier has no column) and unplaced, and one curve per pair of them
// an edge links; ok is false past maxCurves curves. A box links to the
// pipeline's neighbourhood; roles mark the boxes of a neighbourhood.
func draw(g *graph.Graph, tiers [][]string, unplaced []string, edges func(func(*graph.Edge) bool), roles map[string]string, maxCurves int, overlays bool) (d drawing, ok bool) {
	type col struct {
		label string
		names []string
	}
	var cols []col
	for t, names := range tiers {
		if len(names) > 0 {
			cols = append(cols, col{"tier " + strconv.Itoa(t), names})
		}
	}
	if len(unplaced) > 0 {
		cols = append(cols, col{"in no tier (a cycle)", unplaced})
	}
	at := map[string]node{}
	tallest := 0
	for c, cl := range cols {
		x := marginX + c*(nodeW+colGap)
		d.Columns = append(d.Columns, column{X: x, Y: marginTop - 14, Label: cl.label})
		for i, name := range cl.names {
			y := marginTop + i*(nodeH+rowGap)
			pipe := g.Find(name)
			n := node{X: x, Y: y, W: nodeW, H: nodeH, TextX: x + 10, TextY: y + nodeH/2 + 5, Name: name, Label: shorten(name, labelChars),
				URL: graphURL(name, 1, overlays), Role: roles[name], Inactive: pipe != nil && !pipe.Active, Unplaced: c == len(cols)-1 && len(unplaced) > 0}
			if n.Role == "focus" {
				n.URL = appURL(name) // its own neighbourhood is the page it is on
			}
			at[name] = n
			d.Nodes = append(d.Nodes, n)
		}
		tallest = max(tallest, len(cl.names))
	}
	d.Width = marginX*2 + max(1, len(cols))*(nodeW+colGap) - colGap
	d.Height = marginTop + max(1, tallest)*(nodeH+rowGap)
	// One curve per pair of pipelines, however many datasets link them.
	type pair struct{ from, to string }
	drawn := map[pair]int{}
	named := map[pair]int{}
	ok = true
	edges(func(e *graph.Edge) bool {
		k := pair{e.Producer, e.Consumer}
		if i, seen := drawn[k]; seen {
			if named[k]++; named[k] < curveDatasets {
				d.Edges[i].Title += ", " + e.Dataset
			} else if named[k] == curveDatasets {
				d.Edges[i].Title += ", …"
			}
			d.Edges[i].Optional = d.Edges[i].Optional && e.Optional
			return true
		}
		if len(d.Edges) == maxCurves {
			ok = false
			return false
		}
		from, to := at[e.Producer], at[e.Consumer]
		x1, y1 := from.X+from.W, from.Y+from.H/2
		x2, y2 := to.X, to.Y+to.H/2
		bend := max(40, (x2-x1)/2)
		path := "M" + strconv.Itoa(x1) + "," + strconv.Itoa(y1) +
			" C" + strconv.Itoa(x1+bend) + "," + strconv.Itoa(y1) +
			" " + strconv.Itoa(x2-bend) + "," + strconv.Itoa(y2) +
			" " + strconv.Itoa(x2) + "," + strconv.Itoa(y2)
		drawn[k], named[k] = len(d.Edges), 1
		d.Edges = append(d.Edges, edgePath{D: path, Title: e.Producer + " → " + e.Consumer + ": " + e.Dataset, Optional: e.Optional})
		return true
	})
	return d, ok
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
	Tier       int // as governanced graph numbers it: from 0; -1 in no tier
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
	return &pipelineView{Overlays: overlays, Tier: n.Tier, Upstream: g.ProducersOf(app), Downstream: g.ConsumersOf(app), Inputs: n.Inputs}
}

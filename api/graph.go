package api

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// The pipeline dependency graph (graph.md), as every snapshot holds it: the
// base files' reading by default (what `governanced graph` prints for the
// same files), the served configurations' with overlays=true.

const textType = "text/plain; charset=utf-8"

// overlaysParam reads ?overlays=, false by default.
func overlaysParam(q url.Values) (bool, error) { return flag(q, "overlays", false) }

// graphDoc answers GET /graph: the json rendering's document with the
// revision, or with ?format= one of the text renderings; with ?limit or
// ?offset, a page of the json rendering (graphPage). A rendering larger
// than Limits.MaxGraphBytes is refused, unrendered, with 413
// answer-too-large saying how to page through it.
func (s *server) graphDoc(r *http.Request) (result, error) {
	q := r.URL.Query()
	overlays, err := overlaysParam(q)
	if err != nil {
		return result{}, err
	}
	format := graph.JSON
	if v := q.Get("format"); v != "" {
		f, ok := graph.ParseFormat(v)
		if !ok {
			return result{}, badRequest("format must be json, tree, order or mermaid, not %q", v)
		}
		format = f
	}
	focus, depth, err := focusParams(q, format)
	if err != nil {
		return result{}, err
	}
	paged := q.Has("limit") || q.Has("offset")
	var win diffWindow
	if paged && focus != "" {
		return result{}, badRequest("focus answers one pipeline's neighbourhood whole; limit and offset page the whole graph")
	}
	if paged {
		if format != graph.JSON {
			return result{}, badRequest("limit and offset page the json rendering; format %s is one text", format)
		}
		if win, err = pageWindow(q, defaultGraphLimit); err != nil {
			return result{}, err
		}
	}
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	g := snap.GraphOf(overlays)
	if focus != "" {
		return s.graphFocus(snap, overlays, g, focus, depth)
	}
	if paged {
		return treeResult(snap, func(buf *bytes.Buffer) { writeJSONValue(buf, graphPage(snap.Revision, overlays, g, win)) }), nil
	}
	if size := graphSize(g); size > int64(s.limits.MaxGraphBytes) {
		return result{snap: snap}, &requestError{status: http.StatusRequestEntityTooLarge, kind: "answer-too-large", detail: fmt.Sprintf(
			"the graph's rendering would be about %s (%d pipelines, %d edges), more than the %s one answer may be (--max-graph-bytes); "+
				"page through it with /graph?limit=%d&offset=0 (each page holds the pipelines, edges and findings from offset, and says where the next starts), "+
				"or ask for one pipeline's neighbourhood with /graph?focus={name}&depth=1",
			mib(size), len(g.Pipelines), len(g.Edges), mib(int64(s.limits.MaxGraphBytes)), defaultGraphLimit)}
	}
	contentType := jsonType
	if format != graph.JSON {
		contentType = textType
	}
	return result{snap: snap, tree: true, contentType: contentType, body: s.answers.of(s.store, snap).graphBody(overlays, format)}, nil
}

// A page of the graph: the json rendering's pipelines, edges and findings
// from offset, at most limit of each (default defaultGraphLimit, at most
// maxDiffLimit), its tiers whole (a name per pipeline), and a page member
// saying how many each list holds and where the next page starts.
const defaultGraphLimit = 1000

// graphPageBody is a page of GET /graph.
type graphPageBody struct {
	Revision string `json:"revision"`
	Overlays bool   `json:"overlays"`
	graphMembers
	Page graphPageInfo `json:"page"`
}

// graphMembers are the json rendering's members, of the whole graph (a
// page of it) or of a neighbourhood.
type graphMembers struct {
	Pipelines []graphPipeline `json:"pipelines"`
	Edges     []graphEdge     `json:"edges"`
	Tiers     [][]string      `json:"tiers"`
	Findings  []graphFinding  `json:"findings"`
}

type graphPipeline struct {
	Name      string                  `json:"name"`
	Path      string                  `json:"path"`
	Declared  bool                    `json:"declared"`
	Produces  []string                `json:"produces"`
	DependsOn []governance.Dependency `json:"depends_on"`
}

type graphEdge struct {
	Producer string `json:"producer"`
	Consumer string `json:"consumer"`
	Dataset  string `json:"dataset"`
	Pattern  string `json:"pattern"`
	Optional bool   `json:"optional"`
}

type graphPageInfo struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  struct {
		Pipelines int `json:"pipelines"`
		Edges     int `json:"edges"`
		Findings  int `json:"findings"`
	} `json:"total"`
	NextOffset *int `json:"next_offset"`
}

// graphPage is the window win of g's json rendering.
func graphPage(revision string, overlays bool, g *graph.Graph, win diffWindow) graphPageBody {
	body := graphPageBody{Revision: revision, Overlays: overlays,
		graphMembers: graphMembers{Tiers: g.Tiers(), Pipelines: []graphPipeline{}, Edges: []graphEdge{}}}
	for _, p := range window(g.Pipelines, win) {
		body.Pipelines = append(body.Pipelines, pipelineItem(&p))
	}
	for _, e := range window(g.Edges, win) {
		body.Edges = append(body.Edges, edgeItem(&e))
	}
	body.Findings = findingsOf(window(g.Findings, win))
	pg := &body.Page
	pg.Offset, pg.Limit = win.offset, win.limit
	pg.Total.Pipelines, pg.Total.Edges, pg.Total.Findings = len(g.Pipelines), len(g.Edges), len(g.Findings)
	if next := win.offset + win.limit; next < max(len(g.Pipelines), len(g.Edges), len(g.Findings)) {
		pg.NextOffset = &next
	}
	return body
}

// maxFocusDepth bounds ?depth with ?focus: three edges either way is as
// far as a neighbourhood stays readable, and bounds what one request walks.
const maxFocusDepth = 3

// focusParams reads ?focus (a pipeline's name) and ?depth (edges away,
// 1 by default, at most maxFocusDepth), which only a focus takes, and
// only in the json rendering.
func focusParams(q url.Values, format graph.Format) (focus string, depth int, err error) {
	focus = q.Get("focus")
	if focus == "" {
		if q.Has("depth") {
			return "", 0, badRequest("depth counts edges from a focus; add focus=PIPELINE")
		}
		return "", 0, nil
	}
	if format != graph.JSON {
		return "", 0, badRequest("focus answers the json rendering of a neighbourhood; format %s renders the whole graph", format)
	}
	depth, err = intParam(q, "depth", 1, 1, maxFocusDepth)
	return focus, depth, err
}

// graphFocusBody is GET /graph?focus=: the json rendering's members for
// one pipeline's neighbourhood, and which.
type graphFocusBody struct {
	Revision string         `json:"revision"`
	Overlays bool           `json:"overlays"`
	Focus    graphFocusInfo `json:"focus"`
	graphMembers
}

type graphFocusInfo struct {
	Pipeline   string    `json:"pipeline"`
	Depth      int       `json:"depth"`
	Upstream   []reached `json:"upstream"`
	Downstream []reached `json:"downstream"`
}

// graphFocus answers a pipeline's neighbourhood in g, or 404 when g has
// no such pipeline, or 413 when the answer would be larger than one
// answer may be.
func (s *server) graphFocus(snap *snapshot.Snapshot, overlays bool, g *graph.Graph, focus string, depth int) (result, error) {
	n, ok := g.Neighbourhood(focus, depth)
	if !ok {
		return result{snap: snap}, &requestError{status: http.StatusNotFound, kind: "pipeline-not-found",
			detail: "no pipeline called " + quote(focus) + " is in the graph; GET /graph lists them", ext: []member{{"pipeline", focus}}}
	}
	// Sized before anything is copied: everyone's neighbour in a graph of
	// broad depends_on entries has all of its edges.
	pipelines, findings := n.Pipelines(), n.Findings()
	size, edges := itemsSize(pipelines, nil, findings), 0
	n.EachEdge(func(e *graph.Edge) bool {
		size += edgeSize(e)
		edges++
		return true
	})
	if size > int64(s.limits.MaxGraphBytes) {
		return result{snap: snap}, &requestError{status: http.StatusRequestEntityTooLarge, kind: "answer-too-large", detail: fmt.Sprintf(
			"the neighbourhood of %s at depth %d would be about %s (%d pipelines, %d edges), more than the %s one answer may be (--max-graph-bytes); ask for a smaller depth",
			quote(focus), depth, mib(size), len(pipelines), edges, mib(int64(s.limits.MaxGraphBytes)))}
	}
	return treeResult(snap, func(buf *bytes.Buffer) {
		body := graphFocusBody{Revision: snap.Revision, Overlays: overlays,
			Focus: graphFocusInfo{Pipeline: focus, Depth: depth, Upstream: reachedOf(n.Upstream), Downstream: reachedOf(n.Downstream)},
			graphMembers: graphMembers{Tiers: n.Tiers(), Findings: findingsOf(findings),
				Pipelines: make([]graphPipeline, len(pipelines)), Edges: make([]graphEdge, 0, edges)}}
		for i, p := range pipelines {
			body.Pipelines[i] = pipelineItem(p)
		}
		n.EachEdge(func(e *graph.Edge) bool {
			body.Edges = append(body.Edges, edgeItem(e))
			return true
		})
		writeJSONValue(buf, body)
	}), nil
}

func pipelineItem(p *graph.Pipeline) graphPipeline {
	deps := p.DependsOn
	if deps == nil {
		deps = []governance.Dependency{}
	}
	return graphPipeline{Name: p.Name, Path: p.Path, Declared: p.Declared, Produces: p.Keys(), DependsOn: deps}
}

func edgeItem(e *graph.Edge) graphEdge {
	return graphEdge{Producer: e.Producer, Consumer: e.Consumer, Dataset: e.Dataset, Pattern: e.Pattern, Optional: e.Optional}
}

// edgeSize is an edge's part of itemsSize.
func edgeSize(e *graph.Edge) int64 {
	const perItem = 96
	return perItem + int64(len(e.Producer)+len(e.Consumer)+len(e.Dataset)+len(e.Pattern))
}

// graphSize estimates the bytes of g's renderings from its strings and a
// generous allowance for the punctuation and member names around each
// item, without rendering it.
func graphSize(g *graph.Graph) int64 {
	pipelines := make([]*graph.Pipeline, len(g.Pipelines))
	for i := range g.Pipelines {
		pipelines[i] = &g.Pipelines[i]
	}
	return itemsSize(pipelines, g.Edges, g.Findings)
}

// itemsSize is graphSize for a graph's lists.
func itemsSize(pipelines []*graph.Pipeline, edges []graph.Edge, findings []graph.Finding) int64 {
	const perItem = 96
	n := int64(len(pipelines)+len(findings)) * perItem
	for _, p := range pipelines {
		n += int64(2*len(p.Name) + len(p.Path))
		for k := range p.KeyCount() {
			n += int64(len(p.Key(k))) + 4
		}
		for _, d := range p.DependsOn {
			n += int64(len(d.Dataset)) + perItem
			if d.Description != nil {
				n += int64(len(*d.Description))
			}
		}
	}
	for i := range edges {
		n += edgeSize(&edges[i])
	}
	for i := range findings {
		f := &findings[i]
		n += int64(len(f.Pipeline) + len(f.Dataset) + len(f.Detail))
	}
	return n
}

// pipelineBody is GET /graph/pipelines/{name}.
type pipelineBody struct {
	Revision string `json:"revision"`
	Overlays bool   `json:"overlays"`
	Name     string `json:"name"`
	Path     string `json:"path"`
	Active   bool   `json:"active"`
	Declared bool   `json:"declared"`
	// Tier is null for a pipeline in a cycle, or downstream of one.
	Tier       *int             `json:"tier"`
	Inputs     []pipelineInput  `json:"inputs"`
	Outputs    []pipelineOutput `json:"outputs"`
	Depth      int              `json:"depth"`
	Upstream   []reached        `json:"upstream"`
	Downstream []reached        `json:"downstream"`
	Findings   []graphFinding   `json:"findings"`
}

// pipelineInput is one depends_on entry and the producer keys it matched.
type pipelineInput struct {
	Dataset     string         `json:"dataset"`
	External    bool           `json:"external"`
	Optional    bool           `json:"optional"`
	Description *string        `json:"description"`
	Producers   []producerItem `json:"producers"`
}

// pipelineOutput is one sources key and the entries of other pipelines that
// matched it.
type pipelineOutput struct {
	Dataset   string         `json:"dataset"`
	Consumers []consumerItem `json:"consumers"`
}

// producerItem is a pipeline writing a dataset: Output is its sources key
// that matched.
type producerItem struct {
	Pipeline string `json:"pipeline"`
	Output   string `json:"output"`
	Match    string `json:"match"`
	Active   bool   `json:"active"`
}

// consumerItem is a pipeline reading a dataset: Input is its depends_on
// entry's dataset that matched.
type consumerItem struct {
	Pipeline string `json:"pipeline"`
	Input    string `json:"input"`
	External bool   `json:"external"`
	Optional bool   `json:"optional"`
	Match    string `json:"match"`
	Active   bool   `json:"active"`
}

type reached struct {
	Pipeline string `json:"pipeline"`
	Distance int    `json:"distance"`
}

// graphFinding is a finding as the json rendering writes it.
type graphFinding struct {
	Kind     graph.Kind `json:"kind"`
	Pipeline *string    `json:"pipeline"`
	Dataset  *string    `json:"dataset"`
	Detail   string     `json:"detail"`
}

// matchKind says how a dataset name and a key or dependency met (graph.md
// §5): the same text, or through a glob on either side.
func matchKind(a, b string) string {
	if a == b {
		return "exact"
	}
	return "glob"
}

// producerItems are ps, producers of the dataset name in g, as the
// answers list them.
func producerItems(g *graph.Graph, name string, ps []graph.Producer) []producerItem {
	items := make([]producerItem, len(ps))
	for i, p := range ps {
		items[i] = producerItem{Pipeline: p.Pipeline, Output: p.Key, Match: matchKind(name, p.Key), Active: active(g, p.Pipeline)}
	}
	return items
}

// consumerItems are cs, consumers of the dataset name in g, as the
// answers list them.
func consumerItems(g *graph.Graph, name string, cs []graph.Consumer) []consumerItem {
	items := make([]consumerItem, len(cs))
	for i, c := range cs {
		d := c.Dependency
		items[i] = consumerItem{Pipeline: c.Pipeline, Input: d.Dataset, External: d.External, Optional: d.Optional,
			Match: matchKind(name, d.Dataset), Active: active(g, c.Pipeline)}
	}
	return items
}

func active(g *graph.Graph, name string) bool {
	p := g.Find(name)
	return p != nil && p.Active
}

func (s *server) graphPipeline(r *http.Request) (result, error) {
	q := r.URL.Query()
	overlays, err := overlaysParam(q)
	if err != nil {
		return result{}, err
	}
	depth := 1
	if v := q.Get("depth"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return result{}, badRequest("depth must be a whole number of edges (0: no limit), not %q", v)
		}
		depth = n
	}
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	name := httpread.PathParam(r, "name")
	g := snap.GraphOf(overlays)
	node, ok := g.Pipeline(name)
	if !ok {
		return result{snap: snap}, &requestError{status: http.StatusNotFound, kind: "pipeline-not-found",
			detail: "no pipeline called " + quote(name) + " is in the graph; GET /graph lists them", ext: []member{{"pipeline", name}}}
	}
	return treeResult(snap, func(buf *bytes.Buffer) {
		writeJSONValue(buf, newPipelineBody(snap.Revision, overlays, g, node, depth))
	}), nil
}

// newPipelineBody is GET /graph/pipelines/{name}'s body for node of g.
func newPipelineBody(revision string, overlays bool, g *graph.Graph, node graph.Node, depth int) pipelineBody {
	p, name := node.Pipeline, node.Pipeline.Name
	body := pipelineBody{Revision: revision, Overlays: overlays, Name: p.Name, Path: p.Path, Active: p.Active, Declared: p.Declared,
		Inputs: make([]pipelineInput, len(node.Inputs)), Outputs: make([]pipelineOutput, len(node.Outputs)), Depth: depth,
		Upstream: reachedOf(g.Upstream(name, depth)), Downstream: reachedOf(g.Downstream(name, depth)),
		Findings: findingsOf(g.FindingsOf(name))}
	if node.Tier >= 0 {
		body.Tier = &node.Tier
	}
	for i, in := range node.Inputs {
		d := in.Dependency
		body.Inputs[i] = pipelineInput{Dataset: d.Dataset, External: d.External, Optional: d.Optional, Description: d.Description,
			Producers: producerItems(g, d.Dataset, in.Producers)}
	}
	for i, out := range node.Outputs {
		body.Outputs[i] = pipelineOutput{Dataset: out.Key, Consumers: consumerItems(g, out.Key, out.Consumers)}
	}
	return body
}

func reachedOf(rs []graph.Reach) []reached {
	out := make([]reached, len(rs))
	for i, r := range rs {
		out[i] = reached{Pipeline: r.Pipeline, Distance: r.Distance}
	}
	return out
}

func findingsOf(fs []graph.Finding) []graphFinding {
	out := make([]graphFinding, len(fs))
	for i := range fs {
		f := &fs[i]
		out[i] = graphFinding{Kind: f.Kind, Detail: f.Detail}
		if f.HasPipeline() {
			out[i].Pipeline = &f.Pipeline
		}
		if f.HasDataset() {
			out[i].Dataset = &f.Dataset
		}
	}
	return out
}

// producersBody is GET /datasets/{id}/producers.
type producersBody struct {
	Revision  string         `json:"revision"`
	Overlays  bool           `json:"overlays"`
	Dataset   string         `json:"dataset"`
	Producers []producerItem `json:"producers"`
}

// consumersBody is GET /datasets/{id}/consumers.
type consumersBody struct {
	Revision  string         `json:"revision"`
	Overlays  bool           `json:"overlays"`
	Dataset   string         `json:"dataset"`
	Consumers []consumerItem `json:"consumers"`
}

// datasetGraph answers one of the dataset routes of the graph: the body
// body makes of the reading asked for.
func (s *server) datasetGraph(r *http.Request, body func(snap *snapshot.Snapshot, g *graph.Graph, overlays bool) any) (result, error) {
	overlays, err := overlaysParam(query(r))
	if err != nil {
		return result{}, err
	}
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	return treeResult(snap, func(buf *bytes.Buffer) { writeJSONValue(buf, body(snap, snap.GraphOf(overlays), overlays)) }), nil
}

// datasetProducers answers who writes a dataset name: every pipeline whose
// sources key matches it (graph.md §5, either side a glob). Nobody is an
// answer (an empty list), not an error: the name may be produced outside
// the tree.
func (s *server) datasetProducers(r *http.Request) (result, error) {
	id := httpread.PathParam(r, "id")
	return s.datasetGraph(r, func(snap *snapshot.Snapshot, g *graph.Graph, overlays bool) any {
		return producersBody{Revision: snap.Revision, Overlays: overlays, Dataset: id, Producers: producerItems(g, id, g.Producers(id))}
	})
}

// datasetConsumers answers who reads a dataset name: every pipeline with a
// depends_on entry matching it, including one that also produces it (the
// graph drops that self-edge, and reports it).
func (s *server) datasetConsumers(r *http.Request) (result, error) {
	id := httpread.PathParam(r, "id")
	return s.datasetGraph(r, func(snap *snapshot.Snapshot, g *graph.Graph, overlays bool) any {
		return consumersBody{Revision: snap.Revision, Overlays: overlays, Dataset: id, Consumers: consumerItems(g, id, g.Consumers(id))}
	})
}

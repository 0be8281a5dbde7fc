package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/testmem"
)

// The test tree's graph (testdata/tree): meters declares no inputs (its
// overlay replaces that with an external one); weather reads
// datasets.gold.meters, which meters writes as a key and through its glob
// datasets.gold.*; twin reads datasets.gold.weather_wind, which weather's
// datasets.gold.weather_* and meters' datasets.gold.* cover. meters and twin
// both declare datasets.gold.shared, twin and weather datasets.silver.*.

// commandOutput is what `governanced graph` prints for the test tree, run
// in the tree's root, which the served files are named from.
func commandOutput(t *testing.T, format graph.Format, overlays bool) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := graph.RunCLI(graph.CLIOptions{Patterns: []string{"apps/*"}, Dir: testTree, Format: string(format), Overlays: overlays}, &stdout, &stderr); code != 0 {
		t.Fatalf("governanced graph: exit %d\n%s", code, stderr.String())
	}
	return stdout.Bytes()
}

func TestGraphDocument(t *testing.T) {
	h, store := testServer(t)
	rev := store.Current().Revision
	for _, overlays := range []bool{false, true} {
		q := ""
		if overlays {
			q = "overlays=true"
		}
		r := do(t, h, "GET", "/graph?"+q, nil)
		if r.status != 200 || r.header.Get("Content-Type") != jsonType || r.header.Get(revisionHeader) != rev || r.header.Get("ETag") == "" {
			t.Fatalf("overlays=%v: %d %v\n%s", overlays, r.status, r.header, r.body)
		}
		body := decodeBody(t, r)
		if body["revision"] != rev || body["overlays"] != overlays {
			t.Errorf("overlays=%v: revision %v overlays %v", overlays, body["revision"], body["overlays"])
		}
		delete(body, "revision")
		delete(body, "overlays")
		var printed map[string]any
		if err := json.Unmarshal(commandOutput(t, graph.JSON, overlays), &printed); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(printed, body); diff != "" {
			t.Errorf("overlays=%v: /graph is not governanced graph --format json (-command +served):\n%s", overlays, diff)
		}
		for _, f := range []graph.Format{graph.Tree, graph.Order, graph.Mermaid} {
			r := do(t, h, "GET", "/graph?format="+string(f)+"&"+q, nil)
			if r.status != 200 || r.header.Get("Content-Type") != textType || r.header.Get(revisionHeader) != rev {
				t.Fatalf("%s: %d %v", f, r.status, r.header)
			}
			if diff := cmp.Diff(string(commandOutput(t, f, overlays)), string(r.body)); diff != "" {
				t.Errorf("overlays=%v %s (-command +served):\n%s", overlays, f, diff)
			}
		}
	}
	// The overlay replaces meters' depends_on in the merged reading only.
	base := decodeBody(t, do(t, h, "GET", "/graph", nil))
	merged := decodeBody(t, do(t, h, "GET", "/graph?overlays=true", nil))
	dependsOn := func(doc map[string]any, name string) any {
		for _, p := range doc["pipelines"].([]any) {
			if p := p.(map[string]any); p["name"] == name {
				return p["depends_on"]
			}
		}
		return nil
	}
	if diff := cmp.Diff([]any{}, dependsOn(base, "meters")); diff != "" {
		t.Errorf("base meters depends_on (-want +got):\n%s", diff)
	}
	want := []any{map[string]any{"dataset": "raw.meters_feed", "external": true, "optional": false, "description": nil}}
	if diff := cmp.Diff(want, dependsOn(merged, "meters")); diff != "" {
		t.Errorf("merged meters depends_on (-want +got):\n%s", diff)
	}
	etag := do(t, h, "GET", "/graph", nil).header.Get("ETag")
	for _, target := range []string{"/graph", "/graph?format=tree", "/graph/pipelines/weather", "/datasets/x/producers", "/datasets/x/consumers"} {
		if r := do(t, h, "GET", target, nil, "If-None-Match", etag); r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("%s with the current ETag: %d %s", target, r.status, r.body)
		}
	}
}

// graphRouteCase is one request of a graph route and what it answers.
type graphRouteCase struct {
	name    string
	target  string
	status  int
	want    map[string]any // members of the body to compare
	problem string
}

func TestGraphRoutes(t *testing.T) {
	h, store := testServer(t)
	rev := store.Current().Revision
	tests := graphRouteCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, body := getObject(t, h, tt.target, tt.status)
			if tt.problem != "" {
				wantProblemType(t, r, body, tt.problem)
				if tt.status == 404 && body["revision"] != rev {
					t.Errorf("a lookup's problem names revision %v, want %s", body["revision"], rev)
				}
			} else if body["revision"] != rev || r.header.Get(revisionHeader) != rev || r.header.Get("ETag") == "" {
				t.Errorf("revision %v, header %q, ETag %q", body["revision"], r.header.Get(revisionHeader), r.header.Get("ETag"))
			}
			for k, want := range tt.want {
				if diff := cmp.Diff(want, body[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

// graphRouteCases are the graph routes' answers on testdata/tree.
func graphRouteCases() []graphRouteCase {
	return []graphRouteCase{
		{name: "a pipeline", target: "/graph/pipelines/weather", status: 200, want: map[string]any{
			"name": "weather", "path": "apps/weather/governance.yaml", "active": true, "declared": true, "tier": 1.0,
			"overlays": false, "depth": 1.0,
			"inputs": []any{map[string]any{"dataset": "datasets.gold.meters", "external": false, "optional": false,
				"description": "the readings it enriches", "producers": []any{
					map[string]any{"pipeline": "meters", "output": "datasets.gold.meters", "match": "exact", "active": true},
					map[string]any{"pipeline": "meters", "output": "datasets.gold.*", "match": "glob", "active": true},
				}}},
			"outputs": []any{
				map[string]any{"dataset": "datasets.gold.weather_*", "consumers": []any{
					map[string]any{"pipeline": "twin", "input": "datasets.gold.weather_wind", "external": false, "optional": true, "match": "glob", "active": true}}},
				map[string]any{"dataset": "datasets.silver.*", "consumers": []any{}},
			},
			"upstream":   []any{map[string]any{"pipeline": "meters", "distance": 1.0}},
			"downstream": []any{map[string]any{"pipeline": "twin", "distance": 1.0}},
			"findings": []any{map[string]any{"kind": "multiple-producers", "pipeline": nil, "dataset": "datasets.silver.*",
				"detail": "datasets.silver.* is declared by twin, weather — two answers to who owns it, and an ambiguous producer for anything depending on it"}},
		}},
		{name: "a pipeline's findings", target: "/graph/pipelines/twin", status: 200, want: map[string]any{
			"tier": 2.0,
			"findings": []any{map[string]any{"kind": "multiple-producers", "pipeline": nil, "dataset": "datasets.gold.shared",
				"detail": "datasets.gold.shared is declared by meters, twin — two answers to who owns it, and an ambiguous producer for anything depending on it"},
				map[string]any{"kind": "multiple-producers", "pipeline": nil, "dataset": "datasets.silver.*",
					"detail": "datasets.silver.* is declared by twin, weather — two answers to who owns it, and an ambiguous producer for anything depending on it"}},
		}},
		{name: "merged reading", target: "/graph/pipelines/meters?overlays=true", status: 200, want: map[string]any{
			"overlays": true, "tier": 0.0,
			"inputs": []any{map[string]any{"dataset": "raw.meters_feed", "external": true, "optional": false, "description": nil, "producers": []any{}}},
		}},
		{name: "producers, a key and a glob", target: "/datasets/datasets.gold.weather_wind/producers", status: 200, want: map[string]any{
			"dataset": "datasets.gold.weather_wind", "overlays": false,
			"producers": []any{
				map[string]any{"pipeline": "meters", "output": "datasets.gold.*", "match": "glob", "active": true},
				map[string]any{"pipeline": "weather", "output": "datasets.gold.weather_*", "match": "glob", "active": true},
			},
		}},
		{name: "producers, declared twice", target: "/datasets/datasets.gold.shared/producers", status: 200, want: map[string]any{
			"producers": []any{
				map[string]any{"pipeline": "meters", "output": "datasets.gold.shared", "match": "exact", "active": true},
				map[string]any{"pipeline": "meters", "output": "datasets.gold.*", "match": "glob", "active": true},
				map[string]any{"pipeline": "twin", "output": "datasets.gold.shared", "match": "exact", "active": true},
			},
		}},
		{name: "producers of a glob key by its own name", target: "/datasets/datasets.gold.weather_%2A/producers", status: 200, want: map[string]any{
			"dataset": "datasets.gold.weather_*",
			"producers": []any{
				map[string]any{"pipeline": "meters", "output": "datasets.gold.*", "match": "glob", "active": true},
				map[string]any{"pipeline": "weather", "output": "datasets.gold.weather_*", "match": "exact", "active": true},
			},
		}},
		{name: "no producer", target: "/datasets/raw.meters_feed/producers", status: 200, want: map[string]any{
			"producers": []any{},
		}},
		{name: "consumers", target: "/datasets/datasets.gold.meters/consumers", status: 200, want: map[string]any{
			"consumers": []any{map[string]any{"pipeline": "weather", "input": "datasets.gold.meters", "external": false, "optional": false, "match": "exact", "active": true}},
		}},
		{name: "consumers of a glob", target: "/datasets/datasets.gold.%2A/consumers", status: 200, want: map[string]any{
			"consumers": []any{
				map[string]any{"pipeline": "twin", "input": "datasets.gold.weather_wind", "external": false, "optional": true, "match": "glob", "active": true},
				map[string]any{"pipeline": "weather", "input": "datasets.gold.meters", "external": false, "optional": false, "match": "glob", "active": true},
			},
		}},
		{name: "consumers only an overlay declares", target: "/datasets/raw.meters_feed/consumers", status: 200, want: map[string]any{
			"consumers": []any{},
		}},
		{name: "consumers only an overlay declares, merged", target: "/datasets/raw.meters_feed/consumers?overlays=true", status: 200, want: map[string]any{
			"overlays":  true,
			"consumers": []any{map[string]any{"pipeline": "meters", "input": "raw.meters_feed", "external": true, "optional": false, "match": "exact", "active": true}},
		}},
		{name: "no such pipeline", target: "/graph/pipelines/grid", status: 404, problem: "pipeline-not-found", want: map[string]any{"pipeline": "grid"}},
		{name: "bad depth", target: "/graph/pipelines/weather?depth=two", status: 400, problem: "bad-request"},
		{name: "negative depth", target: "/graph/pipelines/weather?depth=-1", status: 400, problem: "bad-request"},
		{name: "bad overlays", target: "/datasets/x/consumers?overlays=perhaps", status: 400, problem: "bad-request"},
		{name: "bad format", target: "/graph?format=dot", status: 400, problem: "bad-request"},
	}
}

// TestGraphDepth: ?depth= bounds how far upstream and downstream reach.
func TestGraphDepth(t *testing.T) {
	dir := testfs.Tree(t, chainTree)
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	h, _ := newServer(Deps{Store: store})
	reach := func(target, member string) []string {
		var out []string
		for _, x := range decodeBody(t, do(t, h, "GET", target, nil))[member].([]any) {
			x := x.(map[string]any)
			out = append(out, fmt.Sprint(x["pipeline"], " ", x["distance"]))
		}
		return out
	}
	for _, tt := range []struct {
		target, member string
		want           []string
	}{
		{"/graph/pipelines/r", "upstream", []string{"q 1"}},
		{"/graph/pipelines/r?depth=2", "upstream", []string{"q 1", "p 2"}},
		{"/graph/pipelines/r?depth=0", "upstream", []string{"q 1", "p 2"}},
		{"/graph/pipelines/p?depth=0", "downstream", []string{"q 1", "r 2"}},
		{"/graph/pipelines/p?depth=1", "upstream", nil},
	} {
		if diff := cmp.Diff(tt.want, reach(tt.target, tt.member)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.target, tt.member, diff)
		}
	}
}

// chainTree is p → q → r: q reads what p writes, r what q writes.
var chainTree = map[string]string{
	"apps/p/governance.yaml": "defaults: {}\ndepends_on: []\nsources:\n  ds.p: {}\n",
	"apps/q/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: ds.p\nsources:\n  ds.q: {}\n",
	"apps/r/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: ds.q\nsources:\n  ds.r: {}\n",
}

// TestGraphReloadIntoACycle: an edit that makes p read what r writes closes
// a cycle. The reload is activated (graph findings are warnings), and the
// next revision's /graph, /status and /metrics all show the cycle.
func TestGraphReloadIntoACycle(t *testing.T) {
	dir := testfs.Tree(t, chainTree)
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	h, _ := newServer(Deps{Store: store})
	before := store.Current().Revision
	oldETag := do(t, h, "GET", "/graph", nil).header.Get("ETag")
	if !strings.Contains(string(do(t, h, "GET", "/metrics", nil).body), `governanced_graph_findings{kind="cycle"} 0`) {
		t.Fatal("before the edit, the metrics do not show zero cycles")
	}

	testfs.Replace(t, dir, "apps/p/governance.yaml", "depends_on: []", "depends_on:\n  - dataset: ds.r")
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated {
		t.Fatalf("reload: %v %v", st.Outcome, st.Err)
	}
	after := store.Current().Revision
	if after == before {
		t.Fatal("the revision did not change")
	}

	r := do(t, h, "GET", "/graph", nil, "If-None-Match", oldETag)
	if r.status != 200 || r.header.Get(revisionHeader) != after {
		t.Fatalf("/graph after the reload: %d, revision %q", r.status, r.header.Get(revisionHeader))
	}
	doc := decodeBody(t, r)
	want := []any{map[string]any{"kind": "cycle", "pipeline": nil, "dataset": nil,
		"detail": "cycle, or downstream of one — no run order exists for: p, q, r"}}
	if diff := cmp.Diff(want, doc["findings"]); diff != "" || doc["revision"] != after {
		t.Errorf("/graph findings in %v (-want +got):\n%s", doc["revision"], diff)
	}
	if diff := cmp.Diff([]any{}, doc["tiers"]); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}
	if p := decodeBody(t, do(t, h, "GET", "/graph/pipelines/q", nil)); p["tier"] != nil || len(p["findings"].([]any)) != 1 {
		t.Errorf("q in the cycle: tier %v, findings %v", p["tier"], p["findings"])
	}

	var status struct {
		Revision string
		Graph    snapshot.GraphCounts
	}
	if err := json.Unmarshal(do(t, h, "GET", "/status", nil).body, &status); err != nil {
		t.Fatal(err)
	}
	wantCounts := snapshot.GraphCounts{Pipelines: 3, Declaring: 3, Edges: 3, Tiers: 0, Unplaced: 3, Findings: map[graph.Kind]int{
		graph.Unresolved: 0, graph.MultipleProducers: 0, graph.Cycle: 1, graph.SelfDependency: 0, graph.InactiveProducer: 0, graph.ExternalSatisfied: 0}}
	if diff := cmp.Diff(wantCounts, status.Graph); diff != "" || status.Revision != after {
		t.Errorf("/status graph in %s (-want +got):\n%s", status.Revision, diff)
	}

	metrics := string(do(t, h, "GET", "/metrics", nil).body)
	for _, line := range []string{
		`governanced_revision_info{revision="` + after + `"} 1`,
		`governanced_graph_findings{kind="cycle"} 1`,
		`governanced_graph_findings{kind="unresolved"} 0`,
		`governanced_graph_findings{kind="multiple-producers"} 0`,
		`governanced_graph_findings{kind="self-dependency"} 0`,
		`governanced_graph_findings{kind="inactive-producer"} 0`,
		`governanced_graph_findings{kind="external-satisfied"} 0`,
		`governanced_graph_pipelines 3`,
		`governanced_graph_edges 3`,
	} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("metrics lack %s", line)
		}
	}
	if strings.Contains(metrics, `kind="schedule-`) || strings.Contains(metrics, `kind="not-deployed"`) {
		t.Error("metrics count schedule findings, which the service never computes")
	}
}

// wideGraphStore serves apps apps of keys sources each, every one depending
// on datasets.*.*: each app reads every other app's keys, apps × (apps-1) ×
// keys edges.
func wideGraphStore(t testing.TB, apps, keys int) *snapshot.Store {
	t.Helper()
	files := map[string]string{}
	for a := range apps {
		var b strings.Builder
		b.WriteString("defaults: {row_filters: []}\ndepends_on:\n  - dataset: datasets.*.*\nsources:\n")
		for k := range keys {
			fmt.Fprintf(&b, "  datasets.app%03d.k%02d: {expose: true}\n", a, k)
		}
		files[fmt.Sprintf("apps/app%03d/governance.yaml", a)] = b.String()
	}
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testfs.Tree(t, files)}}})
}

// TestGraphAnswerIsBounded: a graph of hundreds of thousands of edges is
// not rendered whole for GET /graph — 413 answer-too-large says its size and
// how to page — and its pages, read to the end, are the whole rendering;
// /ui/graph says it is too large to draw instead of drawing it.
func TestGraphAnswerIsBounded(t *testing.T) {
	store := wideGraphStore(t, 120, 10) // 142 800 edges: about 20 MB of JSON
	g := store.Current().Graph()
	if len(g.Edges) != 120*119*10 {
		t.Fatalf("%d edges", len(g.Edges))
	}
	h, _ := newServer(Deps{Store: store, Limits: Limits{MaxGraphBytes: 1 << 20}})
	var whole response
	peak := testmem.PeakHeap(func() { whole = do(t, h, "GET", "/graph", nil) })
	if whole.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("GET /graph: %d, want 413", whole.status)
	}
	p := problemOf(t, whole)
	if p["type"] != ProblemBase+"answer-too-large" || !strings.Contains(p["detail"].(string), "120 pipelines, 142800 edges") || !strings.Contains(p["detail"].(string), "/graph?limit=1000&offset=0") {
		t.Errorf("problem %v", p)
	}
	holdsToOpenAPI(t, "/graph", "get", whole)
	if peak > 8<<20 {
		t.Errorf("refusing the graph took %d MB: it was rendered", peak>>20)
	}
	for _, format := range []string{"tree", "order", "mermaid"} {
		if r := do(t, h, "GET", "/graph?format="+format, nil); r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("format %s: %d, want 413", format, r.status)
		}
	}
	if r := do(t, h, "GET", "/graph?format=tree&limit=10", nil); r.status != http.StatusBadRequest {
		t.Errorf("a page of a text rendering: %d, want 400", r.status)
	}

	// The pages together are the rendering the command prints.
	type page struct {
		Revision  string            `json:"revision"`
		Pipelines []json.RawMessage `json:"pipelines"`
		Edges     []json.RawMessage `json:"edges"`
		Tiers     [][]string        `json:"tiers"`
		Findings  []json.RawMessage `json:"findings"`
		Page      *graphPageInfo    `json:"page"`
	}
	big, _ := newServer(Deps{Store: store, Limits: Limits{MaxGraphBytes: 256 << 20}})
	var want page
	if r := do(t, big, "GET", "/graph", nil); r.status != 200 || json.Unmarshal(r.body, &want) != nil || want.Page != nil {
		t.Fatalf("the whole graph under a raised cap: %d", r.status)
	}
	var got page
	for offset := 0; ; {
		r := do(t, h, "GET", fmt.Sprintf("/graph?limit=10000&offset=%d", offset), nil)
		holdsToOpenAPI(t, "/graph", "get", r)
		var pg page
		if r.status != 200 || json.Unmarshal(r.body, &pg) != nil || pg.Page == nil {
			t.Fatalf("page at %d: %d %.300s", offset, r.status, r.body)
		}
		got.Pipelines = append(got.Pipelines, pg.Pipelines...)
		got.Edges = append(got.Edges, pg.Edges...)
		got.Findings = append(got.Findings, pg.Findings...)
		got.Tiers, got.Revision = pg.Tiers, pg.Revision
		if pg.Page.NextOffset == nil {
			if pg.Page.Total.Edges != len(g.Edges) {
				t.Errorf("page totals %+v", pg.Page.Total)
			}
			break
		}
		offset = *pg.Page.NextOffset
	}
	compact := func(raws []json.RawMessage) []string {
		out := make([]string, len(raws))
		for i, r := range raws {
			var v any
			if err := json.Unmarshal(r, &v); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
		return out
	}
	for _, l := range []struct {
		name      string
		want, got []json.RawMessage
	}{{"pipelines", want.Pipelines, got.Pipelines}, {"edges", want.Edges, got.Edges}, {"findings", want.Findings, got.Findings}} {
		if d := cmp.Diff(compact(l.want), compact(l.got)); d != "" {
			t.Errorf("%s: the pages differ from the whole (-whole +pages):\n%.2000s", l.name, d)
		}
	}
	if d := cmp.Diff(want.Tiers, got.Tiers); d != "" || got.Revision != want.Revision {
		t.Errorf("tiers or revision differ (-whole +pages):\n%s", d)
	}

	ui := do(t, h, "GET", "/ui/graph", nil)
	if ui.status != 200 || !bytes.Contains(ui.body, []byte("120 pipelines and 142,800 edges are too many to draw at once")) || bytes.Contains(ui.body, []byte("<svg class=\"graph\"")) {
		t.Errorf("/ui/graph: %d, %d bytes:\n%.2000s", ui.status, len(ui.body), ui.body)
	}
	if len(ui.body) > 256<<10 {
		t.Errorf("/ui/graph is %d KB", len(ui.body)>>10)
	}
}

// TestGraphFocus: GET /graph?focus= is one pipeline's neighbourhood of the
// real tree, in the whole graph's tiers; its parameters are refused when
// they cannot mean anything.
func TestGraphFocus(t *testing.T) {
	h := realServer(t)
	type body struct {
		Focus struct {
			Pipeline   string
			Depth      int
			Upstream   []reached
			Downstream []reached
		}
		Pipelines []struct{ Name string }
		Edges     []graphEdge
		Tiers     [][]string
		Findings  []json.RawMessage
	}
	for _, c := range []struct {
		query      string
		pipelines  []string
		tiers      [][]string
		upstream   []reached
		downstream []reached
		edges      int
	}{
		{"focus=weather", []string{"mt", "weather"}, [][]string{{"mt"}, {"weather"}}, []reached{{"mt", 1}}, []reached{}, 4},
		{"focus=mt&depth=1", []string{"grid", "mt", "weather"}, [][]string{{"mt"}, {"grid", "weather"}}, []reached{}, []reached{{"grid", 1}, {"weather", 1}}, 5},
		{"focus=pv_estimation&depth=2&overlays=true", []string{"overture", "pv_detection", "pv_estimation", "rec_it", "rec_metering", "rec_registry", "trentino_rooftops"},
			[][]string{{"overture", "rec_metering", "rec_registry"}, {"pv_detection", "rec_it", "trentino_rooftops"}, {"pv_estimation"}},
			[]reached{{"overture", 1}, {"pv_detection", 1}, {"rec_it", 1}, {"trentino_rooftops", 1}, {"rec_metering", 2}, {"rec_registry", 2}}, []reached{}, 8},
	} {
		r := do(t, h, "GET", "/graph?"+c.query, nil)
		holdsToOpenAPI(t, "/graph", "get", r)
		var b body
		if r.status != 200 || json.Unmarshal(r.body, &b) != nil {
			t.Fatalf("%s: %d %s", c.query, r.status, r.body)
		}
		var names []string
		for _, p := range b.Pipelines {
			names = append(names, p.Name)
		}
		slices.Sort(names)
		if diff := cmp.Diff(c.pipelines, names); diff != "" {
			t.Errorf("%s: pipelines (-want +got):\n%s", c.query, diff)
		}
		if diff := cmp.Diff(c.tiers, b.Tiers); diff != "" {
			t.Errorf("%s: tiers (-want +got):\n%s", c.query, diff)
		}
		if diff := cmp.Diff(c.upstream, b.Focus.Upstream); diff != "" {
			t.Errorf("%s: upstream (-want +got):\n%s", c.query, diff)
		}
		if diff := cmp.Diff(c.downstream, b.Focus.Downstream); diff != "" {
			t.Errorf("%s: downstream (-want +got):\n%s", c.query, diff)
		}
		if len(b.Edges) != c.edges {
			t.Errorf("%s: %d edges, want %d", c.query, len(b.Edges), c.edges)
		}
	}
	for query, want := range map[string]int{
		"focus=nothing":              404,
		"focus=weather&depth=4":      400,
		"focus=weather&depth=0":      400,
		"depth=1":                    400,
		"focus=weather&limit=10":     400,
		"focus=weather&format=tree":  400,
		"focus=weather&depth=banana": 400,
	} {
		r := do(t, h, "GET", "/graph?"+query, nil)
		holdsToOpenAPI(t, "/graph", "get", r)
		if r.status != want {
			t.Errorf("%s: %d, want %d: %s", query, r.status, want, r.body)
		}
	}
}

// TestGraphFocusIsBounded: in a graph where every pipeline reads every
// other, one pipeline's neighbourhood is the whole graph: over
// --max-graph-bytes it is refused, sized without being copied.
func TestGraphFocusIsBounded(t *testing.T) {
	store := wideGraphStore(t, 120, 10) // 142 800 edges
	h, _ := newServer(Deps{Store: store, Limits: Limits{MaxGraphBytes: 1 << 20}})
	var r response
	peak := testmem.PeakHeap(func() { r = do(t, h, "GET", "/graph?focus=app007", nil) })
	holdsToOpenAPI(t, "/graph", "get", r)
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(problemOf(t, r)["detail"].(string), "120 pipelines, 142800 edges") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if peak > 8<<20 {
		t.Errorf("refusing the neighbourhood took %d MB", peak>>20)
	}
}

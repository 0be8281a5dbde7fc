package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

func decodeBody(t *testing.T, r response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// getObject GETs target and returns the answer and its body, failing the
// test unless the status is status and the body a JSON object.
func getObject(t *testing.T, h http.Handler, target string, status int) (response, map[string]any) {
	t.Helper()
	r := do(t, h, "GET", target, nil)
	if r.status != status {
		t.Fatalf("status %d, want %d\n%s", r.status, status, r.body)
	}
	return r, decodeBody(t, r)
}

// wantProblemType fails the test unless the answer r, whose body is body,
// is an application/problem+json of the problem type kind.
func wantProblemType(t *testing.T, r response, body map[string]any, kind string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	if typ, _ := body["type"].(string); !strings.HasSuffix(typ, "#problem-"+kind) {
		t.Errorf("type %q, want …#problem-%s", typ, kind)
	}
}

func TestRuleResolution(t *testing.T) {
	h, store := testServer(t)
	rev := store.Current().Revision
	tests := []struct {
		name    string
		target  string
		status  int
		app     string
		match   map[string]any
		apps    []any
		problem string
	}{
		{name: "exact", target: "/datasets/datasets.gold.meters/rule", status: 200, app: "meters",
			match: map[string]any{"kind": "exact", "pattern": "datasets.gold.meters"}},
		{name: "glob", target: "/datasets/datasets.gold.weather_wind/rule", status: 200, app: "weather",
			match: map[string]any{"kind": "glob", "pattern": "datasets.gold.weather_*"}},
		{name: "longest glob across apps", target: "/datasets/datasets.gold.other/rule", status: 200, app: "meters",
			match: map[string]any{"kind": "glob", "pattern": "datasets.gold.*"}},
		{name: "glob key by its own name, percent-encoded", target: "/datasets/datasets.gold.weather_%2A/rule", status: 200, app: "weather",
			match: map[string]any{"kind": "exact", "pattern": "datasets.gold.weather_*"}},
		{name: "declared twice", target: "/datasets/datasets.gold.shared/rule", status: 409,
			apps: []any{"meters", "twin"}, problem: "ambiguous-dataset"},
		{name: "glob tie", target: "/datasets/datasets.silver.x/rule", status: 409,
			apps: []any{"twin", "weather"}, problem: "ambiguous-dataset"},
		{name: "nothing", target: "/datasets/nothing.at.all/rule", status: 404, problem: "dataset-not-found"},
		{name: "app query falls back to defaults", target: "/datasets/nothing.at.all/rule?app=twin", status: 200, app: "twin",
			match: map[string]any{"kind": "defaults"}},
		{name: "app query chooses", target: "/datasets/datasets.gold.shared/rule?app=twin", status: 200, app: "twin",
			match: map[string]any{"kind": "exact", "pattern": "datasets.gold.shared"}},
		{name: "per-app route", target: "/apps/weather/datasets/datasets.silver.x/rule", status: 200, app: "weather",
			match: map[string]any{"kind": "glob", "pattern": "datasets.silver.*"}},
		{name: "unknown app", target: "/apps/nope/datasets/x/rule", status: 404, problem: "app-not-found"},
		{name: "bad explain", target: "/datasets/datasets.gold.meters/rule?explain=maybe", status: 400, problem: "bad-request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, body := getObject(t, h, tt.target, tt.status)
			if tt.problem != "" {
				wantProblemType(t, r, body, tt.problem)
				if tt.apps != nil {
					if diff := cmp.Diff(tt.apps, body["apps"]); diff != "" {
						t.Errorf("apps (-want +got):\n%s", diff)
					}
				}
				// A lookup's problem is about the tree, so it names the revision;
				// a malformed request is refused before the tree is asked.
				if tt.status != 400 && (body["revision"] != rev || r.header.Get(revisionHeader) != rev) {
					t.Errorf("problem revision %v / header %q, want %s", body["revision"], r.header.Get(revisionHeader), rev)
				}
				return
			}
			if body["revision"] != rev || r.header.Get(revisionHeader) != rev {
				t.Errorf("revision %v / header %q, want %s", body["revision"], r.header.Get(revisionHeader), rev)
			}
			if body["app"] != tt.app {
				t.Errorf("app %v, want %s", body["app"], tt.app)
			}
			if diff := cmp.Diff(tt.match, body["match"]); diff != "" {
				t.Errorf("match (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleBodyAndExplain(t *testing.T) {
	h, _ := testServer(t)
	_, body := getObject(t, h, "/datasets/datasets.gold.meters/rule?explain=true", 200)
	rule := body["rule"].(map[string]any)
	// The overlay narrows the access level; the owner name is resolved through
	// the registry's alias.
	if rule["access_level"] != "restricted" {
		t.Errorf("access_level %v, want the overlay's restricted", rule["access_level"])
	}
	if diff := cmp.Diff([]any{map[string]any{"name": "example-rec", "type": "DATA_OWNER"}}, rule["ownership"]); diff != "" {
		t.Errorf("ownership (-want +got):\n%s", diff)
	}
	prov := body["provenance"].(map[string]any)
	for path, layer := range map[string]string{
		"access_level":        governance.LayerOverlaySource,
		"classification":      governance.LayerOverlayDefaults,
		"title":               governance.LayerSource,
		"ownership":           governance.LayerDefaults,
		"dcat.temporal.start": governance.LayerSource,
		"dataspace.expose":    governance.LayerOverlaySource,
	} {
		p, ok := prov[path].(map[string]any)
		if !ok {
			t.Errorf("no provenance for %s", path)
			continue
		}
		if p["layer"] != layer {
			t.Errorf("%s from %v, want %s", path, p["layer"], layer)
		}
	}
}

func TestConditionalGet(t *testing.T) {
	h, _ := testServer(t)
	first := do(t, h, "GET", "/apps", nil)
	etag := first.header.Get("ETag")
	if first.status != 200 || etag == "" {
		t.Fatalf("status %d, ETag %q", first.status, etag)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if r := do(t, h, "GET", "/apps", nil, "If-None-Match", inm); r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("If-None-Match %s: status %d, %d bytes; want 304 and no body", inm, r.status, len(r.body))
		}
	}
	if r := do(t, h, "GET", "/apps", nil, "If-None-Match", `"stale"`); r.status != 200 {
		t.Errorf("stale ETag: status %d, want 200", r.status)
	}
}

func TestDatasetListing(t *testing.T) {
	h, store := testServer(t)
	all := store.Current().Counts.Sources
	ids := func(r response) []string {
		var out []string
		for _, it := range decodeBody(t, r)["items"].([]any) {
			m := it.(map[string]any)
			out = append(out, m["app"].(string)+"/"+m["id"].(string))
		}
		return out
	}
	full := ids(do(t, h, "GET", "/datasets", nil))
	if len(full) != all {
		t.Fatalf("%d items, want %d", len(full), all)
	}
	// Paging with limit 2 walks the same list.
	var paged []string
	target := "/datasets?limit=2"
	for range all {
		r := do(t, h, "GET", target, nil)
		if r.status != 200 {
			t.Fatalf("%s: status %d\n%s", target, r.status, r.body)
		}
		paged = append(paged, ids(r)...)
		next, _ := decodeBody(t, r)["next"].(string)
		if next == "" {
			break
		}
		target = "/datasets?limit=2&cursor=" + next
	}
	if diff := cmp.Diff(full, paged); diff != "" {
		t.Errorf("paged listing differs (-full +paged):\n%s", diff)
	}

	filters := []struct {
		query string
		want  []string
	}{
		{"app=weather", []string{"weather/datasets.gold.weather_*", "weather/datasets.silver.*"}},
		{"app=weather&expose=true", []string{"weather/datasets.gold.weather_*"}},
		{"dataspace_expose=true", []string{"meters/datasets.gold.offer"}},
		{"tag=gold", []string{"weather/datasets.gold.weather_*"}},
		{"access_level=RESTRICTED", []string{"meters/datasets.gold.meters"}},
		{"classification=green&app=meters&expose=false", nil},
		{"conflict=true", nil},
	}
	for _, f := range filters {
		r := do(t, h, "GET", "/datasets?"+f.query, nil)
		if diff := cmp.Diff(f.want, ids(r)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.query, diff)
		}
	}
	for _, bad := range []string{"limit=0", "limit=x", "expose=perhaps", "cursor=%21%21"} {
		if r := do(t, h, "GET", "/datasets?"+bad, nil); r.status != 400 {
			t.Errorf("%s: status %d, want 400", bad, r.status)
		}
	}
}

func TestOwners(t *testing.T) {
	h, _ := testServer(t)
	tests := []struct {
		target string
		status int
		check  func(t *testing.T, body map[string]any)
	}{
		{"/owners", 200, func(t *testing.T, b map[string]any) {
			if n := len(b["items"].([]any)); n != 2 {
				t.Errorf("%d owners, want 2", n)
			}
		}},
		{"/owners?uri=did:web:rec.example", 200, func(t *testing.T, b map[string]any) {
			items := b["items"].([]any)
			if len(items) != 1 || items[0].(map[string]any)["id"] != "example-rec" {
				t.Errorf("items %v, want example-rec", items)
			}
		}},
		{"/owners?uri=https://nobody.example", 200, func(t *testing.T, b map[string]any) {
			if n := len(b["items"].([]any)); n != 0 {
				t.Errorf("%d owners, want none", n)
			}
		}},
		{"/owners/rec", 200, func(t *testing.T, b map[string]any) {
			if b["id"] != "example-rec" || b["canonical_uri"] != "did:web:rec.example" {
				t.Errorf("got %v", b)
			}
		}},
		{"/owners/open-data", 200, func(t *testing.T, b map[string]any) {
			if b["canonical_uri"] != "https://open.example" {
				t.Errorf("canonical_uri %v, want the URL", b["canonical_uri"])
			}
		}},
		{"/owners/nobody", 404, nil},
	}
	for _, tt := range tests {
		r := do(t, h, "GET", tt.target, nil)
		if r.status != tt.status {
			t.Errorf("%s: status %d, want %d\n%s", tt.target, r.status, tt.status, r.body)
			continue
		}
		if tt.check != nil {
			tt.check(t, decodeBody(t, r))
		}
	}
}

// resolveOwners is an owners registry as a POST /resolve member.
const resolveOwners = `"owners: [{id: acme, type: schema:Organization, name: Acme, url: https://acme.example}]"`

func TestStatelessOperations(t *testing.T) {
	h, _ := testServer(t)
	tests := []struct {
		name   string
		target string
		body   string
		status int
		want   string // a JSON member path=value check, as "key" → value
		key    string
	}{
		{name: "resolve YAML text", target: "/resolve", status: 200, key: "match",
			body: `{"document": "defaults: {access_level: open}\nsources:\n  ds.*: {expose: true}\n", "dataset": "ds.x"}`,
			want: `{"kind":"glob","pattern":"ds.*"}`},
		{name: "resolve JSON document with overlay", target: "/resolve", status: 200, key: "rule",
			body: `{"document": {"defaults": {"access_level": "open"}, "sources": {"ds.x": {"expose": true}}}, "overlay": {"sources": {"ds.x": {"expose": false}}}, "dataset": "ds.x"}`,
			want: `{"expose":false,"access_level":"open"}`},
		{name: "resolve defaults", target: "/resolve", status: 200, key: "match",
			body: `{"document": "defaults: {}", "dataset": "nothing"}`, want: `{"kind":"defaults"}`},
		{name: "resolve without dataset", target: "/resolve", status: 400, body: `{"document": "defaults: {}"}`},
		{name: "resolve unknown member", target: "/resolve", status: 400, body: `{"document": "defaults: {}", "dataset": "x", "overlai": {}}`},
		{name: "resolve invalid document", target: "/resolve", status: 422, body: `{"document": "sources:\n  ds.x: {retention_days: forever}\n", "dataset": "ds.x"}`},
		{name: "resolve broken YAML", target: "/resolve", status: 422, body: `{"document": "sources: {", "dataset": "ds.x"}`},
		{name: "resolve not JSON", target: "/resolve", status: 400, body: `{`},
		// The placeholder map is read as the tree check reads a
		// --placeholders file: a bad entry is named where it stands.
		{name: "resolve placeholders, YAML, an entry not a string", target: "/resolve", status: 422, key: "line", want: `2`,
			body: `{"document": "defaults: {}", "dataset": "x", "owners": ` + resolveOwners + `, "placeholders": "op: acme\nx: [1]\n"}`},
		{name: "resolve placeholders, JSON, an entry not a string", target: "/resolve", status: 422, key: "path", want: `"op"`,
			body: `{"document": "defaults: {}", "dataset": "x", "owners": ` + resolveOwners + `, "placeholders": {"op": 1}}`},
		{name: "resolve placeholders not a mapping", target: "/resolve", status: 422, key: "file", want: `"placeholders"`,
			body: `{"document": "defaults: {}", "dataset": "x", "owners": ` + resolveOwners + `, "placeholders": "[op, acme]"}`},
		{name: "merge", target: "/merge", status: 200, key: "rule",
			body: `{"base": {"tags": ["b", "a"], "expose": true}, "override": "tags: [c]\nexpose: null\n"}`,
			want: `{"expose":null,"tags":["a","b","c"]}`},
		{name: "merge missing override", target: "/merge", status: 400, body: `{"base": {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", tt.target, strings.NewReader(tt.body), "Content-Type", "application/json")
			if r.status != tt.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tt.status, r.body)
			}
			if tt.key == "" {
				return
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if string(got[tt.key]) != tt.want {
				t.Errorf("%s = %s, want %s", tt.key, got[tt.key], tt.want)
			}
		})
	}
	if r := do(t, h, "POST", "/resolve", strings.NewReader(`{}`), "Content-Type", "text/plain"); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body: status %d, want 415", r.status)
	}
}

func TestBodyLimit(t *testing.T) {
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testTree}}})
	store.Reload(context.Background(), true)
	h, _ := newServer(Deps{Store: store, Limits: Limits{MaxBodyBytes: 64}})
	big := `{"document": "` + strings.Repeat("#", 200) + `", "dataset": "x"}`
	if r := do(t, h, "POST", "/resolve", strings.NewReader(big), "Content-Type", "application/json"); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413\n%s", r.status, r.body)
	}
}

func TestNotReady(t *testing.T) {
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testTree}}})
	h, _ := newServer(Deps{Store: store})
	for _, p := range []string{"/readyz", "/apps", "/datasets/x/rule", "/report", "/graph", "/graph/pipelines/x", "/datasets/x/producers", "/datasets/x/consumers"} {
		if r := do(t, h, "GET", p, nil); r.status != http.StatusServiceUnavailable {
			t.Errorf("%s before the first load: status %d, want 503", p, r.status)
		}
	}
	if r := do(t, h, "GET", "/healthz", nil); r.status != 200 {
		t.Errorf("/healthz: status %d, want 200", r.status)
	}
}

// TestRootLeadsToThePage: the service's own address, what a person types
// into a browser, leads to the web page's overview, before the first load
// too (the page then says why nothing is served); only GET and HEAD.
func TestRootLeadsToThePage(t *testing.T) {
	ready, _ := testServer(t)
	notReady, _ := newServer(Deps{Store: snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testTree}}})})
	for _, c := range []struct {
		name     string
		h        http.Handler
		method   string
		target   string
		status   int
		location string
	}{
		{"get", ready, "GET", "/", http.StatusFound, "/ui/"},
		{"head", ready, "HEAD", "/", http.StatusFound, "/ui/"},
		{"before the first load", notReady, "GET", "/", http.StatusFound, "/ui/"},
		{"a query it does not read", ready, "GET", "/?x=1", http.StatusBadRequest, ""},
		{"a huge query", ready, "GET", "/?" + strings.Repeat("x=1&", 250_000), http.StatusBadRequest, ""},
		{"a long path below it", ready, "GET", "/" + strings.Repeat("a/", 50_000), http.StatusNotFound, ""},
		{"post", ready, "POST", "/", http.StatusMethodNotAllowed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.h, c.method, c.target, nil)
			if r.status != c.status || r.header.Get("Location") != c.location {
				t.Errorf("%s %s: status %d, Location %q; want %d, %q", c.method, c.target, r.status, r.header.Get("Location"), c.status, c.location)
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	h, _ := testServer(t)
	r := do(t, h, "POST", "/apps", nil)
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET" {
		t.Errorf("status %d, Allow %q; want 405 and GET", r.status, r.header.Get("Allow"))
	}
}

func TestMetricsExposeRoutesAndTree(t *testing.T) {
	h, _ := testServer(t)
	for range 3 {
		do(t, h, "GET", "/datasets/datasets.gold.meters/rule", nil)
	}
	do(t, h, "GET", "/datasets/no.such.dataset/rule", nil)
	do(t, h, "HEAD", "/datasets/datasets.gold.meters/rule", nil)
	do(t, h, "GET", "/no/such/route", nil)
	// A method is the client's to choose; each one must not become a series.
	do(t, h, "BREW", "/apps", nil)
	do(t, h, "PROPFIND", "/apps", nil)
	r := do(t, h, "GET", "/metrics", nil)
	for _, want := range []string{
		`governanced_http_requests_total{code="200",method="GET",route="/datasets/{id}/rule"} 3`,
		`governanced_http_requests_total{code="404",method="GET",route="/datasets/{id}/rule"} 1`,
		`governanced_http_requests_total{code="200",method="HEAD",route="/datasets/{id}/rule"} 1`,
		`governanced_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`governanced_http_requests_total{code="405",method="other",route="unmatched"} 2`,
		`governanced_http_request_duration_seconds_count{method="GET",route="/datasets/{id}/rule"} 4`,
		`governanced_reloads_total{result="ok"} 1`,
		`governanced_apps 3`,
		`governanced_owners 2`,
		`governanced_revision_info{revision="sha256:`,
		`governanced_snapshot_age_seconds`,
		`governanced_last_reload_success_timestamp_seconds`,
	} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestRequestID: every response carries an id, the caller's when it is a
// sane token, and the same id is in the problem body and the request's log
// line, and the log line names the route chi matched.
// TestPanicIsAProblem: a handler that panics answers 500 with a problem
// naming the request, logs the panic at error, and is counted; the server
// goes on serving.
func TestPanicIsAProblem(t *testing.T) {
	_, st := testServer(t)
	var logs syncLog
	h, srv := newServer(Deps{Store: st, Log: logs.logger()})
	srv.mux.Get("/test/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	r := do(t, h, "GET", "/test/panic", nil, "X-Request-Id", "panic-1")
	var body struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || r.status != http.StatusInternalServerError {
		t.Fatalf("%d %s (%v)", r.status, r.body, err)
	}
	if !strings.HasSuffix(body.Type, "#problem-internal") || body.RequestID != "panic-1" {
		t.Errorf("problem %+v, want type internal and request id panic-1", body)
	}
	for _, want := range []string{`"level":"error"`, `"panic":"boom"`, `"message":"handler panicked"`, `"request_id":"panic-1"`, `"status":500`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	if r := do(t, h, "GET", "/datasets/datasets.gold.meters/rule", nil); r.status != http.StatusOK {
		t.Errorf("after the panic: %d", r.status)
	}
	m := do(t, h, "GET", "/metrics", nil)
	if want := `governanced_http_requests_total{code="500",method="GET",route="/test/panic"} 1`; !strings.Contains(string(m.body), want) {
		t.Errorf("metrics lack %s", want)
	}
}

// TestAbortHandlerPanics: http.ErrAbortHandler is how a handler asks the
// server to drop the connection; it must reach net/http, not become a 500.
func TestAbortHandlerPanics(t *testing.T) {
	_, srv := newServer(Deps{Store: snapshot.NewStore(&snapshot.Loader{})})
	srv.mux.Get("/test/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/test/abort", nil))
}

// TestRequestLogLevel: one line a request, at a level an operator can alert
// on: probes, a not-yet-ready answer and the routine reads of one dataset at
// debug, a read that finds nothing at info, a server failure at error.
func TestRequestLogLevel(t *testing.T) {
	_, loaded := testServer(t)
	unloaded := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testTree}}})
	cases := []struct {
		name   string
		store  *snapshot.Store
		target string
		status int
		level  string
	}{
		{"liveness", loaded, "/healthz", 200, "debug"},
		{"ready", loaded, "/readyz", 200, "debug"},
		{"not ready yet", unloaded, "/readyz", 503, "debug"},
		{"metrics", loaded, "/metrics", 200, "debug"},
		{"a rule", loaded, "/datasets/datasets.gold.meters/rule", 200, "debug"},
		{"an exposure", loaded, "/datasets/datasets.gold.meters/exposure", 200, "debug"},
		{"a facet", loaded, "/datasets/datasets.gold.meters/facet", 200, "debug"},
		{"a rule read with HEAD", loaded, "HEAD /datasets/datasets.gold.meters/rule", 200, "debug"},
		{"no such dataset", loaded, "/datasets/no.such.dataset/rule", 404, "info"},
		{"a bad query on a rule", loaded, "/datasets/datasets.gold.meters/rule?explain=maybe", 400, "info"},
		{"the list of datasets", loaded, "/datasets", 200, "info"},
		{"the tree before it is loaded", unloaded, "/apps", 503, "error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncLog
			h, _ := newServer(Deps{Store: tc.store, Log: logs.logger()})
			method, target, found := strings.Cut(tc.target, " ")
			if !found {
				method, target = "GET", tc.target
			}
			r := do(t, h, method, target, nil)
			var line struct {
				Level  string `json:"level"`
				Status int    `json:"status"`
			}
			if err := json.Unmarshal([]byte(logs.String()), &line); err != nil {
				t.Fatalf("log line: %v: %s", err, logs.String())
			}
			if diff := cmp.Diff([]any{tc.status, tc.status, tc.level}, []any{r.status, line.Status, line.Level}); diff != "" {
				t.Errorf("GET %s: status, logged status, level (-want +got):\n%s", tc.target, diff)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	_, st := testServer(t)
	var logs syncLog
	h, _ := newServer(Deps{Store: st, Log: logs.logger()})
	fresh := regexp.MustCompile(`^[0-9a-f]{24}$`)
	cases := []struct {
		name, given string
		keep        bool
	}{
		{"none given", "", false},
		{"a sane one", "edge-7f3a.b_2", true},
		{"one with a space", "two words", false},
		{"one too long", strings.Repeat("a", 129), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var header []string
			if tc.given != "" {
				header = []string{"X-Request-Id", tc.given}
			}
			before := len(logs.String())
			r := do(t, h, "GET", "/datasets/no.such.dataset/rule", nil, header...)
			id := r.header.Get("X-Request-Id")
			if tc.keep && id != tc.given || !tc.keep && !fresh.MatchString(id) {
				t.Fatalf("X-Request-Id %q for %q given", id, tc.given)
			}
			var body struct {
				RequestID string `json:"request_id"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil || r.status != http.StatusNotFound {
				t.Fatalf("%d %s (%v)", r.status, r.body, err)
			}
			var line struct {
				RequestID string `json:"request_id"`
				Route     string `json:"route"`
			}
			if err := json.Unmarshal([]byte(logs.String()[before:]), &line); err != nil {
				t.Fatalf("log line: %v: %s", err, logs.String()[before:])
			}
			if diff := cmp.Diff([]string{id, id, "/datasets/{id}/rule"}, []string{body.RequestID, line.RequestID, line.Route}); diff != "" {
				t.Errorf("header, problem, log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentLength holds every answer to a whole-body length over a real
// connection: write leaves Content-Length to net/http for a body that fits
// its chunking buffer and sets it for a larger one, compress sets it for a
// compressed body, and either way a client must get the length, never a
// chunked body.
func TestContentLength(t *testing.T) {
	h, _ := testServer(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	tests := []struct {
		method, target string
		status         int
		large          bool // over net/http's chunking buffer as sent uncompressed
	}{
		{"GET", "/apps/weather/datasets/datasets.silver.x/rule", 200, false},
		{"HEAD", "/apps/weather/datasets/datasets.silver.x/rule", 200, false},
		{"GET", "/datasets/nope/rule", 404, false},
		{"GET", "/openapi.yaml", 200, true},
		{"HEAD", "/openapi.yaml", 200, true},
	}
	for _, tt := range tests {
		for _, enc := range []string{"identity", "gzip"} {
			t.Run(tt.method+" "+tt.target+" "+enc, func(t *testing.T) {
				req, err := http.NewRequest(tt.method, srv.URL+tt.target, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Named, so that the client hands the body over as sent.
				req.Header.Set("Accept-Encoding", enc)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
				}
				if len(resp.TransferEncoding) > 0 || resp.ContentLength < 0 {
					t.Fatalf("framed %v with length %d, want a Content-Length", resp.TransferEncoding, resp.ContentLength)
				}
				if tt.method == "GET" && resp.ContentLength != int64(len(body)) {
					t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, len(body))
				}
				gzipped := resp.Header.Get("Content-Encoding") == "gzip"
				if gzipped != (enc == "gzip" && tt.large && tt.method == "GET") {
					t.Errorf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
				}
				if large := resp.ContentLength > netHTTPChunkingBuffer; !gzipped && large != tt.large {
					t.Errorf("Content-Length %d: over the chunking buffer %v, want %v (the case no longer tests what it says)", resp.ContentLength, large, tt.large)
				}
			})
		}
	}
}

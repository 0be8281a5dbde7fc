package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/client"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
)

// served is governanced's own handler over a store, behind an httptest
// server that records what reaches it.
type served struct {
	*httptest.Server
	store   *snapshot.Store
	streams context.CancelFunc // ends the event streams, as a shutdown does

	mu   sync.Mutex
	seen []request
}

// request is one request as the server saw it and answered it.
type request struct {
	path, ifNoneMatch string
	status            int
}

func serve(t *testing.T, in snapshot.Inputs, tokens ...string) *served {
	t.Helper()
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: in})
	streams, cancel := context.WithCancel(context.Background())
	h := api.NewServer(api.Deps{Store: store, Streams: streams, Tokens: api.NewTokens(tokens)})
	s := &served{store: store, streams: cancel}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		s.mu.Lock()
		s.seen = append(s.seen, request{r.URL.Path, r.Header.Get("If-None-Match"), rec.status})
		s.mu.Unlock()
	}))
	t.Cleanup(func() {
		cancel()
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

// requests are what reached the server for path, in order.
func (s *served) requests(path string) []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []request
	for _, r := range s.seen {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() { r.ResponseWriter.(http.Flusher).Flush() }

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// realTree is the 17 CELINE pipelines with dataset-api's owners registry.
func realTree(t *testing.T) snapshot.Inputs {
	ref := testcorpus.Path(t, "reference")
	return snapshot.Inputs{
		Trees:  []string{filepath.Join(ref, "celine-pipelines")},
		Owners: []string{filepath.Join(ref, "dataset-api", "owners.yaml")},
	}
}

// getJSON is the server's own answer, read without the client.
func getJSON(t *testing.T, target string) (int, any) {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return resp.StatusCode, v
}

// withoutNulls drops the members whose value is null: the client carries an
// explicit null as nil, as the library carries it as None.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if x != nil {
				out[k] = withoutNulls(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutNulls(x)
		}
		return out
	}
	return v
}

// asJSON is v marshalled and read back generically.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAnswersAreTheServers: for every dataset of the real tree, the
// client's rule, exposure and facet carry everything the server answers:
// marshalled again they are the server's bodies.
func TestAnswersAreTheServers(t *testing.T) {
	s := serve(t, realTree(t))
	c, err := client.New(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	items, err := c.Datasets(ctx, client.DatasetFilter{})
	if err != nil {
		t.Fatal(err)
	}
	testcorpus.AtLeast(t, "datasets of the real tree", len(items), 174)
	for _, it := range items {
		var opts []client.ReadOption
		q := ""
		if status, _ := getJSON(t, s.URL+"/datasets/"+escape(it.ID)+"/rule"); status == http.StatusConflict {
			opts, q = []client.ReadOption{client.InApp(it.App)}, "?app="+it.App
		}
		rule, err := c.Rule(ctx, it.ID, opts...)
		if err != nil {
			t.Fatalf("%s: %v", it.ID, err)
		}
		exp, err := c.Exposure(ctx, it.ID, opts...)
		if err != nil {
			t.Fatal(err)
		}
		facet, err := c.Facet(ctx, it.ID, append(opts, client.Producer("https://example.org/job"))...)
		if err != nil {
			t.Fatal(err)
		}
		sep := "?"
		if q != "" {
			sep = "&"
		}
		for _, tt := range []struct {
			what, target string
			got          any
		}{
			{"rule", "/rule" + q, rule},
			{"exposure", "/exposure" + q, exp},
			{"facet", "/facet" + q + sep + "producer=" + url.QueryEscape("https://example.org/job"), facet},
		} {
			_, want := getJSON(t, s.URL+"/datasets/"+escape(it.ID)+tt.target)
			if diff := cmp.Diff(withoutNulls(want), withoutNulls(asJSON(t, tt.got))); diff != "" {
				t.Errorf("%s of %s (-server +client):\n%s", tt.what, it.ID, diff)
			}
		}
	}
	// A search: the items as GET /datasets?q= lists them, best first, each
	// saying how it was found.
	for _, q := range []string{"Wind Gust", "icon-d2", "Spindox"} {
		found, err := c.Datasets(ctx, client.DatasetFilter{Query: q})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(found) == 0 || found[0].Search == nil {
			t.Errorf("%s: %d datasets, the first %+v", q, len(found), found)
		}
		_, want := getJSON(t, s.URL+"/datasets?q="+url.QueryEscape(q))
		if diff := cmp.Diff(withoutNulls(want.(map[string]any)["items"]), withoutNulls(asJSON(t, found))); diff != "" {
			t.Errorf("q=%s (-server +client):\n%s", q, diff)
		}
	}
	owners, err := c.Owners(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range owners.Items {
		for _, uri := range []string{o.DID, o.URL} {
			if got, err := c.OwnerByURI(ctx, uri); uri != "" && (err != nil || got == nil || got.ID != o.ID) {
				t.Errorf("OwnerByURI(%s): %+v %v, want %s", uri, got, err, o.ID)
			}
		}
	}
	if got, err := c.OwnerByURI(ctx, "https://nobody.example"); got != nil || err != nil {
		t.Errorf("OwnerByURI of nobody: %+v %v", got, err)
	}
	for _, get := range []struct {
		path string
		do   func() (any, error)
	}{
		{"/owners", func() (any, error) { return c.Owners(ctx) }},
		{"/owners/rec", func() (any, error) { return c.Owner(ctx, "rec") }},
		{"/report", func() (any, error) { return c.Report(ctx) }},
		{"/graph", func() (any, error) { return c.Graph(ctx, false) }},
		{"/graph?overlays=true", func() (any, error) { return c.Graph(ctx, true) }},
		{"/graph?focus=weather&depth=2", func() (any, error) { return c.GraphFocus(ctx, "weather", 2, false) }},
	} {
		got, err := get.do()
		if err != nil {
			t.Fatalf("%s: %v", get.path, err)
		}
		_, want := getJSON(t, s.URL+get.path)
		if diff := cmp.Diff(withoutNulls(want), withoutNulls(asJSON(t, got))); diff != "" {
			t.Errorf("%s (-server +client):\n%s", get.path, diff)
		}
	}
}

func escape(id string) string { return strings.ReplaceAll(url.PathEscape(id), "*", "%2A") }

// editableTree is a one-app tree in a directory the test may edit.
func editableTree(t *testing.T) (snapshot.Inputs, string) {
	dir := testfs.Tree(t, map[string]string{
		"apps/meters/governance.yaml": "defaults: {access_level: internal}\nsources:\n  ds.gold.meters: {title: Meters, tags: [gold]}\n  ds.gold.*: {expose: true}\n",
	})
	return snapshot.Inputs{Trees: []string{dir}}, dir
}

// waitFor waits for c's watch to reach a state; the deadline only guards
// against a hang, it asserts nothing about timing.
func waitFor(t *testing.T, c *client.Client, what string, cond func(revision string, live bool) bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		changed := c.Changed()
		if cond(c.Revision()) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			rev, live := c.Revision()
			t.Fatalf("gave up waiting for %s (revision %s, live %v)", what, rev, live)
		}
	}
}

// TestCacheAndWatch: a second read asks with the ETag and gets a 304; once
// Watch follows the server, a read of the served revision needs no request;
// a reload to another revision makes the next read ask again and answer
// the new rule.
func TestCacheAndWatch(t *testing.T) {
	in, dir := editableTree(t)
	s := serve(t, in)
	c, _ := client.New(s.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const path = "/datasets/ds.gold.meters/rule"

	first, err := c.Rule(ctx, "ds.gold.meters")
	if err != nil || *first.Rule.Title != "Meters" {
		t.Fatalf("%+v %v", first, err)
	}
	if _, err := c.Rule(ctx, "ds.gold.meters"); err != nil {
		t.Fatal(err)
	}
	etag := `"` + strings.TrimPrefix(first.Revision, "sha256:") + `"`
	want := []request{{path, "", 200}, {path, etag, 304}}
	if diff := cmp.Diff(want, s.requests(path), cmp.AllowUnexported(request{})); diff != "" {
		t.Fatalf("without Watch (-want +got):\n%s", diff)
	}

	watched := make(chan error, 1)
	go func() { watched <- c.Watch(ctx) }()
	waitFor(t, c, "the stream", func(rev string, live bool) bool { return live && rev == first.Revision })
	for range 3 {
		if _, err := c.Rule(ctx, "ds.gold.meters"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.requests(path)); n != 2 {
		t.Errorf("%d requests for reads of the watched revision, want none beyond the first 2", n)
	}

	testfs.Replace(t, dir, "apps/meters/governance.yaml", "title: Meters", "title: Meters (15 min)")
	if st := s.store.Reload(ctx, false); st.Outcome != snapshot.Activated {
		t.Fatal(st.Err)
	}
	next := s.store.Current().Revision
	waitFor(t, c, "the reload", func(rev string, live bool) bool { return rev == next })
	got, err := c.Rule(ctx, "ds.gold.meters")
	if err != nil || *got.Rule.Title != "Meters (15 min)" || got.Revision != next {
		t.Fatalf("after the reload: %+v %v", got, err)
	}
	if last := s.requests(path)[2]; last.ifNoneMatch != etag || last.status != 200 {
		t.Errorf("the read after the reload: %+v, want a 200 to If-None-Match %s", last, etag)
	}
	cancel()
	if err := <-watched; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch returned %v, want context.Canceled", err)
	}
}

// TestStaleAnswers: when the server cannot be reached, an answer the client
// has is returned with a *StaleError naming its revision; one it never had
// is an error alone. A 503 is the same as no server.
func TestStaleAnswers(t *testing.T) {
	in, _ := editableTree(t)
	s := serve(t, in)
	c, _ := client.New(s.URL)
	ctx := context.Background()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.Watch(wctx)
	rule, err := c.Rule(ctx, "ds.gold.meters")
	if err != nil {
		t.Fatal(err)
	}
	items, err := c.Datasets(ctx, client.DatasetFilter{AccessLevel: "INTERNAL"})
	if err != nil || len(items) != 2 {
		t.Fatalf("%v %v", items, err)
	}
	waitFor(t, c, "the stream", func(rev string, live bool) bool { return live })

	// The server goes away: its streams end and it stops listening.
	s.streams()
	s.CloseClientConnections()
	s.Close()
	waitFor(t, c, "the stream to be lost", func(rev string, live bool) bool { return !live })

	got, err := c.Rule(ctx, "ds.gold.meters")
	var stale *client.StaleError
	if !errors.As(err, &stale) || stale.Revision != rule.Revision || got == nil || *got.Rule.Title != "Meters" {
		t.Fatalf("with the server gone: %+v, %v; want the cached rule and a StaleError of %s", got, err, rule.Revision)
	}
	if list, err := c.Datasets(ctx, client.DatasetFilter{AccessLevel: "INTERNAL"}); !errors.As(err, &stale) || len(list) != 2 {
		t.Errorf("the listing with the server gone: %v, %v", list, err)
	}
	if got, err := c.Rule(ctx, "ds.gold.never.asked"); got != nil || err == nil || errors.As(err, &stale) {
		t.Errorf("an answer never cached: %+v, %v; want no answer and a plain error", got, err)
	}

	// A server that answers 503 (a proxy before it, a restart before the
	// first load) is stale too.
	up := true
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"type":"about:blank","title":"Service Unavailable","status":503}`)
			return
		}
		w.Header().Set("ETag", `"abc"`)
		w.Header().Set("Governance-Revision", "sha256:abc")
		io.WriteString(w, `{"revision":"sha256:abc","dataset":"x","expose":true,"dataspace_expose":false,"conflict":null}`)
	}))
	defer proxy.Close()
	c2, _ := client.New(proxy.URL)
	if _, err := c2.Exposure(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	up = false
	exp, err := c2.Exposure(ctx, "x")
	var p *client.Problem
	if !errors.As(err, &stale) || !errors.As(err, &p) || p.Status != 503 || p.RetryAfter != time.Second || !exp.Expose {
		t.Errorf("a 503: %+v, %v", exp, err)
	}
}

// TestWatchReconnects: the server ending a stream (its longest duration)
// is not the end of the watch: it connects again after the stream's retry
// and follows the revisions each stream reports.
func TestWatchReconnects(t *testing.T) {
	var mu sync.Mutex
	connections := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		connections++
		n := connections
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: 10\n\n: keep-alive\n\nid: %d\nevent: reload\ndata: {\"seq\": %d, \"outcome\": \"activated\", \"ok\": true,\ndata: \"revision\": \"sha256:%d\", \"previous\": null}\n\n", n, n, n)
		// A rejected reload: the revision served stays the previous one.
		fmt.Fprintf(w, "event: reload\ndata: {\"seq\": %d, \"outcome\": \"rejected\", \"ok\": false, \"revision\": \"sha256:bad\", \"previous\": \"sha256:%d\"}\n\n", n, n)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Watch(ctx)
	waitFor(t, c, "the third stream", func(rev string, live bool) bool { return rev == "sha256:3" })
	waitFor(t, c, "a later stream", func(rev string, live bool) bool { return rev != "sha256:3" && rev != "sha256:bad" })

	// A stream the server refuses for good ends the watch with the problem.
	c2, _ := client.New(srv.URL + "/nowhere")
	err := c2.Watch(ctx)
	var p *client.Problem
	if !errors.As(err, &p) || p.Status != http.StatusNotFound {
		t.Errorf("Watch of a URL without events: %v", err)
	}
}

// TestProblems: the server's refusals are *Problem values with its members.
func TestProblems(t *testing.T) {
	s := serve(t, snapshot.Inputs{Trees: []string{filepath.Join(testcorpus.Root(t), "..", "api", "testdata", "tree")}})
	c, _ := client.New(s.URL)
	ctx := context.Background()
	_, err := c.Rule(ctx, "nothing.at.all")
	if !client.IsNotFound(err) {
		t.Errorf("an unknown dataset: %v", err)
	}
	_, err = c.Rule(ctx, "datasets.gold.shared")
	var p *client.Problem
	if !errors.As(err, &p) || p.Kind() != "ambiguous-dataset" || !cmp.Equal(p.Apps, []string{"meters", "twin"}) {
		t.Errorf("an ambiguous dataset: %+v", p)
	}
	if r, err := c.Rule(ctx, "datasets.gold.shared", client.InApp("twin")); err != nil || r.App != "twin" {
		t.Errorf("InApp: %+v %v", r, err)
	}
	if r, err := c.Rule(ctx, "datasets.gold.weather_*"); err != nil || r.Match.Kind != "exact" {
		t.Errorf("a glob key by its own name: %+v %v", r, err)
	}
	if _, err := c.Datasets(ctx, client.DatasetFilter{AccessLevel: "confidential"}); !errors.As(err, &p) || p.Status != 400 {
		t.Errorf("a level no rule can have: %v", err)
	}
	_, err = c.Resolve(ctx, client.ResolveRequest{
		Document: "defaults: {ownership: [{name: ghost, type: OWNER}]}\nsources: {}\n", Dataset: "x", Strict: true,
		Owners: []string{"owners: [{id: acme, type: schema:Organization, name: Acme, url: 'https://acme.example'}]"},
	})
	if !errors.As(err, &p) || p.Kind() != "unresolved-owners" || !cmp.Equal(p.Unresolved, []client.UnresolvedOwner{{Name: "ghost", Places: []string{"defaults"}}}) {
		t.Errorf("strict resolution: %+v", err)
	}
}

// TestOperations: POST /resolve and POST /validate of one document, with
// the bearer token a server with authentication requires.
func TestOperations(t *testing.T) {
	const token = "client-test-token-0123456789"
	s := serve(t, realTree(t), token)
	ctx := context.Background()
	anonymous, _ := client.New(s.URL)
	if _, err := anonymous.Validate(ctx, []byte("defaults: {}\nsources: {}\n"), client.ValidateOptions{}); err == nil {
		t.Fatal("POST without the token was accepted")
	}
	c, _ := client.New(s.URL, client.WithToken(token))
	rep, err := c.Validate(ctx, []byte("defaults: {}\nsources:\n  ds.a: {title: A, colour: blue}\n"), client.ValidateOptions{Strict: true})
	if err != nil || rep.OK || len(rep.Findings) == 0 || rep.Findings[0].Code != "unknown-key" {
		t.Errorf("Validate: %+v %v", rep, err)
	}
	res, err := c.Resolve(ctx, client.ResolveRequest{Document: "defaults: {access_level: internal}\nsources:\n  ds.gold.*: {expose: true}\n", Dataset: "ds.gold.x"})
	if err != nil || res.Match.Kind != "glob" || !res.Exposure.Expose || *res.Rule.AccessLevel != "internal" || res.IsEmpty {
		t.Errorf("Resolve: %+v %v", res, err)
	}
}

// TestImportsNothingOfGovernanced: the package is importable by any
// module: the standard library only, nothing internal.
func TestImportsNothingOfGovernanced(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/celine-eu/governanced/client").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if deps := strings.Fields(string(out)); !cmp.Equal(deps, []string{"github.com/celine-eu/governanced/client"}) {
		t.Errorf("the client depends on %v; it must need the standard library only", deps)
	}
}

// TestCacheBound: the cache keeps at most its entries, the least recently
// used dropped first, so the server gone, only the kept ones are answered.
func TestCacheBound(t *testing.T) {
	s := serve(t, snapshot.Inputs{Trees: []string{filepath.Join(testcorpus.Root(t), "..", "api", "testdata", "tree")}})
	c, _ := client.New(s.URL, client.WithCacheEntries(2))
	ctx := context.Background()
	for _, id := range []string{"datasets.gold.meters", "datasets.gold.offer", "datasets.gold.meters", "datasets.gold.weather_x"} {
		if _, err := c.Exposure(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	s.streams()
	s.CloseClientConnections()
	s.Close()
	var stale *client.StaleError
	for id, kept := range map[string]bool{"datasets.gold.meters": true, "datasets.gold.weather_x": true, "datasets.gold.offer": false} {
		exp, err := c.Exposure(ctx, id)
		if got := errors.As(err, &stale) && exp != nil; got != kept {
			t.Errorf("%s with the server gone: %+v %v; kept in the cache: %v, want %v", id, exp, err, got, kept)
		}
	}
}

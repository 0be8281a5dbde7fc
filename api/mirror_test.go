package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
)

// realStore serves the 17 reference apps with dataset-api's owners.
func realStore(t testing.TB) *snapshot.Store {
	t.Helper()
	ref := testcorpus.Path(t, "reference")
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{filepath.Join(ref, "celine-pipelines")},
		Owners: []string{filepath.Join(ref, "dataset-api", "owners.yaml")},
	}})
}

// ruleOf is the body GET /datasets/{id}/rule answers for an item: globally,
// or inside its app when several apps declare the key.
func ruleOf(t *testing.T, h http.Handler, id, app string) json.RawMessage {
	t.Helper()
	r := do(t, h, "GET", "/datasets/"+url.PathEscape(id)+"/rule", nil)
	if r.status == http.StatusConflict {
		r = do(t, h, "GET", "/datasets/"+url.PathEscape(id)+"/rule?app="+url.QueryEscape(app), nil)
	}
	if r.status != http.StatusOK {
		t.Fatalf("%s: %d %s", id, r.status, r.body)
	}
	return r.body
}

// TestBulkRead: every resolved rule of the real tree in one paged walk
// (?include=rule) and in one stream (NDJSON), each equal to the answer of
// GET /datasets/{id}/rule.
func TestBulkRead(t *testing.T) {
	h, _ := newServer(Deps{Store: realStore(t)})
	type item struct {
		ID   string          `json:"id"`
		App  string          `json:"app"`
		Rule json.RawMessage `json:"rule"`
	}
	var paged []item
	cursor := ""
	for pages := 0; ; pages++ {
		target := "/datasets?include=rule&limit=50"
		if cursor != "" {
			target += "&cursor=" + url.QueryEscape(cursor)
		}
		r := do(t, h, "GET", target, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", target, r.status, r.body)
		}
		var page struct {
			Items []item  `json:"items"`
			Next  *string `json:"next"`
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page.Items...)
		if page.Next == nil {
			break
		}
		cursor = *page.Next
	}
	if len(paged) != 174 {
		t.Fatalf("%d items, want the 174 sources of the real tree", len(paged))
	}
	for _, it := range paged {
		if diff := cmp.Diff(string(ruleOf(t, h, it.ID, it.App)), string(it.Rule)); diff != "" {
			t.Errorf("%s in %s: the listing's rule differs from GET /datasets/{id}/rule (-get +listing):\n%s", it.ID, it.App, diff)
		}
	}

	r := do(t, h, "GET", "/datasets?include=rule", nil, "Accept", "application/x-ndjson")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-ndjson" || r.header.Get("Etag") == "" || r.header.Get(revisionHeader) == "" {
		t.Fatalf("stream: %d %v", r.status, r.header)
	}
	var streamed []item
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		streamed = append(streamed, it)
	}
	if diff := cmp.Diff(paged, streamed, cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })); diff != "" {
		t.Errorf("the stream differs from the paged walk (-paged +stream):\n%s", diff)
	}
	// The filters apply to the stream too.
	r = do(t, h, "GET", "/datasets?app=grid", nil, "Accept", "application/x-ndjson")
	if lines := bytes.Count(r.body, []byte("\n")); lines == 0 || lines >= 174 || bytes.Contains(r.body, []byte(`"app":"mt"`)) {
		t.Errorf("a filtered stream: %d lines", lines)
	}
}

// TestBlockingRead: a request naming the served revision and ?wait is held
// until a reload serves another revision, then answered 200 with it; one
// whose wait ends with nothing new is answered 304; one naming another
// revision is answered at once.
func TestBlockingRead(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	h, srv := newServer(Deps{Store: store})
	first := do(t, h, "GET", "/datasets/ds.x/rule", nil)
	etag := first.header.Get("Etag")

	if r := do(t, h, "GET", "/datasets/ds.x/rule?wait=10ms", nil, "If-None-Match", etag); r.status != http.StatusNotModified {
		t.Fatalf("a wait with nothing new: %d, want 304", r.status)
	}
	if r := do(t, h, "GET", "/datasets/ds.x/rule?wait=30s", nil, "If-None-Match", `"another"`); r.status != http.StatusOK {
		t.Fatalf("a stale copy: %d, want 200 at once", r.status)
	}

	got := make(chan response, 1)
	go func() {
		req := httptest.NewRequest("GET", "/datasets/ds.x/rule?wait=60s", nil)
		req.Header.Set("If-None-Match", etag)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got <- response{rec.Code, rec.Header(), rec.Body.Bytes()}
	}()
	// The request holds a waiter slot while it waits, and gives it back
	// when it is answered: once it holds one it has not been answered.
	waitFor(t, "the request to wait", func() bool { return srv.waiters.inUse() == 1 || len(got) > 0 })
	select {
	case r := <-got:
		t.Fatalf("answered before anything changed: %d", r.status)
	default:
	}
	testfs.Replace(t, dir, "apps/a/governance.yaml", "expose: true", "expose: false")
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated {
		t.Fatal(st.Err)
	}
	select {
	case r := <-got:
		if r.status != http.StatusOK || r.header.Get("Etag") == etag || !strings.Contains(string(r.body), `"expose":false`) {
			t.Errorf("after the reload: %d %s %s", r.status, r.header.Get("Etag"), r.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting request was not released by the reload")
	}
}

// TestWaitersAreBounded: waiting requests past --max-waiters are refused
// with 429 at once.
func TestWaitersAreBounded(t *testing.T) {
	_, store := testServer(t)
	h, srv := newServer(Deps{Store: store, Limits: Limits{MaxWaiters: 1}})
	etag := store.Current().ETag()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan struct{})
	go func() {
		defer close(held)
		req := httptest.NewRequestWithContext(ctx, "GET", "/apps?wait=60s", nil)
		req.Header.Set("If-None-Match", etag)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	for srv.waiters.inUse() == 0 {
		time.Sleep(time.Millisecond)
	}
	if r := do(t, h, "GET", "/apps?wait=60s", nil, "If-None-Match", etag); r.status != http.StatusTooManyRequests {
		t.Errorf("a second waiter: %d, want 429", r.status)
	}
	cancel()
	<-held
}

// TestEvents: GET /events sends the last reload at once, then each reload
// as it ends.
func TestEvents(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	store.Reload(context.Background(), true)
	h, _ := newServer(Deps{Store: store})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp := openEvents(t, srv.URL)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := bufio.NewScanner(resp.Body)
	next := func() reloadEvent {
		t.Helper()
		var ev reloadEvent
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatal(err)
				}
				return ev
			}
		}
		t.Fatalf("the stream ended: %v", events.Err())
		return ev
	}
	if ev := next(); ev.Seq != 1 || ev.Outcome != "activated" || ev.Findings == nil {
		t.Errorf("first event %+v, want the start-up load", ev)
	}
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "sources: ["})
	store.Reload(context.Background(), false)
	if ev := next(); ev.Seq != 2 || ev.Outcome != "rejected" || ev.Findings == nil || ev.Findings.Errors == 0 || ev.Error == nil {
		t.Errorf("second event %+v, want the rejection with its findings", ev)
	}
}

// TestUnresolvedOwners: the names of the served tree that resolve to no
// owner, each with where it is written.
func TestUnresolvedOwners(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/a/governance.yaml": "defaults: {row_filters: [], ownership: [{name: ghost, type: DATA_OWNER}]}\nsources:\n  ds.x: {ownership: [{name: acme, type: DATA_OWNER}]}\n  ds.y: {ownership: [{name: ghost, type: DATA_OWNER}]}\n",
		"owners.yaml":            "owners:\n  - {id: acme, type: schema:Organization, name: Acme, url: https://acme.example}\n",
	})
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}})
	h, _ := newServer(Deps{Store: store})
	r := do(t, h, "GET", "/unresolved-owners", nil)
	var body struct {
		Items []snapshot.UnresolvedOwner `json:"items"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	file := "apps/a/governance.yaml" // from the tree's root, wherever it is mounted
	want := []snapshot.UnresolvedOwner{{Name: "ghost", Places: []snapshot.OwnerPlace{
		{App: "a", File: file, Where: "defaults"},
		{App: "a", File: file, Where: "sources/ds.y"},
	}}}
	if diff := cmp.Diff(want, body.Items); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestResolveWithOwners: POST /resolve resolves ownership names with the
// registries and placeholders sent, as the CLI does, and lists those that
// resolve to nothing.
func TestResolveWithOwners(t *testing.T) {
	h, _ := testServer(t)
	body := `{"document": "sources: {ds.x: {ownership: [{name: op, type: DATA_OWNER}, {name: ghost, type: DATA_OWNER}]}}", "dataset": "ds.x",
		"owners": ["owners: [{id: acme, type: schema:Organization, name: Acme, url: https://acme.example}]"], "placeholders": "op: acme\n"}`
	r := do(t, h, "POST", "/resolve", strings.NewReader(body), "Content-Type", "application/json")
	var got struct {
		Rule struct {
			Ownership []struct {
				Name string `json:"name"`
			} `json:"ownership"`
		} `json:"rule"`
		Unresolved []string `json:"unresolved_owners"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil || r.status != 200 {
		t.Fatalf("%d %s %v", r.status, r.body, err)
	}
	if len(got.Rule.Ownership) != 2 || got.Rule.Ownership[0].Name != "acme" || got.Rule.Ownership[1].Name != "ghost" {
		t.Errorf("ownership %+v, want op resolved to acme and ghost kept as written", got.Rule.Ownership)
	}
	if diff := cmp.Diff([]string{"ghost"}, got.Unresolved); diff != "" {
		t.Errorf("unresolved (-want +got):\n%s", diff)
	}
	r = do(t, h, "POST", "/resolve", strings.NewReader(`{"document": "sources: {}", "dataset": "x", "owners": "owners: [{id: 1}]"}`), "Content-Type", "application/json")
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("an invalid registry: %d %s", r.status, r.body)
	}
}

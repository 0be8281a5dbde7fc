package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/testctx"
	"github.com/celine-eu/governanced/internal/testmem"
)

// waitFor polls cond until it holds: the server's own state (a slot
// count, a log line) says when something has happened, never a sleep
// standing for it. Hanging is a failure.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// holdOperations holds every operation's work, once it has started, until
// its context ends and then until release is called. started receives each
// work's context.
func holdOperations(t *testing.T) (started <-chan context.Context, release func()) {
	return holdWorks(t, true)
}

// holdWorks is holdOperations; with untilDone false the work is held until
// release only.
func holdWorks(t *testing.T, untilDone bool) (started <-chan context.Context, release func()) {
	t.Helper()
	s := make(chan context.Context, 16)
	gate := make(chan struct{})
	var once sync.Once
	holdWork = func(ctx context.Context) {
		s <- ctx
		if untilDone {
			<-ctx.Done()
		}
		<-gate
	}
	rel := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		rel()
		holdWork = nil
	})
	return s, rel
}

// expensiveRoutes are one valid request of each expensive route.
func expensiveRoutes(t testing.TB) []struct{ route, contentType, body string } {
	tree := string(uploadOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"}))
	return []struct{ route, contentType, body string }{
		{"/validate", "application/x-tar", tree},
		{"/diff", "application/x-tar", tree},
		{"/resolve", "application/json", `{"document": "defaults: {}", "dataset": "ds.x"}`},
		{"/merge", "application/json", `{"base": {"tags": ["a"]}, "override": {"tags": ["b"]}}`},
		{"/policy/evaluate", "application/json", `{"policy": "version: 1\nrules: []\n", "changeset": {"changeset_version": 1, "changes": []}}`},
	}
}

// TestOperationsTimeOut: every expensive route answers 503 timeout once its
// request's deadline passes, instead of working on past the server's write
// timeout and answering nothing; its work sees its context end; and its
// slot and working memory stay taken until the work has really ended.
func TestOperationsTimeOut(t *testing.T) {
	_, st := testServer(t)
	log := &syncLog{}
	h, s := newServer(Deps{Store: st, Log: log.logger(), Limits: Limits{RequestTimeout: 20 * time.Millisecond, MaxConcurrentValidations: 1, MaxConcurrentOps: 1}})
	for _, op := range expensiveRoutes(t) {
		t.Run(op.route, func(t *testing.T) {
			started, release := holdOperations(t)
			var r response
			testctx.Within(t, "POST "+op.route, func() {
				r = doLong(t, h, "POST", op.route, strings.NewReader(op.body), "Content-Type", op.contentType)
			})
			if r.status != http.StatusServiceUnavailable || problemOf(t, r)["type"] != ProblemBase+"timeout" {
				t.Fatalf("%d %s, want 503 timeout", r.status, r.body)
			}
			holdsToOpenAPI(t, op.route, "post", r)
			ctx := <-started
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Errorf("the work's context: %v, want its deadline passed", ctx.Err())
			}
			slots := s.ops
			if op.route == "/validate" || op.route == "/diff" {
				slots = s.validations
			}
			if len(slots) != 1 || s.memory.inUse() == 0 {
				t.Errorf("the timed-out work gave back its slot (%d taken) or its memory (%d bytes) while it runs", len(slots), s.memory.inUse())
			}
			if r := doLong(t, h, "POST", op.route, strings.NewReader(op.body), "Content-Type", op.contentType); r.status != http.StatusTooManyRequests {
				t.Errorf("while the timed-out work runs: %d, want 429", r.status)
			}
			release()
			waitFor(t, "the slot back", func() bool { return len(slots) == 0 && s.memory.inUse() == 0 })
		})
	}
	if !strings.Contains(log.String(), `"status":503`) {
		t.Errorf("the log does not record the 503s:\n%s", log)
	}
}

// TestClientGoneIs499: a client that leaves before its answer stops the
// work, and the log and the metrics record 499 (it got nothing), not the 200
// net/http would have sent to no one; an answer whose write fails is
// recorded the same way, with the status it was meant to have.
func TestClientGoneIs499(t *testing.T) {
	_, st := testServer(t)
	log := &syncLog{}
	h, _ := newServer(Deps{Store: st, Log: log.logger()})
	started, release := holdOperations(t)
	defer release()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, op := range expensiveRoutes(t) {
		t.Run(op.route, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+op.route, strings.NewReader(op.body))
				req.Header.Set("Content-Type", op.contentType)
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				errc <- err
			}()
			work := <-started
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("the client got an answer after it left")
			}
			<-work.Done() // the work sees the client go
			if !errors.Is(work.Err(), context.Canceled) {
				t.Errorf("the work's context: %v, want canceled", work.Err())
			}
			line := `"route":"` + op.route + `","path":"` + op.route + `","status":499`
			waitFor(t, "the request's log line", func() bool { return strings.Contains(log.String(), line) })
		})
	}
	release()
	holdWork = nil

	// An answer whose write fails: the log says 499 and what was meant.
	r := httptest.NewRequest("POST", "/merge", strings.NewReader(`{"base": {"tags": ["a"]}, "override": {}}`))
	r.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(&failingWriter{header: http.Header{}}, r)
	waitFor(t, "the failed write's log line", func() bool {
		return strings.Contains(log.String(), `"status":499`) && strings.Contains(log.String(), `"intended_status":200,"write_error":"connection reset"`)
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `governanced_http_requests_total{code="499",method="POST",route="/merge"}`) {
		t.Errorf("the metrics do not count the 499s")
	}
}

// failingWriter is a connection that fails every write.
type failingWriter struct{ header http.Header }

func (f *failingWriter) Header() http.Header       { return f.header }
func (f *failingWriter) WriteHeader(int)           {}
func (f *failingWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset") }

// sourcesDocument is a governance document of n sources keys.
func sourcesDocument(n int) string {
	var b strings.Builder
	b.WriteString("defaults: {row_filters: []}\nsources:\n")
	for i := range n {
		fmt.Fprintf(&b, "  s%d: {expose: true}\n", i)
	}
	return b.String()
}

// TestWorkMemory: the expensive requests charge their working memory to one
// budget before they spend it. A request that alone would need more than
// the budget is refused with 413 before its documents are parsed; one that
// finds the budget held by others, with 503 overloaded and Retry-After.
func TestWorkMemory(t *testing.T) {
	_, st := testServer(t)
	doc := sourcesDocument(100_000) // 2.5 MB, about 250 MB to parse
	t.Run("over the whole budget", func(t *testing.T) {
		h, s := newServer(Deps{Store: st, Limits: Limits{MaxWorkMemory: 64 << 20}})
		tests := []struct{ route, contentType string }{
			{"/resolve", "application/json"},
			{"/merge", "application/json"},
			{"/policy/evaluate", "application/json"},
			{"/validate", "application/x-tar"},
			{"/diff", "application/x-tar"},
		}
		for _, tt := range tests {
			var body []byte
			switch tt.route {
			case "/resolve":
				body = []byte(`{"document": ` + jsonString(doc) + `, "dataset": "s1"}`)
			case "/merge":
				body = []byte(`{"base": ` + jsonString("tags: ["+strings.Repeat("a,", 500_000)+"a]") + `, "override": {}}`)
			case "/policy/evaluate":
				body = []byte(`{"policy": ` + jsonString("version: 1\nrules: []\nx: ["+strings.Repeat("1,", 500_000)+"1]\n") + `, "changeset": {"changeset_version": 1, "changes": []}}`)
			default:
				body = uploadOf(t, map[string]string{"apps/a/governance.yaml": sourcesDocument(30_000)})
			}
			var r response
			peak := testmem.PeakHeap(func() {
				r = doLong(t, h, "POST", tt.route, bytes.NewReader(body), "Content-Type", tt.contentType)
			})
			if r.status != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s: %d, want 413:\n%.500s", tt.route, r.status, r.body)
			}
			if p := problemOf(t, r); p["type"] != ProblemBase+"payload-too-large" || !strings.Contains(p["detail"].(string), "--max-work-memory") {
				t.Errorf("%s: problem %v, want payload-too-large naming --max-work-memory", tt.route, p)
			}
			holdsToOpenAPI(t, tt.route, "post", r)
			if peak > 48<<20 {
				t.Errorf("%s: the refused request peaked at %d MB: it parsed what it refused", tt.route, peak>>20)
			}
			if s.memory.inUse() != 0 {
				t.Errorf("%s: %d bytes still charged after the refusal", tt.route, s.memory.inUse())
			}
		}
	})
	t.Run("held by others", func(t *testing.T) {
		h, s := newServer(Deps{Store: st, Limits: Limits{MaxWorkMemory: 1 << 20}})
		started, release := holdWorks(t, false)
		body := `{"document": ` + jsonString(sourcesDocument(6000)) + `, "dataset": "s1"}` // 150 KB: 600 KB to read
		held := make(chan response, 1)
		go func() {
			held <- doLong(t, h, "POST", "/resolve", strings.NewReader(body), "Content-Type", "application/json")
		}()
		<-started
		r := doLong(t, h, "POST", "/resolve", strings.NewReader(body), "Content-Type", "application/json")
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "2" {
			t.Fatalf("%d, Retry-After %q, want 503 and 2:\n%s", r.status, r.header.Get("Retry-After"), r.body)
		}
		if p := problemOf(t, r); p["type"] != ProblemBase+"overloaded" {
			t.Errorf("problem %v, want overloaded", p)
		}
		holdsToOpenAPI(t, "/resolve", "post", r)
		release()
		<-held
		waitFor(t, "the memory back", func() bool { return s.memory.inUse() == 0 })
	})
}

// TestConcurrentWorkStaysWithinTheBudget: /diff and /resolve requests sent
// together, each about a third of the budget or more, hold no more memory
// together than the budget allows (docs/reliability.md): those that do not
// fit are refused, the others answered.
func TestConcurrentWorkStaysWithinTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("parses hundreds of megabytes")
	}
	const budget = 256 << 20
	_, st := testServer(t)
	h, s := newServer(Deps{Store: st, Limits: Limits{MaxWorkMemory: budget, RequestTimeout: 10 * time.Minute, MaxConcurrentValidations: 8, MaxConcurrentOps: 8}})
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("apps/a%d/governance.yaml", i)] = sourcesDocument(300)
	}
	upload := uploadOf(t, files)                                                            // 18 000 datasets added: about 50 MB
	resolve := `{"document": ` + jsonString(sourcesDocument(20_000)) + `, "dataset": "s1"}` // about 50 MB`
	var mu sync.Mutex
	got := map[string]map[int]int{"/diff": {}, "/resolve": {}}
	var maxCharged int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			if n := s.memory.inUse(); n > maxCharged {
				maxCharged = n
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	peak := testmem.PeakHeap(func() {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				route, body, ct := "/resolve", resolve, "application/json"
				if i%2 == 0 {
					route, body, ct = "/diff", string(upload), "application/x-tar"
				}
				r := doLong(t, h, "POST", route, strings.NewReader(body), "Content-Type", ct)
				mu.Lock()
				got[route][r.status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
	})
	close(stop)
	<-watched
	t.Logf("answers %v; peak heap %d MB, most charged %d MB, budget %d MB", got, peak>>20, maxCharged>>20, budget>>20)
	served := 0
	for route, statuses := range got {
		served += statuses[200]
		for status := range statuses {
			if status != 200 && status != 503 {
				t.Errorf("%s answered %d", route, status)
			}
		}
	}
	if served < 2 {
		t.Errorf("%d requests served: the budget held off more than it had to", served)
	}
	if maxCharged > budget {
		t.Errorf("%d MB charged at once, over the %d MB budget", maxCharged>>20, budget>>20)
	}
	// The heap holds garbage too until the collector runs: what the
	// requests hold is bounded by the budget, the heap by about half as
	// much again.
	if peak > budget*3/2 {
		t.Errorf("the heap peaked at %d MB, over one and a half times the %d MB budget", peak>>20, budget>>20)
	}
	// Alone, each fits: the refusals were the budget's sharing, not sizes.
	for _, r := range []response{
		doLong(t, h, "POST", "/diff", bytes.NewReader(upload), "Content-Type", "application/x-tar"),
		doLong(t, h, "POST", "/resolve", strings.NewReader(resolve), "Content-Type", "application/json"),
	} {
		if r.status != http.StatusOK {
			t.Errorf("alone: %d %.300s", r.status, r.body)
		}
	}
}

// TestDiffWindow: a diff's answer holds the summary whole and each list cut
// to ?limit entries from ?offset; its page says how many there are and
// where the next page starts, and the pages together are the whole report.
func TestDiffWindow(t *testing.T) {
	h, _ := testServer(t)
	files := servedFiles(t)
	files["apps/many/governance.yaml"] = sourcesDocument(2500)
	body := uploadOf(t, files)
	post := func(query string, header ...string) response {
		r := doLong(t, h, "POST", "/diff"+query, bytes.NewReader(body), append([]string{"Content-Type", "application/x-tar"}, header...)...)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		return r
	}
	type paged struct {
		diff.Report
		Page diffPage `json:"page"`
	}
	read := func(r response) paged {
		holdsToOpenAPI(t, "/diff", "post", r)
		var p paged
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole := read(post("?limit=10000"))
	if n := len(whole.Datasets); n != 2500 || whole.Page.NextOffset != nil {
		t.Fatalf("limit 10000: %d datasets, next %v", n, whole.Page.NextOffset)
	}
	first := read(post(""))
	if len(first.Datasets) != defaultDiffLimit || first.Page.Total.Datasets != 2500 || first.Page.NextOffset == nil || *first.Page.NextOffset != defaultDiffLimit {
		t.Fatalf("the first page: %d datasets, page %+v", len(first.Datasets), first.Page)
	}
	if d := cmp.Diff(whole.Kinds, first.Kinds); d != "" || first.Head != whole.Head {
		t.Errorf("the summary differs between pages (-whole +first):\n%s", d)
	}
	var all []diff.DatasetChange
	for offset := 0; ; {
		p := read(post(fmt.Sprintf("?limit=700&offset=%d", offset)))
		all = append(all, p.Datasets...)
		if p.Page.NextOffset == nil {
			break
		}
		offset = *p.Page.NextOffset
	}
	if d := cmp.Diff(whole.Datasets, all); d != "" {
		t.Errorf("the pages together are not the whole report (-whole +pages):\n%.2000s", d)
	}
	for _, f := range []string{"markdown", "text"} {
		r := post("?limit=100&offset=200&format=" + f)
		if !bytes.Contains(r.body, []byte("entries 201 to 300 of each list (apps: 1, datasets: 2500,")) || !bytes.Contains(r.body, []byte("?offset=300 for the next")) {
			t.Errorf("the %s does not say it is cut:\n%.300s", f, r.body[max(0, len(r.body)-300):])
		}
	}
	// The SARIF log holds the page asked for: the results of the same
	// datasets as the JSON's page, and that page in its run's properties.
	page := read(post("?limit=100&offset=200"))
	var log struct {
		Runs []struct {
			Results []struct {
				Properties struct {
					Dataset string `json:"dataset"`
				} `json:"properties"`
			} `json:"results"`
			Properties struct {
				Page diffPage `json:"page"`
			} `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(post("?limit=100&offset=200&format=sarif").body, &log); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(page.Page, log.Runs[0].Properties.Page); d != "" {
		t.Errorf("the SARIF's page differs from the JSON's (-json +sarif):\n%s", d)
	}
	var inJSON, inSARIF []string
	for _, d := range page.Datasets {
		inJSON = append(inJSON, d.Dataset)
	}
	for _, r := range log.Runs[0].Results {
		if n := len(inSARIF); n == 0 || inSARIF[n-1] != r.Properties.Dataset {
			inSARIF = append(inSARIF, r.Properties.Dataset)
		}
	}
	if d := cmp.Diff(inJSON, inSARIF); d != "" {
		t.Errorf("the SARIF's results are not of the JSON page's datasets (-json +sarif):\n%.2000s", d)
	}
	for _, q := range []string{"?limit=0", "?limit=10001", "?offset=-1", "?limit=x"} {
		if r := doLong(t, h, "POST", "/diff"+q, bytes.NewReader(body), "Content-Type", "application/x-tar"); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, r.status)
		}
	}
}

// TestWorkMemoryEstimates: what each expensive request charges to the
// working-memory budget is not below what it really holds: the peak heap
// of the request, alone on a server, is at most its peak charge, with room
// for the collector's garbage (the estimates are measured on these worst
// inputs: short values many to a byte). go test -v prints the figures
// docs/reliability.md gives.
func TestWorkMemoryEstimates(t *testing.T) {
	if testing.Short() {
		t.Skip("parses hundreds of megabytes")
	}
	_, st := testServer(t)
	flowList := "tags: [" + strings.Repeat("a,", 150_000) + "a]\n"
	var changeset strings.Builder
	changeset.WriteString(`{"changeset_version": 1, "models": {`)
	for i := range 3000 {
		if i > 0 {
			changeset.WriteByte(',')
		}
		fmt.Fprintf(&changeset, `"model.p.m%d": {"meta": {"a": 1}, "columns": {"c": {"meta": {}}}}`, i)
	}
	changeset.WriteString(`}, "exposures": {}, "changes": [`)
	for i := range 3000 {
		if i > 0 {
			changeset.WriteByte(',')
		}
		fmt.Fprintf(&changeset, `{"model": "model.p.m%d", "column": "c", "kind": "removed", "reach": {"resolved": true, "columns": [], "exposures": []}}`, i)
	}
	changeset.WriteString(`]}`)
	var jsonDoc strings.Builder
	jsonDoc.WriteString(`{"sources": {`)
	for i := range 30_000 {
		if i > 0 {
			jsonDoc.WriteByte(',')
		}
		fmt.Fprintf(&jsonDoc, `"s%d": {"expose": true}`, i)
	}
	jsonDoc.WriteString(`}}`)
	files := map[string]string{}
	for i := range 100 {
		files[fmt.Sprintf("apps/a%d/governance.yaml", i)] = sourcesDocument(300)
	}
	upload := string(uploadOf(t, files))
	artifacts := artifactBody(t, realPairParts(t, "version: 1\nrules: []\n"))
	for _, tt := range []struct {
		name, route, contentType, body string
	}{
		{"/resolve, 30 000 sources as YAML", "/resolve", "application/json", `{"document": ` + jsonString(sourcesDocument(30_000)) + `, "dataset": "s1"}`},
		{"/resolve, 30 000 sources as JSON", "/resolve", "application/json", `{"document": ` + jsonDoc.String() + `, "dataset": "s1"}`},
		{"/merge, 150 000 one-letter tags", "/merge", "application/json", `{"base": ` + jsonString(flowList) + `, "override": {}}`},
		{"/policy/evaluate, 3 000 changes", "/policy/evaluate", "application/json", `{"policy": "version: 1\nrules: []\n", "changeset": ` + changeset.String() + `}`},
		{"/policy/evaluate, the real dbt pair", "/policy/evaluate", artifacts.contentType, string(artifacts.body)},
		{"/validate, 100 apps of 300 sources", "/validate", "application/x-tar", upload},
		{"/diff, 100 apps of 300 sources added", "/diff", "application/x-tar", upload},
	} {
		h, s := newServer(Deps{Store: st, Limits: Limits{MaxBodyBytes: 256 << 20}})
		var r response
		peak := testmem.PeakHeap(func() {
			r = doLong(t, h, "POST", tt.route, strings.NewReader(tt.body), "Content-Type", tt.contentType)
		})
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", tt.name, r.status, r.body)
		}
		_, charged, _, _ := s.memory.state()
		t.Logf("%-40s body %6d KB, charged %4d MB, peak heap %4d MB", tt.name, len(tt.body)>>10, charged>>20, peak>>20)
		if int64(peak) > charged*3/2+16<<20 {
			t.Errorf("%s: the heap peaked at %d MB, over one and a half times the %d MB charged", tt.name, peak>>20, charged>>20)
		}
	}
}

// TestOldestRequestFinishes: two diffs that each need most of the working
// memory, started together, do not both fail short of the end: the older
// waits for what it needs and is answered, the younger is refused with 503
// (or answered, when the older was done before it charged).
func TestOldestRequestFinishes(t *testing.T) {
	_, st := testServer(t)
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("apps/a%d/governance.yaml", i)] = sourcesDocument(300)
	}
	upload := uploadOf(t, files) // about 45 MB to keep
	h, s := newServer(Deps{Store: st, Limits: Limits{MaxWorkMemory: 64 << 20}})
	started, release := holdWorks(t, false)
	answers := make([]chan response, 2)
	for i := range answers {
		answers[i] = make(chan response, 1)
		go func() {
			answers[i] <- doLong(t, h, "POST", "/diff", bytes.NewReader(upload), "Content-Type", "application/x-tar")
		}()
		<-started // the first is the older
	}
	release()
	older, younger := <-answers[0], <-answers[1]
	if older.status != http.StatusOK {
		t.Errorf("the older diff: %d %.300s", older.status, older.body)
	}
	if younger.status != http.StatusOK && younger.status != http.StatusServiceUnavailable {
		t.Errorf("the younger diff: %d %.300s", younger.status, younger.body)
	}
	waitFor(t, "the memory back", func() bool { return s.memory.inUse() == 0 })
}

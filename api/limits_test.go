package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testctx"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/testmem"
)

// doLong is do for a request whose work takes seconds under the race
// detector: it ends when the server's own limits end it (within guards
// against a hang), not after do's second.
func doLong(t testing.TB, h http.Handler, method, target string, body io.Reader, header ...string) response {
	t.Helper()
	req := httptest.NewRequestWithContext(context.Background(), method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), bytes.Clone(rec.Body.Bytes())}
}

// TestHugeIntegers: an integer of a million digits is refused by counting
// its digits, before any conversion (whose cost is quadratic in them: a
// million digits would hold a worker for a long time). A million is enough
// to tell: reading the digits is linear, so more would only cost time. On the stateless
// operations it is a 422 naming the line and the limit; in an uploaded tree
// a load-error finding on the file and line.
func TestHugeIntegers(t *testing.T) {
	h, _ := testServer(t)
	digits := strings.Repeat("7", 1_000_000)
	for _, tt := range []struct{ name, route, body string }{
		{"merge, a JSON number", "/merge", `{"base": {"retention_days": ` + digits + `}, "override": {}}`},
		{"merge, YAML text", "/merge", `{"base": "retention_days: ` + digits + `\n", "override": {}}`},
		{"merge, a list", "/merge", `{"base": {}, "override": {"tags": [1, ` + digits + `]}}`},
		{"resolve", "/resolve", `{"document": "defaults:\n  retention_days: ` + digits + `\nsources: {}\n", "dataset": "x"}`},
		{"policy", "/policy/evaluate", `{"policy": "version: 1\nrules: []\nx: ` + digits + `\n", "changeset": {"changeset_version": 1, "changes": []}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refusedAtLine(t, h, tt.route, tt.body, "an integer of 1000000 digits, more than the limit of 4300 digits")
		})
	}
	t.Run("upload", func(t *testing.T) {
		// A million digits, 230 times the limit, gzip to about a kilobyte
		// and fit the upload's own document limit (1 MiB by default): the
		// digits are what is refused, not the file's size. Reading them is
		// linear (the YAML scanner, the integer pattern, the digit count),
		// so more digits would only cost time under the race detector.
		h, _ := testServer(t)
		doc := "defaults:\n  retention_days: " + strings.Repeat("7", 1_000_000) + "\nsources:\n  ds.x: {expose: true}\n"
		if len(doc) > DefaultLimits.MaxUploadDocumentBytes {
			t.Fatalf("the document is %d bytes, over the upload's own limit: the size would be refused, not the digits", len(doc))
		}
		body := gzipOf(uploadOf(t, map[string]string{"apps/a/governance.yaml": doc}))
		var r response
		testctx.Within(t, "POST /validate", func() {
			r = doLong(t, h, "POST", "/validate", bytes.NewReader(body), "Content-Type", "application/gzip")
		})
		rep := decodeReport(t, r)
		for _, f := range rep.Findings {
			if !rep.OK && f.Severity == "error" && f.Code == "load-error" && f.File == "apps/a/governance.yaml" && f.Line == 2 &&
				strings.Contains(f.Message, "an integer of 1000000 digits, more than the limit of 4300 digits") {
				return
			}
		}
		t.Errorf("no load-error naming the file, line and limit:\n%.2000s", r.body)
	})
}

// TestStatelessDuplicateKeys: a key written twice is refused by POST
// /resolve and /merge as `validate` refuses it (duplicate-key, an error),
// with the member, line and column of the later key, instead of the later
// value kept silently.
func TestStatelessDuplicateKeys(t *testing.T) {
	h, _ := testServer(t)
	const dupDoc = "defaults: {}\nsources:\n  ds.x: {expose: true}\n  ds.x: {expose: false}\n"
	tests := []struct {
		name, route, body, file string
		line, column            int
	}{
		{"resolve document", "/resolve", `{"document": ` + jsonString(dupDoc) + `, "dataset": "ds.x"}`, "document", 4, 3},
		{"resolve overlay", "/resolve", `{"document": "defaults: {}\nsources: {}\n", "overlay": ` + jsonString("defaults:\n  title: a\n  title: b\n") + `, "dataset": "ds.x"}`, "overlay", 3, 3},
		{"resolve JSON document", "/resolve", `{"document": {"sources": {"ds.x": {"expose": true, "expose": false}}}, "dataset": "ds.x"}`, "document", 1, 39},
		{"merge base", "/merge", `{"base": "expose: true\nexpose: false\n", "override": {}}`, "base", 2, 1},
		{"merge override", "/merge", `{"base": {}, "override": "tags: [a]\naccess_level: open\ntags: [b]\n"}`, "override", 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", tt.route, strings.NewReader(tt.body), "Content-Type", "application/json")
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
			}
			p := problemOf(t, r)
			if p["code"] != "duplicate-key" || p["file"] != tt.file || p["line"] != float64(tt.line) || p["column"] != float64(tt.column) ||
				!strings.Contains(p["detail"].(string), "duplicate key") {
				t.Errorf("problem %v, want duplicate-key in %s at %d:%d", p, tt.file, tt.line, tt.column)
			}
			holdsToOpenAPI(t, tt.route, "post", r)
		})
	}
	// Overriding a merged key is what merge keys are for: no duplicate.
	r := do(t, h, "POST", "/resolve", strings.NewReader(`{"document": `+jsonString("defaults: &d {access_level: open}\nsources:\n  ds.x: {<<: *d, access_level: internal}\n")+`, "dataset": "ds.x"}`), "Content-Type", "application/json")
	if r.status != http.StatusOK {
		t.Errorf("a merge key overridden: status %d:\n%s", r.status, r.body)
	}
}

// TestStrictQuery: a query is read exactly or refused with a 400 problem
// naming why. Go's parser gives up past 10,000 parameters and the handler
// saw none: `strict=true` followed by 10,000 more parameters answered
// `strict: false`, and a listing filtered by app listed every app.
func TestStrictQuery(t *testing.T) {
	h, _ := testServer(t)
	many := func(first string, n int) string {
		var b strings.Builder
		b.WriteString(first)
		for i := range n {
			fmt.Fprintf(&b, "&x%d=1", i)
		}
		return b.String()
	}
	tar := uploadOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	tests := []struct {
		name, method, target string
		detail               string // a substring of the problem's detail
	}{
		{"10,001 parameters on validate", "POST", "/validate?" + many("strict=true", 10_000), "the query has 10001 parameters, more than the 1000"},
		{"10,001 parameters on a listing", "GET", "/datasets?" + many("app=grid", 10_000), "the query has 10001 parameters"},
		{"1,001 parameters", "GET", "/datasets?" + many("app=grid", 1000), "the query has 1001 parameters"},
		{"an unknown parameter", "POST", "/validate?stict=true", `unknown query parameter "stict": /validate takes dataspace, format, infer_from_dir, overlay_dir, overlay_name, owners, path, placeholders, strict`},
		{"unknown parameters", "GET", "/datasets?app=grid&x1=1&x0=1", `unknown query parameter "x0", "x1": /datasets takes `},
		{"a route without parameters", "GET", "/healthz?probe=1", "/healthz takes no query parameters"},
		{"a path parameter is not a query parameter", "GET", "/apps/grid?app=x", `unknown query parameter "app"`},
		{"a single-valued parameter twice", "POST", "/validate?strict=true&strict=false", "query parameter strict is given 2 times; it takes one value"},
		{"a bad escape", "POST", "/validate?strict=tru%zz", `the query string does not parse (invalid URL escape "%zz")`},
		{"a bad escape in a name", "GET", "/datasets?ap%zz=grid", `does not parse (invalid URL escape "%zz")`},
		{"a semicolon", "GET", "/datasets?app=grid;expose=true", "does not parse (invalid semicolon separator in query)"},
		{"a long unknown name is cut", "GET", "/datasets?" + strings.Repeat("n", 500) + "=1", `"` + strings.Repeat("n", 40) + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.method == "POST" {
				body = bytes.NewReader(tar)
			}
			r := do(t, h, tt.method, tt.target, body, "Content-Type", "application/x-tar")
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400:\n%.500s", r.status, r.body)
			}
			p := problemOf(t, r)
			if p["type"] != ProblemBase+"bad-request" || !strings.Contains(p["detail"].(string), tt.detail) {
				t.Errorf("problem %.500v, want bad-request mentioning %q", p, tt.detail)
			}
			if len(r.body) > 2000 {
				t.Errorf("the problem is %d bytes: it quotes the query", len(r.body))
			}
		})
	}
	// What a route declares is accepted.
	for _, target := range []string{
		"/validate?strict=true&path=apps/*&path=apps/a&format=json",
		"/datasets?app=grid&tag=a&tag=b&limit=5&expose=true",
		"/datasets?", // an empty query
		"/healthz",
	} {
		method := "GET"
		var body io.Reader
		if strings.HasPrefix(target, "/validate") {
			method, body = "POST", bytes.NewReader(tar)
		}
		if r := do(t, h, method, target, body, "Content-Type", "application/x-tar"); r.status != http.StatusOK {
			t.Errorf("%s %s: status %d:\n%.500s", method, target, r.status, r.body)
		}
	}
}

// TestRouteParamsFromOpenAPI: the table of accepted parameters is
// openapi.yaml's, references resolved.
func TestRouteParamsFromOpenAPI(t *testing.T) {
	got := map[string][]string{}
	for op, ps := range routeParams() {
		for n, p := range ps {
			if p.repeatable {
				n += "[]"
			}
			got[op] = append(got[op], n)
		}
		slices.Sort(got[op])
	}
	want := map[string][]string{
		"GET /apps/{app}/datasets/{id}/rule": {"explain", "wait"},
		"GET /datasets":                      {"access_level", "app", "classification", "conflict", "cursor", "dataspace_expose", "expose", "include", "limit", "q", "tag[]", "wait"},
		"GET /datasets/{id}/rule":            {"app", "explain", "wait"},
		"GET /datasets/{id}/facet":           {"app", "include_dataspace", "producer", "wait"},
		"GET /owners":                        {"uri", "wait"},
		"GET /report":                        {"format", "wait"},
		"GET /healthz":                       nil,
		"POST /validate":                     {"dataspace", "format", "infer_from_dir", "overlay_dir", "overlay_name", "owners[]", "path[]", "placeholders", "strict"},
	}
	for op, w := range want {
		if diff := cmp.Diff(w, got[op]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", op, diff)
		}
	}
	if _, err := readRouteParams([]byte("paths:\n  /x:\n    get:\n      parameters: [{$ref: '#/components/parameters/Nope'}]\n")); err == nil {
		t.Error("an unknown reference was accepted")
	}
}

// TestEveryErrorIsAProblem: the router's own answers (no route, wrong
// method) are problem details like every handler's. A request net/http
// refuses before any handler runs (a path with an invalid percent-escape,
// no Host, headers too large, an unknown transfer encoding) gets net/http's
// own plain-text answer, with the status it chose: the server does not
// rewrite bytes on the connection (README.md, "Limits").
func TestEveryErrorIsAProblem(t *testing.T) {
	h, _ := testServer(t)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.MaxHeaderBytes = 4 << 10
	srv.Start()
	defer srv.Close()
	// exchange sends requests on one connection and reads an answer for
	// each.
	exchange := func(t *testing.T, requests string, answers int) []*http.Response {
		t.Helper()
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, requests); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		var out []*http.Response
		for range answers {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body = io.NopCloser(bytes.NewReader(body))
			out = append(out, resp)
		}
		return out
	}
	tests := []struct {
		name, request string
		status        int
		kind, detail  string // kind "": net/http's own answer, detail in its text
	}{
		{"%zz in the path", "GET /datasets/%zz/rule HTTP/1.1\r\nHost: x\r\n\r\n", 400, "", "400 Bad Request"},
		{"a lone % in the path", "GET /datasets/a% HTTP/1.1\r\nHost: x\r\n\r\n", 400, "", "400 Bad Request"},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "", "missing required Host header"},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 8<<10) + "\r\n\r\n", 431, "", "431 Request Header Fields Too Large"},
		{"an unknown transfer encoding", "POST /merge HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "", "Unsupported transfer encoding"},
		{"no route", "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not-found", "no route /nope"},
		{"a long path is cut", "GET /" + strings.Repeat("n", 3000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not-found", "nnn…"},
		{"a wrong method", "DELETE /datasets HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method-not-allowed", "use GET"},
		{"a bad query", "GET /datasets?a=%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request", "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := exchange(t, tt.request, 1)[0]
			body, _ := io.ReadAll(resp.Body)
			if tt.kind == "" {
				if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || !strings.Contains(string(body), tt.detail) {
					t.Errorf("%d %s %q, want net/http's own %d saying %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.detail)
				}
				return
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d %s, want %d problem+json:\n%.500s", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, body)
			}
			var p map[string]any
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("%v:\n%s", err, body)
			}
			if p["type"] != ProblemBase+tt.kind || p["status"] != float64(tt.status) || !strings.Contains(p["detail"].(string), tt.detail) {
				t.Errorf("problem %v, want %s mentioning %q", p, tt.kind, tt.detail)
			}
			if len(body) > 2000 {
				t.Errorf("the problem is %d bytes", len(body))
			}
		})
	}
	t.Run("a keep-alive connection", func(t *testing.T) {
		// A handler's answer, then net/http's refusal of the next request
		// on the same connection, each as its writer wrote it.
		got := exchange(t, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /x%zz HTTP/1.1\r\nHost: x\r\n\r\n", 2)
		for i, want := range []struct {
			status int
			ct     string
		}{{200, "application/json; charset=utf-8"}, {400, "text/plain; charset=utf-8"}} {
			if got[i].StatusCode != want.status || got[i].Header.Get("Content-Type") != want.ct {
				t.Errorf("answer %d: %d %s, want %d %s", i, got[i].StatusCode, got[i].Header.Get("Content-Type"), want.status, want.ct)
			}
		}
	})
}

// TestOutsideLinkNeverLeaks: a link out of the tree
// (`ln -s /run/secrets/token apps/leak/governance.yaml`) must not put what it
// points at where a client reads it, such as a not-a-mapping finding in the
// open GET /status. Without AllowOutsideLinks the link fails the reload
// naming the link, and the secret appears nowhere in /status or the log; with
// AllowOutsideLinks the file is read, and a message quotes at most its first
// 40 characters.
func TestOutsideLinkNeverLeaks(t *testing.T) {
	secret := "token-" + strings.Repeat("7f3a9c", 20)
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, map[string]string{
				"tree/apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
				"secrets/token":               secret,
			})
			tree := filepath.Join(dir, "tree")
			store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{tree}, AllowOutsideLinks: allow}})
			var log syncLog
			h, _ := newServer(Deps{Store: store, Log: log.logger()})
			os.MkdirAll(filepath.Join(tree, "apps/leak"), 0o755)
			symlink(t, filepath.Join(dir, "secrets/token"), filepath.Join(tree, "apps/leak/governance.yaml"))
			st := store.Reload(context.Background(), false)
			r := do(t, h, "GET", "/status", nil)
			do(t, h, "GET", "/report", nil)
			var status struct {
				LastReload struct {
					Outcome  string   `json:"outcome"`
					Error    string   `json:"error"`
					Problems []string `json:"problems"`
				} `json:"last_reload"`
			}
			if err := json.Unmarshal(r.body, &status); err != nil {
				t.Fatal(err)
			}
			if allow {
				if st.Outcome != snapshot.Rejected || !strings.Contains(string(r.body), "not-a-mapping") {
					t.Fatalf("outcome %v: %v\n%s", st.Outcome, st.Err, r.body)
				}
			} else if st.Outcome != snapshot.Failed || status.LastReload.Outcome != "failed" ||
				!strings.HasPrefix(status.LastReload.Error, "apps/leak/governance.yaml leads out of") {
				t.Fatalf("outcome %v, /status does not name the link:\n%s", st.Outcome, r.body)
			}
			for what, text := range map[string]string{"/status": string(r.body), "the log": log.String()} {
				if strings.Contains(text, secret[:41]) || (!allow && strings.Contains(text, secret[:10])) {
					t.Errorf("%s holds the secret:\n%.2000s", what, text)
				}
			}
		})
	}
}

// manyAppsUpload is a gzip-compressed tar of apps apps, each declaring
// sources sources: 9,000 apps of 300 sources make about 1 MB.
func manyAppsUpload(t testing.TB, apps, sources int) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString("defaults: {row_filters: []}\nsources:\n")
	for i := range sources {
		fmt.Fprintf(&b, "  s%d: {expose: true}\n", i)
	}
	files := make(map[string]string, apps)
	for i := range apps {
		files[fmt.Sprintf("apps/a%d/governance.yaml", i)] = b.String()
	}
	return gzipOf(uploadOf(t, files))
}

// TestUploadBudget: what one validation may check is bounded by apps,
// sources, YAML values and bytes per document, not only by the upload's
// bytes: an upload of under 1 MB can name 9,000 apps × 300 sources, gigabytes
// to check. It is refused before any file is parsed, and with the budget
// raised the check ends with its request rather than running on after it.
func TestUploadBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 9,000 apps")
	}
	big := manyAppsUpload(t, 9000, 300)
	t.Logf("the upload is %d KB", len(big)>>10)
	_, st := testServer(t)
	post := func(t *testing.T, h http.Handler, route string, body []byte) response {
		var r response
		testctx.Within(t, "POST "+route, func() {
			r = doLong(t, h, "POST", route, bytes.NewReader(body), "Content-Type", "application/gzip")
		})
		return r
	}
	tests := []struct {
		name   string
		route  string
		limits Limits
		body   []byte
		status int
		detail string
	}{
		{"9,000 apps", "/validate", Limits{}, big, 413, "the check names 9000 apps, more than the 2000 one check may take"},
		{"9,000 apps to compare", "/diff", Limits{}, big, 413, "the check names 9000 apps, more than the 2000 one check may take"},
		{"sources to compare", "/diff", Limits{MaxUploadSources: 20_000}, manyAppsUpload(t, 100, 300), 413, "more than 20000 sources"},
		{"sources", "/validate", Limits{MaxUploadSources: 20_000}, manyAppsUpload(t, 100, 300), 413, "more than 20000 sources"},
		{"YAML values", "/validate", Limits{MaxUploadValues: 50_000}, manyAppsUpload(t, 100, 300), 413, "more than 50000 YAML values"},
		{"a document over 1 MiB", "/validate", Limits{}, manyAppsUpload(t, 1, 50_000), 200, "more than the limit of 1048576"},
		{"within", "/validate", Limits{}, manyAppsUpload(t, 100, 300), 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := newServer(Deps{Store: st, Limits: tt.limits})
			var r response
			peak := testmem.PeakHeap(func() { r = post(t, h, tt.route, tt.body) })
			if r.status != tt.status {
				t.Fatalf("status %d, want %d:\n%.1000s", r.status, tt.status, r.body)
			}
			if tt.status != 200 {
				p := problemOf(t, r)
				if p["type"] != ProblemBase+"payload-too-large" || !strings.Contains(p["detail"].(string), tt.detail) {
					t.Errorf("problem %v, want payload-too-large mentioning %q", p, tt.detail)
				}
			} else if !strings.Contains(string(r.body), tt.detail) {
				t.Errorf("the report does not mention %q:\n%.1000s", tt.detail, r.body)
			}
			// The extracted upload is about 60 MB; the check adds little.
			if peak > 400<<20 {
				t.Errorf("the validation peaked at %d MB", peak>>20)
			}
		})
	}
	t.Run("the check ends with its request", func(t *testing.T) {
		h, s := newServer(Deps{Store: st, Limits: Limits{MaxUploadApps: 10_000, MaxUploadSources: 1 << 30, MaxUploadValues: 1 << 30, RequestTimeout: 500 * time.Millisecond}})
		r := post(t, h, "/validate", big)
		if r.status != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503:\n%.500s", r.status, r.body)
		}
		// The check holds its validation slot until it has really ended.
		testctx.Within(t, "the check after its request", func() {
			for len(s.validations) > 0 {
				time.Sleep(10 * time.Millisecond)
			}
		})
	})
}

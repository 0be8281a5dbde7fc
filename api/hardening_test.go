package api

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testctx"
	"github.com/celine-eu/governanced/internal/testfs"
)

// Hostile input through the whole request path: every answer is a clear
// client error (or, for POST /validate, a report naming the file and line),
// never a hang, a 5xx or a process out of memory.

// laughs is a "billion laughs" mapping: levels anchors of ten aliases to the
// one before, 10^levels values when every alias is read as a copy.
func laughs(indent string, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n", indent)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [%s]\n", indent, i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// nested is a flow value n levels deep.
func nested(n int) string { return strings.Repeat("[", n) + "x" + strings.Repeat("]", n) }

// aliasDepth nests aliases so that each part is shallow but the tree read
// through them is 400*(copies+1) levels deep.
func aliasDepth(indent string, copies int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sa0: &a0 %s\n", indent, nested(400))
	for i := 1; i <= copies; i++ {
		fmt.Fprintf(&b, "%sa%d: &a%d %s*a%d%s\n", indent, i, i, strings.Repeat("[", 400), i-1, strings.Repeat("]", 400))
	}
	return b.String()
}

// hostile are documents each limit of the YAML reader refuses, as the value
// of a source's unknown key (which lands in the rule's extra and is rendered).
var hostile = []struct {
	name string
	doc  string // a governance document
	msg  string // what the refusal says
}{
	{"billion laughs", "defaults: {}\nsources:\n  ds.x:\n    expose: true\n" + laughs("    ", 9), "aliases expand the document by more than 1000000 values"},
	{"merge-key laughs", "defaults: {}\nsources:\n  ds.x:\n    expose: true\n" + laughs("    ", 5) + "    m: {<<: {a: *l5}, b: *l5}\n", "aliases expand the document"},
	{"nesting", "defaults: {}\nsources:\n  ds.x:\n    deep: " + nested(1200) + "\n", "nesting deeper than 1000 levels"},
	{"nesting past the parser's own bound", "defaults: {}\nsources:\n  ds.x:\n    deep: " + nested(20000) + "\n", "depth"},
	{"nesting through aliases", "defaults: {}\nsources:\n  ds.x:\n" + aliasDepth("    ", 3), "nesting deeper than 1000 levels through aliases"},
}

func problemOf(t *testing.T, r response) map[string]any {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%d %s, want a problem:\n%.500s", r.status, ct, r.body)
	}
	var p map[string]any
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// refusedAtLine posts body as JSON to route and fails the test unless the
// answer is a 422 problem whose detail says msg and which names the line.
// The request runs to its end under the server's own limits (doLong), with
// a guard against a hang.
func refusedAtLine(t *testing.T, h http.Handler, route, body, msg string) {
	t.Helper()
	var r response
	testctx.Within(t, "POST "+route, func() {
		r = doLong(t, h, "POST", route, strings.NewReader(body), "Content-Type", "application/json")
	})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422:\n%.500s", r.status, r.body)
	}
	p := problemOf(t, r)
	if detail, _ := p["detail"].(string); !strings.Contains(detail, msg) || p["line"] == nil {
		t.Errorf("the problem does not name the line and say %q:\n%.500s", msg, r.body)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHostileDocumentsStateless(t *testing.T) {
	h, _ := testServer(t)
	for _, tt := range hostile {
		reqs := []struct{ route, body string }{
			{"/resolve", `{"document": ` + jsonString(tt.doc) + `, "dataset": "ds.x"}`},
			{"/resolve", `{"document": "defaults: {}\nsources: {}\n", "overlay": ` + jsonString(tt.doc) + `, "dataset": "ds.x"}`},
			{"/merge", `{"base": ` + jsonString(tt.doc) + `, "override": {}}`},
			{"/policy/evaluate", `{"policy": ` + jsonString("version: 1\nrules: []\nx:\n"+indentAll(tt.doc)) + `, "changeset": {"changeset_version": 1, "changes": []}}`},
		}
		for _, rq := range reqs {
			t.Run(tt.name+rq.route, func(t *testing.T) {
				refusedAtLine(t, h, rq.route, rq.body, tt.msg)
			})
		}
	}
}

// TestDeepChangeset: a changeset is JSON (no aliases); its nesting is bounded
// by the JSON decoder.
func TestDeepChangeset(t *testing.T) {
	h, _ := testServer(t)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	body := `{"policy": "version: 1\nrules: []\n", "changeset": {"changeset_version": 1, "changes": [], "x": ` + deep + `}}`
	var r response
	testctx.Within(t, "POST /policy/evaluate", func() {
		r = do(t, h, "POST", "/policy/evaluate", strings.NewReader(body), "Content-Type", "application/json")
	})
	if r.status != http.StatusBadRequest && r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d:\n%.500s", r.status, r.body)
	}
	if p := problemOf(t, r); !strings.Contains(p["detail"].(string), "depth") {
		t.Errorf("the problem does not say what is wrong: %v", p)
	}
}

// indentAll indents every line of doc by two spaces, to nest it under a key.
func indentAll(doc string) string {
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

type finding struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
}

// validateReport is POST /validate's answer when the check ran: whether
// the tree passed and what it found.
type validateReport struct {
	OK       bool      `json:"ok"`
	Findings []finding `json:"findings"`
}

// decodeReport reads the report from r, which must have status 200.
func decodeReport(t *testing.T, r response) validateReport {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d:\n%.500s", r.status, r.body)
	}
	var rep validateReport
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatalf("%v:\n%.500s", err, r.body)
	}
	return rep
}

// TestHostileDocumentsValidate sends each hostile document through POST
// /validate, in each place an upload holds YAML: a base, an overlay, an
// owners file and a placeholder map. The report refuses it with the file and
// line; nothing walks the expansion.
func TestHostileDocumentsValidate(t *testing.T) {
	h, _ := testServer(t)
	const base = "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"
	const owners = "owners:\n  - id: rec\n    type: schema:NGO\n    name: REC\n"
	for _, tt := range hostile {
		places := []struct {
			name, file, query string
			files             map[string]string
		}{
			{"base", "apps/a/governance.yaml", "", map[string]string{"apps/a/governance.yaml": tt.doc}},
			{"overlay", "apps/a/governance.a.yaml", "", map[string]string{"apps/a/governance.yaml": base, "apps/a/governance.a.yaml": tt.doc}},
			{"owners", "owners.yaml", "?owners=owners.yaml", map[string]string{"apps/a/governance.yaml": base, "owners.yaml": owners + "x:\n" + indentAll(tt.doc)}},
			{"placeholders", "placeholders.yaml", "?owners=owners.yaml&placeholders=placeholders.yaml", map[string]string{"apps/a/governance.yaml": base, "owners.yaml": owners, "placeholders.yaml": "rec: rec\nx:\n" + indentAll(tt.doc)}},
		}
		for _, pl := range places {
			t.Run(tt.name+"/"+pl.name, func(t *testing.T) {
				var r response
				testctx.Within(t, "POST /validate", func() {
					r = do(t, h, "POST", "/validate"+pl.query, bytes.NewReader(uploadOf(t, pl.files)), "Content-Type", "application/x-tar")
				})
				rep := decodeReport(t, r)
				if rep.OK {
					t.Fatalf("the report passed:\n%.1000s", r.body)
				}
				for _, f := range rep.Findings {
					if f.Severity == "error" && f.Code == "load-error" && f.File == pl.file && f.Line > 0 && strings.Contains(f.Message, tt.msg) {
						return
					}
				}
				t.Errorf("no load-error on %s naming the line and %q:\n%.2000s", pl.file, tt.msg, r.body)
			})
		}
	}
}

// TestHostileTreeIsNeverServed: the same documents on disk, in a served tree,
// are rejected at reload; the last good revision keeps serving and /status
// says which file, which line and why.
func TestHostileTreeIsNeverServed(t *testing.T) {
	dir := t.TempDir()
	gov := dir + "/apps/a/governance.yaml"
	os.MkdirAll(dir+"/apps/a", 0o755)
	good := "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"
	os.WriteFile(gov, []byte(good), 0o644)
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	rev := store.Current().Revision
	h, _ := newServer(Deps{Store: store})
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(gov, []byte(tt.doc), 0o644)
			var st *snapshot.ReloadStatus
			testctx.Within(t, "the reload", func() { st = store.Reload(context.Background(), false) })
			if st.Outcome != snapshot.Rejected || store.Current().Revision != rev {
				t.Fatalf("outcome %v, serving %s: %v", st.Outcome, store.Current().Revision, st.Err)
			}
			var status struct {
				Revision   string `json:"revision"`
				LastReload struct {
					OK       bool     `json:"ok"`
					Problems []string `json:"problems"` // file:line:col: severity: code: message
				} `json:"last_reload"`
			}
			r := do(t, h, "GET", "/status", nil)
			if err := json.Unmarshal(r.body, &status); err != nil {
				t.Fatal(err)
			}
			if status.Revision != rev || status.LastReload.OK || len(status.LastReload.Problems) == 0 {
				t.Fatalf("/status does not report the refusal:\n%s", r.body)
			}
			p := status.LastReload.Problems[0]
			if !regexp.MustCompile(`apps/a/governance\.yaml:[1-9][0-9]*:[0-9]+: error: load-error: `).MatchString(p) || !strings.Contains(p, tt.msg) {
				t.Errorf("/status problem %q does not name the file, line and %q", p, tt.msg)
			}
			if r := do(t, h, "GET", "/datasets/ds.x/rule", nil); r.status != 200 || r.header.Get(revisionHeader) != rev {
				t.Errorf("the last good revision is not served: %d %s", r.status, r.header.Get(revisionHeader))
			}
		})
	}
}

// TestHostileUploads sends every refused shape of upload through POST
// /validate: each is refused as a whole with the entry named, and the
// extraction directory is gone afterwards.
func TestHostileUploads(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the uploads' extraction directories land here
	_, st := testServer(t)
	limits := Limits{MaxBodyBytes: 64 << 10, MaxUploadBytes: 256 << 10, MaxUploadFiles: 8}
	h, _ := newServer(Deps{Store: st, Limits: limits})
	good := entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"}
	var many []entry
	for i := range 9 {
		many = append(many, entry{name: fmt.Sprintf("f%d", i), typeflag: tar.TypeReg, body: "x"})
	}
	manyParts := map[string]string{}
	for i := range 9 {
		manyParts[fmt.Sprintf("f%d", i)] = "x"
	}
	// 1 MiB of zeros gzips to about a kilobyte: a small body, a large tree.
	bomb := gzipOf(tarOf(t, entry{name: "zeros", typeflag: tar.TypeReg, body: strings.Repeat("\x00", 1<<20)}))
	mp := func(files map[string]string) (string, []byte) { return multipartOf(t, files) }

	type upload struct {
		contentType string
		body        []byte
	}
	tarUp := func(entries ...entry) upload { return upload{"application/x-tar", tarOf(t, entries...)} }
	mpUp := func(files map[string]string) upload { ct, b := mp(files); return upload{ct, b} }
	tests := []struct {
		name   string
		up     upload
		status int
		kind   string
		detail string
	}{
		{"traversal", tarUp(good, entry{name: "apps/../../escape.yaml", typeflag: tar.TypeReg, body: "x"}), 400, "invalid-upload", `"apps/../../escape.yaml": a path must not contain ..`},
		{"absolute path", tarUp(entry{name: "/etc/cron.d/x", typeflag: tar.TypeReg, body: "x"}), 400, "invalid-upload", "an absolute path is not allowed"},
		{"drive letter", tarUp(entry{name: "C:/x", typeflag: tar.TypeReg, body: "x"}), 400, "invalid-upload", "a drive letter is not allowed"},
		{"backslashes", tarUp(entry{name: `apps\..\..\x`, typeflag: tar.TypeReg, body: "x"}), 400, "invalid-upload", "must use / as separator"},
		{"symlink", tarUp(entry{name: "apps/a/governance.yaml", typeflag: tar.TypeSymlink, link: "/etc/shadow"}), 400, "invalid-upload", "is a link"},
		{"symlink then a file through it", tarUp(entry{name: "apps", typeflag: tar.TypeSymlink, link: "/tmp"}, good), 400, "invalid-upload", "is a link"},
		{"hard link", tarUp(good, entry{name: "apps/b/governance.yaml", typeflag: tar.TypeLink, link: "/etc/passwd"}), 400, "invalid-upload", "is a link"},
		{"character device", tarUp(entry{name: "zero", typeflag: tar.TypeChar}), 400, "invalid-upload", "device or pipe"},
		{"block device", tarUp(entry{name: "sda", typeflag: tar.TypeBlock}), 400, "invalid-upload", "device or pipe"},
		{"fifo", tarUp(entry{name: "pipe", typeflag: tar.TypeFifo}), 400, "invalid-upload", "device or pipe"},
		{"a name given twice", tarUp(good, good), 400, "invalid-upload", "appears twice"},
		{"too many files", tarUp(many...), 413, "payload-too-large", "more than 8 entries"},
		{"body too large", tarUp(entry{name: "big", typeflag: tar.TypeReg, body: strings.Repeat("x", 100<<10)}), 413, "payload-too-large", "larger than 65536 bytes"},
		{"gzip bomb", upload{"application/gzip", bomb}, 413, "payload-too-large", "more than 262144 bytes"},
		{"multipart traversal", mpUp(map[string]string{"../../escape.yaml": "x"}), 400, "invalid-upload", "must not contain .."},
		{"multipart absolute", mpUp(map[string]string{"/etc/passwd": "x"}), 400, "invalid-upload", "an absolute path is not allowed"},
		{"multipart backslashes", mpUp(map[string]string{`..\..\x`: "x"}), 400, "invalid-upload", "must use / as separator"},
		{"multipart too many files", mpUp(manyParts), 413, "payload-too-large", "more than 8 entries"},
		{"multipart too many bytes", mpUp(map[string]string{"a": strings.Repeat("x", 40<<10), "b": strings.Repeat("x", 40<<10)}), 413, "payload-too-large", "larger than 65536 bytes"},
		{"not an archive", upload{"application/x-tar", []byte(strings.Repeat("garbage!", 100))}, 400, "invalid-upload", "not a readable tar archive"},
		{"not gzip", upload{"application/gzip", []byte("garbage")}, 400, "invalid-upload", "not a gzip stream"},
		{"multipart without a boundary", upload{"multipart/form-data", []byte("x")}, 400, "invalid-upload", "without a boundary"},
		{"unknown media type", upload{"text/csv", []byte("a,b")}, 415, "unsupported-media-type", "text/csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", "/validate", bytes.NewReader(tt.up.body), "Content-Type", tt.up.contentType)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d:\n%s", r.status, tt.status, r.body)
			}
			p := problemOf(t, r)
			if p["type"] != ProblemBase+tt.kind || !strings.Contains(p["detail"].(string), tt.detail) {
				t.Errorf("problem %v, want %s mentioning %q", p, tt.kind, tt.detail)
			}
			left, _ := os.ReadDir(tmp)
			if len(left) != 0 {
				t.Errorf("the upload left %d entries in the temporary directory", len(left))
			}
		})
	}
}

// TestBodyLimitEveryPost: every POST answers 413 over --max-body-bytes.
func TestBodyLimitEveryPost(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxBodyBytes: 1024}})
	big := `{"document": "` + strings.Repeat("x", 2048) + `", "dataset": "x"}`
	for _, route := range []string{"/resolve", "/merge", "/policy/evaluate"} {
		r := do(t, h, "POST", route, strings.NewReader(big), "Content-Type", "application/json")
		if r.status != http.StatusRequestEntityTooLarge || problemOf(t, r)["type"] != ProblemBase+"payload-too-large" {
			t.Errorf("%s: %d %s", route, r.status, r.body)
		}
	}
	r := do(t, h, "POST", "/validate", bytes.NewReader(tarOf(t, entry{name: "a", typeflag: tar.TypeReg, body: strings.Repeat("x", 2048)})), "Content-Type", "application/x-tar")
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("/validate: %d %s", r.status, r.body)
	}
}

// holdCheck replaces the tree check with one that blocks until release is
// closed, and reports each run on started.
func holdCheck(t *testing.T) (started <-chan struct{}, release func()) {
	t.Helper()
	s := make(chan struct{}, 16)
	gate := make(chan struct{})
	var once sync.Once
	orig := runCheck
	runCheck = func(ctx context.Context, o check.Options) (*check.Report, error) {
		s <- struct{}{}
		<-gate
		return orig(ctx, o)
	}
	rel := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		rel()
		runCheck = orig
	})
	return s, rel
}

// TestValidationSlots: with every slot taken, POST /validate answers 429 with
// Retry-After at once (it does not queue); a freed slot is usable again.
func TestValidationSlots(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxConcurrentValidations: 2}})
	tree := tarOf(t, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	started, release := holdCheck(t)
	var wg sync.WaitGroup
	held := make([]response, 2)
	for i := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			held[i] = do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar")
		}()
	}
	<-started
	<-started // both slots are taken now

	var busy response
	testctx.Within(t, "the third validation", func() {
		busy = do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	})
	if busy.status != http.StatusTooManyRequests || busy.header.Get("Retry-After") != "2" {
		t.Fatalf("with every slot taken: %d, Retry-After %q, want 429 and 2\n%s", busy.status, busy.header.Get("Retry-After"), busy.body)
	}
	p := problemOf(t, busy)
	if p["type"] != ProblemBase+"busy" || !strings.Contains(p["detail"].(string), "all 2 validation slots are busy") {
		t.Errorf("problem %v", p)
	}
	holdsToOpenAPI(t, "/validate", "post", busy)

	release()
	wg.Wait()
	for i, r := range held {
		if r.status != http.StatusOK {
			t.Errorf("held validation %d: %d %s", i, r.status, r.body)
		}
	}
	if r := do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar"); r.status != http.StatusOK {
		t.Errorf("after the slots were freed: %d %s", r.status, r.body)
	}
}

// TestValidationTimeout: a check that outlives --request-timeout answers 503
// timeout, and keeps its slot until it really ends, so timed-out checks
// cannot pile up beyond the slot count.
func TestValidationTimeout(t *testing.T) {
	_, st := testServer(t)
	h, srv := newServer(Deps{Store: st, Limits: Limits{RequestTimeout: 50 * time.Millisecond, MaxConcurrentValidations: 1}})
	tree := tarOf(t, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	_, release := holdCheck(t)
	r := do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	if r.status != http.StatusServiceUnavailable || problemOf(t, r)["type"] != ProblemBase+"timeout" {
		t.Fatalf("%d %s, want 503 timeout", r.status, r.body)
	}
	holdsToOpenAPI(t, "/validate", "post", r)
	if len(srv.validations) != 1 {
		t.Errorf("the timed-out check gave its slot back while still running")
	}
	if r := do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar"); r.status != http.StatusTooManyRequests {
		t.Errorf("while the timed-out check runs: %d, want 429", r.status)
	}
	release()
	// The slot comes back once the check really ends: a validation is
	// accepted again (the channel's length alone orders nothing).
	deadline := time.Now().Add(time.Minute)
	for {
		r := do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar")
		if r.status != http.StatusTooManyRequests {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot was never given back")
		}
		time.Sleep(time.Millisecond)
	}
}

// holdsToOpenAPI validates a response against the schema openapi.yaml gives it.
func holdsToOpenAPI(t *testing.T, route, method string, r response) {
	t.Helper()
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	pointer, ok := responseSchema(t, loadOpenAPI(t), route, method, r.status, mt)
	if !ok {
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if err := newSchemaSet(t).compile(t, pointer).Validate(inst); err != nil {
		t.Errorf("%s %s %d does not match openapi.yaml: %v", method, route, r.status, err)
	}
}

func TestAuth(t *testing.T) {
	const token = "s3cr3t-t0ken-for-tests-0123456789"
	const other = "an0ther-t0ken-for-rotation-98765"
	_, st := testServer(t)
	var logs syncLog
	h, _ := newServer(Deps{Store: st, Tokens: NewTokens([]string{token, other}), Log: logs.logger()})
	tree := tarOf(t, entry{name: "apps/a/governance.yaml", typeflag: tar.TypeReg, body: "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	protected := []struct {
		method, target, route, contentType string
		body                               []byte
	}{
		{"POST", "/validate", "/validate", "application/x-tar", tree},
		{"POST", "/resolve", "/resolve", "application/json", []byte(`{"document": "defaults: {}\nsources: {}\n", "dataset": "x"}`)},
		{"POST", "/merge", "/merge", "application/json", []byte(`{"base": {}, "override": {}}`)},
		{"POST", "/policy/evaluate", "/policy/evaluate", "application/json", []byte(`{"policy": "version: 1\nrules: []\n", "changeset": {"changeset_version": 1, "changes": []}}`)},
		{"GET", "/metrics", "/metrics", "", nil},
		{"HEAD", "/metrics", "/metrics", "", nil},
	}
	creds := []struct {
		name, header string
		status       int
		challenge    string
	}{
		{"none", "", 401, `Bearer realm="governanced"`},
		{"wrong token", "Bearer not-the-token-at-all-000000", 401, `Bearer realm="governanced", error="invalid_token"`},
		{"a prefix of the token", "Bearer " + token[:20], 401, `Bearer realm="governanced", error="invalid_token"`},
		{"the token and more", "Bearer " + token + "x", 401, `Bearer realm="governanced", error="invalid_token"`},
		{"basic", "Basic " + token, 401, `Bearer realm="governanced", error="invalid_token"`},
		{"no scheme", token, 401, `Bearer realm="governanced", error="invalid_token"`},
		{"empty bearer", "Bearer ", 401, `Bearer realm="governanced", error="invalid_token"`},
		{"the token", "Bearer " + token, 200, ""},
		{"the second token", "Bearer " + other, 200, ""},
		{"lower-case scheme", "bearer " + token, 200, ""},
	}
	for _, p := range protected {
		for _, c := range creds {
			t.Run(p.method+p.target+"/"+c.name, func(t *testing.T) {
				hdr := []string{}
				if p.contentType != "" {
					hdr = append(hdr, "Content-Type", p.contentType)
				}
				if c.header != "" {
					hdr = append(hdr, "Authorization", c.header)
				}
				r := do(t, h, p.method, p.target, bytes.NewReader(p.body), hdr...)
				if r.status != c.status {
					t.Fatalf("status %d, want %d\n%s", r.status, c.status, r.body)
				}
				if got := r.header.Get("WWW-Authenticate"); got != c.challenge {
					t.Errorf("WWW-Authenticate %q, want %q", got, c.challenge)
				}
				if c.status == 401 && p.method != "HEAD" {
					if pr := problemOf(t, r); pr["type"] != ProblemBase+"unauthorized" {
						t.Errorf("problem %v", pr)
					}
					holdsToOpenAPI(t, p.route, strings.ToLower(p.method), r)
				}
			})
		}
	}
	// The tree's read routes stay open.
	for _, target := range []string{"/healthz", "/readyz", "/status", "/apps", "/datasets", "/datasets/datasets.gold.meters/rule", "/owners", "/report", "/openapi.yaml", "/schemas/governance"} {
		if r := do(t, h, "GET", target, nil); r.status != 200 {
			t.Errorf("GET %s without a token: %d", target, r.status)
		}
	}
	for _, secret := range []string{token, other, token[:20]} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("a token reached the log:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("refused requests are not logged:\n%.2000s", logs.String())
	}
}

// syncLog collects the server's log lines for a test to read.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) logger() zerolog.Logger { return zerolog.New(l).Level(zerolog.DebugLevel) }

// TestAuthOffByDefault: without tokens nothing asks for one.
func TestAuthOffByDefault(t *testing.T) {
	h, _ := testServer(t)
	for _, target := range []string{"/metrics"} {
		r := do(t, h, "GET", target, nil)
		if diff := cmp.Diff([]any{200, ""}, []any{r.status, r.header.Get("WWW-Authenticate")}); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", target, diff)
		}
	}
}

// TestDocumentSizeLimit: a governance file over the YAML reader's 64 MiB is
// refused by size before it is parsed — in an upload (a small gzip body that
// extracts to it, within --max-upload-bytes) and in a served tree.
func TestDocumentSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 65 MiB files")
	}
	big := "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n# " + strings.Repeat("x", 65<<20) + "\n"
	const msg = "more than the limit of 67108864"

	// Uploads have a lower limit of their own (MaxUploadDocumentBytes,
	// TestUploadBudget); above the reader's, the reader's governs. Knowing
	// the size takes extracting 65 MiB, which under the race detector on a
	// loaded machine outlasted the default request timeout: the test is
	// about the size, so the server has time.
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxUploadDocumentBytes: 128 << 20, RequestTimeout: 10 * time.Minute}})
	body := gzipOf(uploadOf(t, map[string]string{"apps/a/governance.yaml": big}))
	r := doLong(t, h, "POST", "/validate", bytes.NewReader(body), "Content-Type", "application/gzip")
	rep := decodeReport(t, r)
	if rep.OK || len(rep.Findings) == 0 || rep.Findings[0].Code != "load-error" || rep.Findings[0].File != "apps/a/governance.yaml" || !strings.Contains(rep.Findings[0].Message, msg) {
		t.Errorf("the upload's report does not refuse the size: %+v", rep)
	}

	dir := t.TempDir()
	store := faultStore(t, dir)
	good := store.Current()
	testfs.Write(t, dir, map[string]string{"apps/b/governance.yaml": big})
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Rejected || store.Current() != good || !strings.Contains(st.Err.Error(), msg) {
		t.Errorf("a 65 MiB file in the served tree: %v (%v)", st.Outcome, st.Err)
	}
}

// TestOperationSlots: with every operation slot taken, each stateless
// operation answers 429 with Retry-After at once; freed, it runs again.
func TestOperationSlots(t *testing.T) {
	_, st := testServer(t)
	h, s := newServer(Deps{Store: st, Limits: Limits{MaxConcurrentOps: 2}})
	ops := []struct{ target, body string }{
		{"/resolve", `{"document": "defaults: {}", "dataset": "ds.x"}`},
		{"/merge", `{"base": {"tags": ["a"]}, "override": {"tags": ["b"]}}`},
		{"/policy/evaluate", `{"policy": "version: 1\nrules: []\n", "changeset": {"changeset_version": 1, "changes": []}}`},
	}
	s.ops <- struct{}{}
	s.ops <- struct{}{} // both slots are taken now, as by two running operations
	for _, op := range ops {
		var busy response
		testctx.Within(t, op.target+" with no slot", func() {
			busy = do(t, h, "POST", op.target, strings.NewReader(op.body), "Content-Type", "application/json")
		})
		if busy.status != http.StatusTooManyRequests || busy.header.Get("Retry-After") != "1" {
			t.Fatalf("%s with every slot taken: %d, Retry-After %q, want 429 and 1\n%s", op.target, busy.status, busy.header.Get("Retry-After"), busy.body)
		}
		if p := problemOf(t, busy); p["type"] != ProblemBase+"busy" || !strings.Contains(p["detail"].(string), "all 2 operation slots are busy") {
			t.Errorf("%s: problem %v", op.target, p)
		}
		holdsToOpenAPI(t, op.target, "post", busy)
	}
	<-s.ops
	for _, op := range ops {
		if r := do(t, h, "POST", op.target, strings.NewReader(op.body), "Content-Type", "application/json"); r.status != http.StatusOK {
			t.Errorf("%s with a slot free: %d %s", op.target, r.status, r.body)
		}
	}
	if len(s.ops) != 1 {
		t.Errorf("%d slots held after the operations ended, want the 1 still taken", len(s.ops))
	}
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check/checktest"
	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// servedFiles is the test tree as an upload of its root holds it.
func servedFiles(t testing.TB) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(testTree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(testTree, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func edited(t testing.TB, files map[string]string, name, old, new string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	if !strings.Contains(out[name], old) {
		t.Fatalf("%s does not hold %q", name, old)
	}
	out[name] = strings.Replace(out[name], old, new, 1)
	return out
}

// multipartDiff is a multipart body with the named archives as parts.
func multipartDiff(t testing.TB, parts ...any) (body []byte, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := mw.CreateFormFile(parts[i].(string), parts[i].(string)+".tar")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(parts[i+1].([]byte))
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func diffReport(t *testing.T, r response) diff.Report {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var rep diff.Report
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.body)
	}
	return rep
}

// TestDiffAgainstTheServedTree: the upload stands in for the served root,
// checked with the served options; its unchanged apps are the served ones.
func TestDiffAgainstTheServedTree(t *testing.T) {
	h, store := testServer(t)
	served := store.Current()
	files := servedFiles(t)

	same := diffReport(t, do(t, h, "POST", "/diff", bytes.NewReader(uploadOf(t, files)), "Content-Type", "application/x-tar"))
	if !same.Empty() || same.Base.Revision != served.Revision || same.Head.Revision != served.Revision {
		t.Errorf("the served tree uploaded: revisions %s / %s (served %s), %d datasets changed", same.Base.Revision, same.Head.Revision, served.Revision, len(same.Datasets))
	}

	// The overlay stops withdrawing meters from the dataspace, and a glob
	// key is narrowed: the narrow glob's text resolved through the wide one
	// to the same rule (no change), the wide one's no longer resolves.
	head := edited(t, files, "apps/meters/governance.meters.yaml", "      expose: false\n", "      expose: true\n")
	head = edited(t, head, "apps/meters/governance.yaml", "  datasets.gold.*:\n", "  datasets.gold.m*:\n")
	rep := diffReport(t, do(t, h, "POST", "/diff", bytes.NewReader(gzipOf(uploadOf(t, head)))))
	var got []string
	for _, d := range rep.Datasets {
		got = append(got, d.Status+" "+d.App+" "+d.Dataset+" "+strings.Trim(strings.ReplaceAll(strings.Trim(jsonOf(d.Kinds), "[]"), `"`, ""), " "))
	}
	want := []string{
		"removed meters datasets.gold.* dataset-removed,catalogue-withdrawn",
		"changed meters datasets.gold.meters field-changed,dataspace-offered",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	if rep.Head.Revision == served.Revision || rep.Base.Revision != served.Revision {
		t.Errorf("revisions base %s head %s; the served one is %s", rep.Base.Revision, rep.Head.Revision, served.Revision)
	}
	if store.Current() != served {
		t.Error("a diff swapped its upload in")
	}
	for _, d := range rep.Datasets {
		for _, x := range d.Derived {
			if x.Kind == diff.DataspaceOffered && (x.Origin == nil || x.Origin.File != "apps/meters/governance.meters.yaml" || x.Origin.Line != 7) {
				t.Errorf("dataspace-offered at %+v, want the overlay's line 7, named as the served tree names it", x.Origin)
			}
		}
	}

	md := do(t, h, "POST", "/diff", bytes.NewReader(uploadOf(t, head)), "Content-Type", "application/x-tar", "Accept", "text/markdown")
	if md.status != 200 || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") || !bytes.Contains(md.body, []byte("#### Risky changes")) {
		t.Errorf("Accept: text/markdown: %d %s\n%s", md.status, md.header.Get("Content-Type"), md.body)
	}
	if r := do(t, h, "POST", "/diff?owners=owners.yaml", bytes.NewReader(uploadOf(t, head)), "Content-Type", "application/x-tar"); r.status != 400 {
		t.Errorf("options against the served tree: %d %s, want 400", r.status, r.body)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDiffOfTwoUploads: with a base part the two uploads are compared,
// checked with the query's options, each relative to its own root.
func TestDiffOfTwoUploads(t *testing.T) {
	h, _ := testServer(t)
	files := servedFiles(t)
	head := edited(t, files, "owners.yaml", "aliases: [rec]", "aliases: []")
	body, ct := multipartDiff(t, "base", uploadOf(t, files), "head", gzipOf(uploadOf(t, head)))
	rep := diffReport(t, do(t, h, "POST", "/diff?owners=owners.yaml", bytes.NewReader(body), "Content-Type", ct))
	if rep.Count(diff.OwnerChanged) == 0 {
		t.Errorf("the head's registry no longer resolves rec: kinds %+v", rep.Kinds)
	}
	// Without the registry, neither side resolves names: no owner changes.
	rep = diffReport(t, do(t, h, "POST", "/diff", bytes.NewReader(body), "Content-Type", ct))
	if !rep.Empty() {
		t.Errorf("without owners: %+v", rep.Datasets)
	}
}

func TestDiffRefuses(t *testing.T) {
	h, _ := testServer(t)
	tree := uploadOf(t, servedFiles(t))
	twice, twiceCT := multipartDiff(t, "head", tree, "head", tree)
	other, otherCT := multipartDiff(t, "head", tree, "extra", tree)
	none, noneCT := multipartDiff(t, "base", tree)
	notArchive, notArchiveCT := multipartDiff(t, "head", []byte("defaults: {}\n"))
	base, baseCT := multipartDiff(t, "head", tree, "base", tree)
	for _, tc := range []struct {
		name, target, ct string
		body             []byte
		status           int
		kind             string
	}{
		{"format", "/diff?format=yaml", "application/x-tar", tree, 400, "bad-request"},
		{"not a tar", "/diff", "application/x-tar", []byte("nope"), 400, "invalid-upload"},
		{"media type", "/diff", "text/csv", tree, 415, "unsupported-media-type"},
		{"a part twice", "/diff", twiceCT, twice, 400, "invalid-upload"},
		{"an unknown part", "/diff", otherCT, other, 400, "invalid-upload"},
		{"no head", "/diff", noneCT, none, 400, "invalid-upload"},
		{"a part that is no archive", "/diff", notArchiveCT, notArchive, 400, "invalid-upload"},
		{"path", "/diff?path=apps/*", baseCT, base, 400, "bad-request"},
		{"an option against the served tree", "/diff?strict=true", "application/x-tar", tree, 400, "bad-request"},
		{"infer_from_dir not a boolean", "/diff?infer_from_dir=maybe", baseCT, base, 400, "bad-request"},
		{"dataspace without owners", "/diff?dataspace=true", baseCT, base, 400, "bad-request"},
		{"overlay name", "/diff?overlay_name=a/b", baseCT, base, 400, "bad-request"},
	} {
		r := do(t, h, "POST", tc.target, bytes.NewReader(tc.body), "Content-Type", tc.ct)
		if r.status != tc.status || problemOf(t, r)["type"] != ProblemBase+tc.kind {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.kind)
		}
		holdsToOpenAPI(t, "/diff", "post", r)
	}
}

// TestDiffLimits: both archives count against the upload limits together.
func TestDiffLimits(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxUploadFiles: 8}})
	tree := uploadOf(t, servedFiles(t)) // 5 files
	body, ct := multipartDiff(t, "head", tree, "base", tree)
	if r := do(t, h, "POST", "/diff", bytes.NewReader(body), "Content-Type", ct); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("two archives of 5 files under a limit of 8: %d %s, want 413", r.status, r.body)
	}
	if r := do(t, h, "POST", "/diff", bytes.NewReader(tree), "Content-Type", "application/x-tar"); r.status != http.StatusOK {
		t.Errorf("one archive of 5 files: %d %s", r.status, r.body)
	}
}

// TestDiffSharesTheValidationSlots: a diff takes a validation slot, and is
// refused with 429 when a validation holds the last one.
func TestDiffSharesTheValidationSlots(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxConcurrentValidations: 1}})
	tree := uploadOf(t, servedFiles(t))
	started, release := holdCheck(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	}()
	<-started
	busy := do(t, h, "POST", "/diff", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	if busy.status != http.StatusTooManyRequests || busy.header.Get("Retry-After") == "" {
		t.Errorf("with the one slot taken: %d %s, want 429", busy.status, busy.body)
	}
	holdsToOpenAPI(t, "/diff", "post", busy)
	release()
	wg.Wait()

	// A diff in progress holds the slot in its turn.
	gate, entered := make(chan struct{}), make(chan struct{})
	orig := buildDiff
	buildDiff = func(ctx context.Context, s *snapshot.Store, req *diffRequest) (*diffTrees, error) {
		close(entered)
		<-gate
		return orig(ctx, s, req)
	}
	t.Cleanup(func() { buildDiff = orig })
	wg.Add(1)
	var held response
	go func() {
		defer wg.Done()
		held = do(t, h, "POST", "/diff", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	}()
	<-entered
	if r := do(t, h, "POST", "/validate", bytes.NewReader(tree), "Content-Type", "application/x-tar"); r.status != http.StatusTooManyRequests {
		t.Errorf("a validation while a diff holds the slot: %d, want 429", r.status)
	}
	close(gate)
	wg.Wait()
	if held.status != http.StatusOK {
		t.Errorf("the held diff: %d %s", held.status, held.body)
	}
}

// TestDiffBeforeTheFirstLoad: with nothing served the served tree cannot
// be the base (503); two uploads can still be compared.
func TestDiffBeforeTheFirstLoad(t *testing.T) {
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{t.TempDir()}}})
	h, _ := newServer(Deps{Store: store})
	tree := uploadOf(t, servedFiles(t))
	r := do(t, h, "POST", "/diff", bytes.NewReader(tree), "Content-Type", "application/x-tar")
	if r.status != http.StatusServiceUnavailable || problemOf(t, r)["type"] != ProblemBase+"not-ready" {
		t.Errorf("before the first load: %d %s, want 503 not-ready", r.status, r.body)
	}
	holdsToOpenAPI(t, "/diff", "post", r)
	body, ct := multipartDiff(t, "head", tree, "base", tree)
	if r := do(t, h, "POST", "/diff", bytes.NewReader(body), "Content-Type", ct); r.status != http.StatusOK {
		t.Errorf("two uploads before the first load: %d %s", r.status, r.body)
	}
}

// TestDiffFormats: every format of POST /diff is chosen alike by the
// format parameter and by the Accept header, to the same body; the
// parameter wins over the header, and without either the answer is JSON.
func TestDiffFormats(t *testing.T) {
	h, _ := testServer(t)
	head := uploadOf(t, edited(t, servedFiles(t), "apps/meters/governance.meters.yaml", "      expose: false\n", "      expose: true\n"))
	post := func(target string, header ...string) response {
		t.Helper()
		r := do(t, h, "POST", target, bytes.NewReader(head), append([]string{"Content-Type", "application/x-tar"}, header...)...)
		if r.status != 200 {
			t.Fatalf("POST %s %v: %d %s", target, header, r.status, r.body)
		}
		if r.header.Get("Content-Type") == jsonType {
			holdsToOpenAPI(t, "/diff", "post", r)
		}
		return r
	}
	for _, tc := range []struct {
		format, accept, contentType, holds string
	}{
		{"json", "application/json", jsonType, `"dataspace-offered"`},
		{"markdown", "text/markdown", "text/markdown; charset=utf-8", "#### Risky changes"},
		{"text", "text/plain", "text/plain; charset=utf-8", "dataspace-offered"},
		{"sarif", "application/sarif+json", "application/sarif+json", `"ruleId": "dataspace-offered"`},
	} {
		t.Run(tc.format, func(t *testing.T) {
			byParam := post("/diff?format=" + tc.format)
			byAccept := post("/diff", "Accept", tc.accept+"; q=0.9, application/json; q=0.5")
			for name, r := range map[string]response{"?format=": byParam, "Accept": byAccept} {
				if ct := r.header.Get("Content-Type"); ct != tc.contentType {
					t.Errorf("by %s: Content-Type %q, want %q", name, ct, tc.contentType)
				}
				if !bytes.Contains(r.body, []byte(tc.holds)) {
					t.Errorf("by %s: the body lacks %q:\n%s", name, tc.holds, r.body)
				}
			}
			if !bytes.Equal(byParam.body, byAccept.body) {
				t.Errorf("?format=%s and Accept: %s differ:\n%s\n---\n%s", tc.format, tc.accept, byParam.body, byAccept.body)
			}
			if r := post("/diff?format="+tc.format, "Accept", "text/markdown"); !bytes.Equal(r.body, byParam.body) {
				t.Errorf("?format=%s with Accept: text/markdown: the header won", tc.format)
			}
		})
	}
	for _, accept := range []string{"", "*/*", "text/markdown; q=0, application/json", "image/png"} {
		if r := post("/diff", "Accept", accept); r.header.Get("Content-Type") != jsonType {
			t.Errorf("Accept %q: %s, want JSON", accept, r.header.Get("Content-Type"))
		}
	}
}

// TestDiffSARIF: POST /diff's SARIF log, asked for by ?format=sarif or by
// Accept: application/sarif+json, validates against the SARIF 2.1.0
// schema and places every change at the upload's file relative to
// %SRCROOT%, the repository's root, with a warning for a risky kind.
func TestDiffSARIF(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	h, _ := testServer(t)
	head := uploadOf(t, edited(t, servedFiles(t), "apps/meters/governance.meters.yaml", "      expose: false\n", "      expose: true\n"))
	for name, header := range map[string][]string{
		"?format=sarif": {"Content-Type", "application/x-tar"},
		"Accept":        {"Content-Type", "application/x-tar", "Accept", "application/sarif+json"},
	} {
		t.Run(name, func(t *testing.T) {
			target := "/diff"
			if name == "?format=sarif" {
				target += "?format=sarif"
			}
			r := do(t, h, "POST", target, bytes.NewReader(head), header...)
			if r.status != 200 || r.header.Get("Content-Type") != "application/sarif+json" {
				t.Fatalf("%d %s\n%s", r.status, r.header.Get("Content-Type"), r.body)
			}
			where := servedSARIF(t, schema, r.body)
			if !slices.Contains(where, "%SRCROOT% apps/meters/governance.meters.yaml") {
				t.Errorf("no result at the overlay the change is in: %v", where)
			}
			run := checktest.ReadSARIF(t, schema, r.body).Runs[0]
			props := checktest.SARIFProperties[struct {
				Page diffPage `json:"page"`
			}](t, run.Properties)
			if p := props.Page; p.Limit != defaultDiffLimit || p.Total.Datasets == 0 || p.NextOffset != nil {
				t.Errorf("page %+v, want the whole report's", p)
			}
			offered := false
			for _, res := range run.Results {
				if res.RuleID == "dataspace-offered" {
					offered = true
					if res.Level != "warning" {
						t.Errorf("dataspace-offered at level %s, want warning", res.Level)
					}
				}
			}
			if !offered {
				t.Errorf("no dataspace-offered result:\n%s", r.body)
			}
		})
	}
}

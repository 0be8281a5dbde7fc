package api

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testctx"
	"github.com/celine-eu/governanced/internal/testfs"
)

// The library's behaviour on the wire: what a consumer of celine.governance
// did locally (normalise a level, ask is_empty, name its producer, resolve
// owners strictly, validate one document), each as a request, each with the
// library's answer as the expectation: the conformance cases where they
// exist, else celine-utils 2.4.0's answer computed for the case.

// treeServer serves files (slash path → content) laid out in a temporary
// directory, with the owners registry at owners.yaml when there is one.
func treeServer(t *testing.T, files map[string]string) http.Handler {
	t.Helper()
	store, err := loadTree(t, files)
	if err != nil {
		t.Fatalf("loading the tree: %v", err)
	}
	h, _ := newServer(Deps{Store: store})
	return h
}

// loadTree loads files as a served tree, or says why the reload refused it.
func loadTree(t *testing.T, files map[string]string) (*snapshot.Store, error) {
	t.Helper()
	dir := testfs.Tree(t, files)
	in := snapshot.Inputs{Trees: []string{dir}}
	if _, ok := files["owners.yaml"]; ok {
		in.Owners = []string{filepath.Join(dir, "owners.yaml")}
	}
	store := snapshot.NewStore(&snapshot.Loader{Inputs: in})
	if st := store.Reload(context.Background(), true); st.Outcome != snapshot.Activated {
		return nil, st.Err
	}
	return store, nil
}

// conformanceCase is the part of a conformance case these tests read.
type conformanceCase struct {
	ID        string          `json:"id"`
	Operation string          `json:"operation"`
	Args      json.RawMessage `json:"args"`
	Inputs    map[string]struct {
		Text *string `json:"text"`
		Ref  *string `json:"ref"`
	} `json:"inputs"`
	Expected      json.RawMessage `json:"expected"`
	ExpectedError json.RawMessage `json:"expected_error"`
}

// conformanceCases reads the cases of one operation from the conformance
// files matching pattern, failing when fewer than min are found.
func conformanceCases(t *testing.T, pattern, operation string, min int) []conformanceCase {
	t.Helper()
	dir := testcorpus.Dir(t, "GOVERNANCE_CONFORMANCE_DIR", "conformance")
	var out []conformanceCase
	for _, f := range testcorpus.Glob(t, dir, pattern, 1) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Cases []conformanceCase `json:"cases"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range file.Cases {
			if c.Operation == operation {
				out = append(out, c)
			}
		}
	}
	testcorpus.AtLeast(t, pattern+" "+operation, len(out), min)
	return out
}

// input is a case's input file, read from the case or from the reference
// files beside the conformance directory.
func (c conformanceCase) input(t *testing.T, name string) string {
	t.Helper()
	in, ok := c.Inputs[name]
	switch {
	case !ok:
		t.Fatalf("%s: no input %q", c.ID, name)
	case in.Text != nil:
		return *in.Text
	case in.Ref != nil:
		dir := testcorpus.Dir(t, "GOVERNANCE_CONFORMANCE_DIR", "conformance")
		b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), filepath.FromSlash(*in.Ref)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Fatalf("%s: input %q has neither text nor ref", c.ID, name)
	return ""
}

// levelTree has one dataset for each level a served rule may state (the
// schema's enum; an upper-case level is a schema violation and never served),
// and none.
var levelTree = map[string]string{
	"apps/a/governance.yaml": `defaults: {}
sources:
  ds.open: {access_level: open, classification: green}
  ds.internal: {access_level: internal, classification: yellow}
  ds.restricted: {access_level: restricted, classification: red}
  ds.secret: {access_level: secret, classification: pii}
  ds.none: {title: no level}
`,
}

// levelOf is what each dataset of levelTree states, as written.
var levelOf = map[string][2]string{
	"ds.open": {"open", "green"}, "ds.internal": {"internal", "yellow"}, "ds.restricted": {"restricted", "red"},
	"ds.secret": {"secret", "pii"}, "ds.none": {"", ""},
}

// libraryLevels normalises as celine-utils 2.4.0 does (the conformance
// cases hold it to that), for the expectation of a filter.
func libraryLevels(v string) string {
	switch v = strings.ToLower(v); v {
	case "secret":
		return "restricted"
	default:
		return v
	}
}

// TestLevelFilters: a listing filter keeps the datasets whose level
// normalises to what the filter normalises to (the conformance cases of
// normalize_access_level and normalize_classification), a value the
// library refuses is 400, and the served rule keeps its level as written.
func TestLevelFilters(t *testing.T) {
	h := treeServer(t, levelTree)
	listed := func(t *testing.T, query string) (int, []string) {
		r := do(t, h, "GET", "/datasets?"+query, nil)
		if r.status != http.StatusOK {
			return r.status, nil
		}
		var ids []string
		for _, it := range decodeBody(t, r)["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		sort.Strings(ids)
		return r.status, ids
	}
	params := map[string]struct {
		param string
		field int
	}{
		"normalize_access_level":   {"access_level", 0},
		"normalize_classification": {"classification", 1},
	}
	cases := append(conformanceCases(t, "syn-levels.json", "normalize_access_level", 10),
		conformanceCases(t, "syn-levels.json", "normalize_classification", 7)...)
	ran := 0
	for _, c := range cases {
		var args struct {
			Value any `json:"value"`
		}
		if err := json.Unmarshal(c.Args, &args); err != nil {
			t.Fatal(err)
		}
		v, isString := args.Value.(string)
		// A query parameter is a string; an absent or empty one is no
		// filter at all (the listing's meaning, not a level).
		if !isString || v == "" {
			continue
		}
		p := params[c.Operation]
		t.Run(c.ID, func(t *testing.T) {
			status, got := listed(t, p.param+"="+url.QueryEscape(v))
			if c.ExpectedError != nil {
				if status != http.StatusBadRequest {
					t.Fatalf("%s=%q: status %d, want 400 (the library refuses it)", p.param, v, status)
				}
				return
			}
			var want struct {
				Value string `json:"value"`
			}
			if err := json.Unmarshal(c.Expected, &want); err != nil {
				t.Fatal(err)
			}
			var wantIDs []string
			for id, levels := range levelOf {
				if levels[p.field] != "" && libraryLevels(levels[p.field]) == want.Value {
					wantIDs = append(wantIDs, id)
				}
			}
			sort.Strings(wantIDs)
			if status != http.StatusOK || !cmp.Equal(wantIDs, got) {
				t.Errorf("%s=%q: status %d, %v; want %v (the datasets whose level normalises to %q)", p.param, v, status, got, wantIDs, want.Value)
			}
		})
		ran++
	}
	testcorpus.AtLeast(t, "level cases with a string value", ran, 12)

	// The other spellings a consumer may send, and the rule as served.
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"access_level=SECRET", []string{"ds.restricted", "ds.secret"}},
		{"access_level=Restricted", []string{"ds.restricted", "ds.secret"}},
		{"access_level=INTERNAL&classification=Yellow", []string{"ds.internal"}},
	} {
		if status, got := listed(t, tt.query); status != http.StatusOK || !cmp.Equal(tt.want, got) {
			t.Errorf("%s: status %d, %v; want %v", tt.query, status, got, tt.want)
		}
	}
	r := do(t, h, "GET", "/datasets/ds.secret/rule", nil)
	if level := decodeBody(t, r)["rule"].(map[string]any)["access_level"]; level != "secret" {
		t.Errorf("the served rule's access_level is %v, want secret as written (the library's resolve keeps it)", level)
	}
}

// TestIsEmpty: every rule body says whether the library's is_empty holds
// for the rule, and the facet is answered either way. The expectations are
// celine-utils 2.4.0's is_empty(parse_rule(block)) for each block.
func TestIsEmpty(t *testing.T) {
	cases := []struct {
		name, block string
		empty       bool
	}{
		{"nothing", `{}`, true},
		{"title", `{title: t}`, false},
		{"empty title", `{title: ""}`, true},
		{"dataspace only", `{dataspace: {medallion: gold, expose: true}}`, true},
		{"expose only", `{expose: true}`, true},
		{"zero retention", `{retention_days: 0}`, false},
		{"empty tags", `{tags: []}`, true},
		{"owner", `{ownership: [{name: rec, type: OWNER}]}`, false},
		{"dcat only", `{dcat: {themes: [x]}}`, true},
		{"ontology only", `{ontology: {spec: obs}}`, true},
		{"unknown key only", `{team: x}`, true},
		{"row filter", `{row_filters: [{handler: rec_registry, args: {column: user_id}}]}`, false},
		{"legacy filter column", `{user_filter_column: user_id}`, true},
		{"null license", `{license: null}`, true},
		{"secret level", `{access_level: secret}`, false},
		{"classification", `{classification: green}`, false},
		{"access requirements", `{access_requirements: partner}`, false},
		{"documentation url", `{documentation_url: "https://example.org"}`, false},
		{"source system", `{source_system: s}`, false},
		{"attribution", `{attribution: a}`, false},
		{"description", `{description: d}`, false},
	}
	var doc strings.Builder
	doc.WriteString("defaults: {}\nsources:\n")
	for i, c := range cases {
		doc.WriteString("  ds.c" + string(rune('a'+i)) + ": " + c.block + "\n")
	}
	h := treeServer(t, map[string]string{"apps/a/governance.yaml": doc.String()})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := "ds.c" + string(rune('a'+i))
			r := do(t, h, "GET", "/datasets/"+id+"/rule", nil)
			if r.status != http.StatusOK {
				t.Fatalf("status %d\n%s", r.status, r.body)
			}
			if got := decodeBody(t, r)["is_empty"]; got != c.empty {
				t.Errorf("is_empty %v, want %v (the library's is_empty)", got, c.empty)
			}
			if r := do(t, h, "GET", "/datasets/"+id+"/facet", nil); r.status != http.StatusOK {
				t.Errorf("facet: status %d, want 200", r.status)
			}
			body := `{"document": ` + jsonString("defaults: {}\nsources: {"+id+": "+c.block+"}") + `, "dataset": "` + id + `"}`
			r = do(t, h, "POST", "/resolve", strings.NewReader(body), "Content-Type", "application/json")
			if got := decodeBody(t, r)["is_empty"]; r.status != http.StatusOK || got != c.empty {
				t.Errorf("POST /resolve: status %d, is_empty %v, want %v", r.status, got, c.empty)
			}
		})
	}
}

// TestFacetProducer: GET /datasets/{id}/facet?producer=…&include_dataspace=…
// answers every facet case of the conformance suite (the real files' and the
// synthetic ones) exactly as the library's build_facet(rule, producer, …)
// did, the producer being the caller's.
func TestFacetProducer(t *testing.T) {
	cases := conformanceCases(t, "*.json", "facet", 459)
	// The cases whose input the tree check refuses, so that no server
	// serves it: bare ownership names, which the library reads and the
	// schema does not allow.
	refused := map[string]bool{
		"syn.facet.projection.full-with-dataspace":    true,
		"syn.facet.projection.full-without-dataspace": true,
	}
	served := map[string]http.Handler{} // by document text
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			var args struct {
				Block, Document, Dataset string
				IncludeDataspace         bool `json:"include_dataspace"`
				Producer                 string
			}
			if err := json.Unmarshal(c.Args, &args); err != nil {
				t.Fatal(err)
			}
			// A block is served as an app's defaults, which a name matching
			// none of its keys resolves to; a document as the app's file.
			doc, name := "", args.Dataset
			switch {
			case args.Block == "":
				doc = c.input(t, args.Document)
			case strings.TrimSpace(c.input(t, args.Block)) == "": // no block at all: nothing stated
				doc, name = "sources: {}\ndefaults: {}\n", "any.dataset"
			default:
				doc, name = "sources: {}\ndefaults:\n"+indentAll(c.input(t, args.Block)), "any.dataset"
			}
			if refused[c.ID] {
				if _, err := loadTree(t, map[string]string{"apps/a/governance.yaml": doc}); err == nil {
					t.Fatal("the tree check serves this case now: drop it from the refused cases")
				}
				return
			}
			h, ok := served[doc]
			if !ok {
				h = treeServer(t, map[string]string{"apps/a/governance.yaml": doc})
				served[doc] = h
			}
			target := "/datasets/" + url.PathEscape(name) + "/facet?app=a&producer=" + url.QueryEscape(args.Producer)
			if !args.IncludeDataspace {
				target += "&include_dataspace=false"
			}
			r := do(t, h, "GET", target, nil)
			if r.status != http.StatusOK {
				t.Fatalf("%s: status %d\n%s", target, r.status, r.body)
			}
			var got, want any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(c.Expected, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-library +served):\n%s", target, diff)
			}
		})
	}
	// Without a producer the service writes its own; an empty one is refused.
	h := treeServer(t, map[string]string{"apps/a/governance.yaml": "defaults: {title: t}\nsources: {}\n"})
	if got := decodeBody(t, do(t, h, "GET", "/datasets/x/facet?app=a", nil))["_producer"]; got != "https://github.com/celine-eu/governanced" {
		t.Errorf("default _producer %v", got)
	}
	if r := do(t, h, "GET", "/datasets/x/facet?app=a&producer=", nil); r.status != http.StatusBadRequest {
		t.Errorf("an empty producer: status %d, want 400", r.status)
	}
}

// TestResolveStrict: POST /resolve?strict=true is the library's
// strict_owners. The document, registry and placeholder map are the
// specification's worked example (examples.md E18), whose answers are the
// expectations: strict fails naming every unresolved name and its places,
// lenient keeps them as written.
func TestResolveStrict(t *testing.T) {
	h, _ := testServer(t)
	registry := `owners:
  - {id: example-rec, type: schema:NGO, name: Example REC, url: https://rec.example, aliases: [rec, community]}
  - {id: example-dso, type: schema:Corporation, name: Example DSO, url: https://dso.example, did: did:web:dso.example}
  - {id: spxl, type: schema:Corporation, name: Spindox Labs srl, url: https://spindoxlabs.com/en}
`
	placeholders := `{"dso": "example-dso", "rec": "example-rec", "spxl": "someone-else", "community": "missing-org"}`
	document := `defaults:
  ownership: [{name: dso, type: DATA_OWNER}]
sources:
  ds.a:
    ownership: [rec, {name: example-rec}]
  ds.b:
    ownership: [{name: spxl, type: DATA_OWNER}, {name: spxl, type: PROCESSOR}]
  ds.c:
    ownership: [acme, {name: ghost}, acme]
  ds.d:
    ownership: [community]
  ds.e:
    title: inherits defaults owners
`
	// The overlay withdraws ds.c's unresolved names: strict resolution runs
	// after the merge, never per file.
	overlay := "sources:\n  ds.c:\n    ownership: [example-rec]\n"
	request := func(dataset, overlay string, withOwners bool) string {
		b := `{"document": ` + jsonString(document) + `, "dataset": "` + dataset + `"`
		if overlay != "" {
			b += `, "overlay": ` + jsonString(overlay)
		}
		if withOwners {
			b += `, "owners": ` + jsonString(registry) + `, "placeholders": ` + placeholders
		}
		return b + "}"
	}
	for _, tt := range []struct {
		name, query, body string
		status            int
		ownership         []any // the resolved rule's, on 200
		unresolved        []any // the problem's, on 422
	}{
		{"strict fails on any name of the document", "?strict=true", request("ds.a", "", true), 422, nil,
			[]any{map[string]any{"name": "acme", "places": []any{"sources/ds.c"}}, map[string]any{"name": "ghost", "places": []any{"sources/ds.c"}}}},
		{"lenient resolves what it can", "", request("ds.d", "", true), 200,
			[]any{map[string]any{"name": "example-rec", "type": "OWNER"}}, nil},
		{"lenient keeps the unresolved as written", "?strict=false", request("ds.c", "", true), 200,
			[]any{map[string]any{"name": "acme", "type": "OWNER"}, map[string]any{"name": "ghost", "type": "OWNER"}}, nil},
		{"strict after the overlay is merged", "?strict=true", request("ds.e", overlay, true), 200,
			[]any{map[string]any{"name": "example-dso", "type": "DATA_OWNER"}}, nil},
		{"strict placeholder and id", "?strict=true", request("ds.b", overlay, true), 200,
			[]any{map[string]any{"name": "spxl", "type": "DATA_OWNER"}, map[string]any{"name": "spxl", "type": "PROCESSOR"}}, nil},
		{"strict needs owners", "?strict=true", request("ds.a", "", false), 400, nil, nil},
		{"strict must be a boolean", "?strict=maybe", request("ds.a", "", true), 400, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", "/resolve"+tt.query, strings.NewReader(tt.body), "Content-Type", "application/json")
			if r.status != tt.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tt.status, r.body)
			}
			holdsToOpenAPI(t, "/resolve", "post", r)
			body := decodeBody(t, r)
			switch tt.status {
			case 200:
				if diff := cmp.Diff(tt.ownership, body["rule"].(map[string]any)["ownership"]); diff != "" {
					t.Errorf("ownership (-want +got):\n%s", diff)
				}
			case 422:
				if diff := cmp.Diff(tt.unresolved, body["unresolved"]); diff != "" {
					t.Errorf("unresolved (-want +got):\n%s", diff)
				}
				want := "unresolved owner name(s):\n  - acme: sources/ds.c\n  - ghost: sources/ds.c"
				if body["detail"] != want || !strings.HasSuffix(body["type"].(string), "#problem-unresolved-owners") {
					t.Errorf("problem %v %q, want unresolved-owners with the library's message %q", body["type"], body["detail"], want)
				}
			}
		})
	}
}

// TestValidateOneDocument: POST /validate of one YAML document checks it
// as the base file of a one-app tree, as the library's validate(data)
// checks one document, with the report of an archive holding that file.
func TestValidateOneDocument(t *testing.T) {
	h, _ := testServer(t)
	good := "defaults: {access_level: internal}\nsources:\n  ds.a: {title: A}\n"
	unknown := "defaults: {access_level: internal}\nsources:\n  ds.a: {title: A, colour: blue}\n"
	violation := "defaults: {access_level: publik}\nsources: {}\n"
	for _, tt := range []struct {
		name, query, contentType, body string
		status                         int
		ok                             bool
		codes                          []string
	}{
		{"a valid document", "", "application/yaml", good, 200, true, nil},
		{"other YAML media types", "", "text/yaml; charset=utf-8", good, 200, true, nil},
		{"an unknown key warns", "", "application/x-yaml", unknown, 200, true, []string{"unknown-key"}},
		{"an unknown key fails under strict", "?strict=true", "application/yaml", unknown, 200, false, []string{"unknown-key"}},
		{"a schema violation fails", "", "application/yaml", violation, 200, false, []string{"schema-violation", "semantic-skipped"}},
		{"not YAML", "", "application/yaml", "sources: [\n", 200, false, []string{"load-error", "semantic-skipped"}},
		{"options naming files", "?owners=owners.yaml", "application/yaml", good, 400, false, nil},
		{"sarif", "?format=sarif", "application/yaml", unknown, 200, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", "/validate"+tt.query, strings.NewReader(tt.body), "Content-Type", tt.contentType)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tt.status, r.body)
			}
			holdsToOpenAPI(t, "/validate", "post", r)
			if tt.status != 200 || strings.Contains(tt.query, "sarif") {
				return
			}
			var rep struct {
				OK       bool `json:"ok"`
				Findings []struct {
					Code string  `json:"code"`
					File *string `json:"file"`
				} `json:"findings"`
			}
			if err := json.Unmarshal(r.body, &rep); err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
				if f.File == nil || *f.File != "governance.yaml" {
					t.Errorf("finding %s names file %v, want governance.yaml", f.Code, f.File)
				}
			}
			if rep.OK != tt.ok || !cmp.Equal(tt.codes, codes) {
				t.Errorf("ok %v, codes %v; want ok %v, codes %v\n%s", rep.OK, codes, tt.ok, tt.codes, r.body)
			}
		})
	}
	// The answer is the report of a tar holding the document as governance.yaml.
	one := do(t, h, "POST", "/validate", strings.NewReader(unknown), "Content-Type", "application/yaml")
	tarred := do(t, h, "POST", "/validate", bytes.NewReader(tarOf(t, entry{name: "governance.yaml", typeflag: tar.TypeReg, body: unknown})), "Content-Type", "application/x-tar")
	if one.status != 200 || string(one.body) != string(tarred.body) {
		t.Errorf("one document and a tar of it differ:\n%s\n%s", one.body, tarred.body)
	}
}

// timeoutReader is a body that stops arriving: the server's read deadline
// passing, as net/http reports it.
type timeoutReader struct{ sent bool }

func (r *timeoutReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, "defaults: {}\nsources:\n"), nil
	}
	return 0, os.ErrDeadlineExceeded
}

// TestHostileDocumentValidate: one YAML document sent to POST /validate is
// read within the same limits as an archive's files — an expanding or deep
// document is a load-error naming the line, one over the per-document size
// a load-error naming the size, a body over --max-body-bytes 413, a body
// that stops arriving 408 — and never a hang or a 5xx.
func TestHostileDocumentValidate(t *testing.T) {
	_, st := testServer(t)
	h, _ := newServer(Deps{Store: st, Limits: Limits{MaxBodyBytes: 4 << 20}})
	post := func(body io.Reader) response {
		var r response
		testctx.Within(t, "POST /validate", func() {
			r = do(t, h, "POST", "/validate", body, "Content-Type", "application/yaml")
		})
		return r
	}
	refuses := func(t *testing.T, r response, msg string) {
		t.Helper()
		rep := decodeReport(t, r)
		for _, f := range rep.Findings {
			if !rep.OK && f.Code == "load-error" && f.File == documentName && strings.Contains(f.Message, msg) {
				return
			}
		}
		t.Errorf("no load-error on %s saying %q:\n%.2000s", documentName, msg, r.body)
	}
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) { refuses(t, post(strings.NewReader(tt.doc)), tt.msg) })
	}
	t.Run("over the document size", func(t *testing.T) {
		big := "defaults: {}\nsources: {}\n# " + strings.Repeat("x", 2<<20) + "\n"
		refuses(t, post(strings.NewReader(big)), "bytes")
	})
	t.Run("over the body size", func(t *testing.T) {
		r := post(strings.NewReader(strings.Repeat("#", 5<<20)))
		if p := problemOf(t, r); r.status != http.StatusRequestEntityTooLarge || !strings.HasSuffix(p["type"].(string), "#problem-payload-too-large") {
			t.Errorf("status %d %v, want 413 payload-too-large", r.status, p["type"])
		}
	})
	t.Run("a body that stops arriving", func(t *testing.T) {
		r := post(&timeoutReader{})
		if p := problemOf(t, r); r.status != http.StatusRequestTimeout || !strings.HasSuffix(p["type"].(string), "#problem-request-timeout") {
			t.Errorf("status %d %v, want 408 request-timeout", r.status, p["type"])
		}
	})
}

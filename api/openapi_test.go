package api

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// openapiDoc is openapi.yaml read by the project's YAML reader and turned
// into the JSON a schema compiler takes.
var openapiDoc = sync.OnceValues(func() (map[string]any, error) {
	node, err := yaml11.Parse(OpenAPI)
	if err != nil {
		return nil, err
	}
	raw, err := node.MarshalJSON()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return doc.(map[string]any), nil
})

func loadOpenAPI(t testing.TB) map[string]any {
	t.Helper()
	doc, err := openapiDoc()
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	return doc
}

func TestRootOpenAPIIsTheEmbeddedOne(t *testing.T) {
	root, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(root, OpenAPI) {
		t.Fatal("openapi.yaml at the repository root differs from api/openapi.yaml; copy api/openapi.yaml over it (cp api/openapi.yaml openapi.yaml)")
	}
}

// TestRoutesAreDocumented holds the router and the document to the same set
// of routes, both ways.
func TestRoutesAreDocumented(t *testing.T) {
	doc := loadOpenAPI(t)
	h, _ := testServer(t)
	routed := map[string]bool{}
	err := chi.Walk(h.(*server).mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[strings.ToLower(method)+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			documented[method+" "+path] = true
		}
	}
	for r := range routed {
		if !documented[r] {
			t.Errorf("route %s is served but not in openapi.yaml", r)
		}
	}
	for d := range documented {
		if !routed[d] {
			t.Errorf("openapi.yaml documents %s, which is not served", d)
		}
	}
}

// schemaFor compiles the schema openapi.yaml gives a response.
type schemaSet struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

func newSchemaSet(t testing.TB) *schemaSet {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://openapi.json", loadOpenAPI(t)); err != nil {
		t.Fatal(err)
	}
	return &schemaSet{c: c, cache: map[string]*jsonschema.Schema{}}
}

func (s *schemaSet) compile(t testing.TB, pointer string) *jsonschema.Schema {
	t.Helper()
	if sch, ok := s.cache[pointer]; ok {
		return sch
	}
	sch, err := s.c.Compile("mem://openapi.json#" + pointer)
	if err != nil {
		t.Fatalf("compiling %s: %v", pointer, err)
	}
	s.cache[pointer] = sch
	return sch
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// responseSchema finds the pointer of the schema for a route, method, status
// and media type, following a response $ref. ok is false when the document has
// no content for it (a 304); it fails the test when the status or media type is
// not documented.
func responseSchema(t *testing.T, doc map[string]any, route, method string, status int, mediaType string) (string, bool) {
	t.Helper()
	op, _ := doc["paths"].(map[string]any)[route].(map[string]any)[method].(map[string]any)
	if op == nil {
		t.Fatalf("%s %s is not documented", method, route)
	}
	code := strconv.Itoa(status)
	resp, ok := op["responses"].(map[string]any)[code].(map[string]any)
	if !ok {
		t.Fatalf("%s %s answered %d, which openapi.yaml does not document", method, route, status)
	}
	pointer := "/paths/" + escapePointer(route) + "/" + method + "/responses/" + code
	if ref, ok := resp["$ref"].(string); ok {
		pointer = strings.TrimPrefix(ref, "#")
		resp = doc["components"].(map[string]any)["responses"].(map[string]any)[pointer[strings.LastIndex(pointer, "/")+1:]].(map[string]any)
	}
	content, ok := resp["content"].(map[string]any)
	if !ok {
		return "", false
	}
	if _, ok := content[mediaType]; !ok {
		t.Fatalf("%s %s %d answered %s, which openapi.yaml does not document", method, route, status, mediaType)
	}
	return pointer + "/content/" + escapePointer(mediaType) + "/schema", true
}

type exchange struct {
	method, target, route string
	body                  []byte
	header                []string
}

func uploadOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[n]))
	}
	tw.Close()
	return buf.Bytes()
}

// TestResponsesMatchOpenAPI runs the real handler over requests that reach
// every documented operation and validates each answer against the schema
// openapi.yaml gives it.
func TestResponsesMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas := newSchemaSet(t)
	h, store := testServer(t)
	etag := `"` + strings.TrimPrefix(store.Current().Revision, "sha256:") + `"`
	reached := map[string]bool{}
	for _, ex := range append(readExchanges(etag), operationExchanges(t)...) {
		r := do(t, h, ex.method, ex.target, bytes.NewReader(ex.body), ex.header...)
		reached[strings.ToLower(ex.method)+" "+ex.route] = true
		matchesOpenAPI(t, doc, schemas, ex, r)
	}
	var missed []string
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if !reached[method+" "+path] {
				missed = append(missed, method+" "+path)
			}
		}
	}
	slices.Sort(missed)
	if len(missed) > 0 {
		t.Errorf("no exchange reaches %v", missed)
	}
}

// readExchanges are GETs reaching every read route, answered and refused,
// and conditional; etag is the served revision's.
func readExchanges(etag string) []exchange {
	return []exchange{
		{"GET", "/healthz", "/healthz", nil, nil},
		{"GET", "/readyz", "/readyz", nil, nil},
		{"GET", "/metrics", "/metrics", nil, nil},
		{"GET", "/status", "/status", nil, nil},
		{"GET", "/openapi.yaml", "/openapi.yaml", nil, nil},
		{"GET", "/schemas/governance", "/schemas/{name}", nil, nil},
		{"GET", "/schemas/facet", "/schemas/{name}", nil, nil},
		{"GET", "/schemas/nope", "/schemas/{name}", nil, nil},
		{"GET", "/apps", "/apps", nil, nil},
		{"GET", "/apps", "/apps", nil, []string{"If-None-Match", etag}},
		{"GET", "/apps/meters", "/apps/{app}", nil, nil},
		{"GET", "/apps/twin", "/apps/{app}", nil, nil},
		{"GET", "/apps/nope", "/apps/{app}", nil, nil},
		{"GET", "/apps/meters/datasets/datasets.gold.meters/rule?explain=true", "/apps/{app}/datasets/{id}/rule", nil, nil},
		{"GET", "/apps/meters/datasets/nothing/rule", "/apps/{app}/datasets/{id}/rule", nil, nil},
		{"GET", "/apps/nope/datasets/nothing/rule", "/apps/{app}/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets", "/datasets", nil, nil},
		{"GET", "/datasets?limit=1", "/datasets", nil, nil},
		{"GET", "/datasets?limit=0", "/datasets", nil, nil},
		{"GET", "/datasets?cursor=djE6MDAwMDAwMDAwMDAwMDAwMDox", "/datasets", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/rule", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/rule?explain=1", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/datasets.gold.weather_x/rule?explain=true", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/datasets.gold.shared/rule", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/none/rule", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/none/rule?app=weather", "/datasets/{id}/rule", nil, nil},
		{"GET", "/datasets/datasets.gold.offer/exposure", "/datasets/{id}/exposure", nil, nil},
		{"GET", "/datasets/datasets.silver.y/exposure", "/datasets/{id}/exposure", nil, nil},
		{"GET", "/datasets/none/exposure", "/datasets/{id}/exposure", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/facet", "/datasets/{id}/facet", nil, nil},
		{"GET", "/datasets/datasets.gold.offer/facet?include_dataspace=false&producer=https://example.org/p", "/datasets/{id}/facet", nil, nil},
		{"GET", "/datasets/datasets.gold.offer/facet?producer=", "/datasets/{id}/facet", nil, nil},
		{"GET", "/datasets/none/facet", "/datasets/{id}/facet", nil, nil},
		{"GET", "/datasets/datasets.gold.shared/facet", "/datasets/{id}/facet", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/producers", "/datasets/{id}/producers", nil, nil},
		{"GET", "/datasets/datasets.gold.weather_%2A/producers?overlays=true", "/datasets/{id}/producers", nil, nil},
		{"GET", "/datasets/nobody.writes.this/producers", "/datasets/{id}/producers", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/producers", "/datasets/{id}/producers", nil, []string{"If-None-Match", etag}},
		{"GET", "/datasets/datasets.gold.meters/producers?overlays=maybe", "/datasets/{id}/producers", nil, nil},
		{"GET", "/datasets/datasets.gold.weather_wind/consumers", "/datasets/{id}/consumers", nil, nil},
		{"GET", "/datasets/raw.meters_feed/consumers?overlays=true", "/datasets/{id}/consumers", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/consumers?overlays=1", "/datasets/{id}/consumers", nil, nil},
		{"GET", "/datasets/datasets.gold.meters/consumers?overlays=no", "/datasets/{id}/consumers", nil, nil},
		{"GET", "/graph", "/graph", nil, nil},
		{"GET", "/graph?overlays=true", "/graph", nil, nil},
		{"GET", "/graph?format=mermaid", "/graph", nil, nil},
		{"GET", "/graph?format=tree&overlays=true", "/graph", nil, nil},
		{"GET", "/graph?format=dot", "/graph", nil, nil},
		{"GET", "/graph", "/graph", nil, []string{"If-None-Match", etag}},
		{"GET", "/graph/pipelines/twin", "/graph/pipelines/{name}", nil, nil},
		{"GET", "/graph/pipelines/meters?depth=0&overlays=true", "/graph/pipelines/{name}", nil, nil},
		{"GET", "/graph/pipelines/weather?depth=-1", "/graph/pipelines/{name}", nil, nil},
		{"GET", "/graph/pipelines/nope", "/graph/pipelines/{name}", nil, nil},
		{"GET", "/graph/pipelines/meters", "/graph/pipelines/{name}", nil, []string{"If-None-Match", etag}},
		{"GET", "/owners", "/owners", nil, nil},
		{"GET", "/owners?uri=did:web:rec.example", "/owners", nil, nil},
		{"GET", "/owners/rec", "/owners/{key}", nil, nil},
		{"GET", "/owners/nobody", "/owners/{key}", nil, nil},
		{"GET", "/datasets?include=rule", "/datasets", nil, nil},
		{"GET", "/datasets?q=weather+gold&include=rule", "/datasets", nil, nil},
		{"GET", "/datasets?q=weather", "/datasets", nil, []string{"Accept", "application/x-ndjson"}},
		{"GET", "/datasets?q=datasets.gold.*", "/datasets", nil, nil},
		{"GET", "/datasets?q=---", "/datasets", nil, nil},
		{"GET", "/datasets?include=rule", "/datasets", nil, []string{"Accept", "application/x-ndjson"}},
		{"GET", "/datasets?include=everything", "/datasets", nil, nil},
		{"GET", "/datasets?wait=1ms", "/datasets", nil, []string{"If-None-Match", etag}},
		{"GET", "/datasets?wait=soon", "/datasets", nil, []string{"If-None-Match", etag}},
		{"GET", "/unresolved-owners", "/unresolved-owners", nil, nil},
		{"GET", "/events", "/events", nil, nil},
		{"GET", "/report", "/report", nil, nil},
		{"GET", "/report?format=sarif", "/report", nil, nil},
		{"GET", "/report?format=xml", "/report", nil, nil},
		{"GET", "/", "/", nil, nil},
		{"GET", "/?page=2", "/", nil, nil},
		{"GET", "/ui/", "/ui/", nil, nil},
		{"GET", "/ui/datasets", "/ui/datasets", nil, nil},
		{"GET", "/ui/datasets?q=&app=meters", "/ui/datasets", nil, nil},
		{"GET", "/ui/datasets?expose=maybe", "/ui/datasets", nil, nil},
		{"GET", "/ui/datasets/datasets.gold.meters", "/ui/datasets/{id}", nil, nil},
		{"GET", "/ui/datasets/none", "/ui/datasets/{id}", nil, nil},
		{"GET", "/ui/datasets/datasets.gold.shared", "/ui/datasets/{id}", nil, nil},
		{"GET", "/ui/lookup?name=datasets.gold.meters", "/ui/lookup", nil, nil},
		{"GET", "/ui/apps", "/ui/apps", nil, nil},
		{"GET", "/ui/apps/meters", "/ui/apps/{app}", nil, nil},
		{"GET", "/ui/apps/nope", "/ui/apps/{app}", nil, nil},
		{"GET", "/ui/owners", "/ui/owners", nil, nil},
		{"GET", "/ui/owners/rec", "/ui/owners/{key}", nil, nil},
		{"GET", "/ui/owners/nobody", "/ui/owners/{key}", nil, nil},
		{"GET", "/ui/report", "/ui/report", nil, nil},
		{"GET", "/ui/report?severity=fatal", "/ui/report", nil, nil},
		{"GET", "/ui/graph", "/ui/graph", nil, nil},
		{"GET", "/ui/static/ui.css", "/ui/static/{name}", nil, nil},
		{"GET", "/ui/static/ui.js", "/ui/static/{name}", nil, nil},
		{"GET", "/ui/static/nope.js", "/ui/static/{name}", nil, nil},
	}
}

// operationExchanges are POSTs reaching every operation, answered and
// refused.
func operationExchanges(t *testing.T) []exchange {
	tree := uploadOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {}\nsources:\n  ds.x: {expose: true}\n"})
	broken := uploadOf(t, map[string]string{"apps/a/governance.yaml": "defaults: {access_level: publik}\n"})
	policyReq := `{"policy": "version: 1\nrules: []\n", "changeset": {"changeset_version": 1, "changes": []}}`
	artifacts := artifactBody(t, realPairParts(t, "version: 1\nrules: []\n"))
	badCatalog := realPairParts(t, "version: 1\nrules: []\n")
	badCatalog["catalog"] = []byte("{")
	brokenArtifacts := artifactBody(t, badCatalog)
	withoutPolicy := realPairParts(t, "")
	delete(withoutPolicy, "policy")
	noPolicy := artifactBody(t, withoutPolicy)

	served := servedFiles(t)
	changed := edited(t, served, "apps/meters/governance.meters.yaml", "      expose: false\n", "      expose: true\n")
	changed = edited(t, changed, "apps/twin/governance.yaml", "sources:", "sources:\n  datasets.new: {expose: true}")
	diffHead := uploadOf(t, changed)
	var diffBoth struct {
		body        []byte
		contentType string
	}
	diffBoth.body, diffBoth.contentType = multipartDiff(t, "base", uploadOf(t, served), "head", uploadOf(t, edited(t, changed, "apps/weather/governance.yaml", "defaults:", "defaults:\n  access_level: [")))

	return []exchange{
		{"POST", "/validate", "/validate", tree, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/validate?format=sarif", "/validate", tree, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/validate?strict=true", "/validate", broken, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/validate?dataspace=true", "/validate", tree, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/validate", "/validate", []byte("not a tar"), []string{"Content-Type", "application/x-tar"}},
		{"POST", "/validate", "/validate", tree, []string{"Content-Type", "text/csv"}},
		{"POST", "/diff", "/diff", diffHead, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/diff?format=markdown", "/diff", diffHead, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/diff?format=text", "/diff", diffHead, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/diff?owners=owners.yaml", "/diff", diffBoth.body, []string{"Content-Type", diffBoth.contentType}},
		{"POST", "/diff", "/diff", broken, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/diff?format=xml", "/diff", diffHead, []string{"Content-Type", "application/x-tar"}},
		{"POST", "/resolve", "/resolve", []byte(`{"document": "defaults: {}\nsources: {ds.x: {expose: true}}", "dataset": "ds.x"}`), []string{"Content-Type", "application/json"}},
		{"POST", "/resolve", "/resolve", []byte(`{"document": "sources: [", "dataset": "ds.x"}`), []string{"Content-Type", "application/json"}},
		{"POST", "/resolve", "/resolve", []byte(`{"document": "sources: {ds.x: {ownership: [{name: op, type: DATA_OWNER}, {name: ghost, type: DATA_OWNER}]}}", "dataset": "ds.x",
			"owners": "owners: [{id: acme, type: schema:Organization, name: Acme, url: https://acme.example}]", "placeholders": {"op": "acme"}}`), nil},
		{"POST", "/resolve", "/resolve", []byte(`{"document": "sources: {}", "dataset": "ds.x", "placeholders": {"op": "acme"}}`), nil},
		{"POST", "/resolve", "/resolve", []byte(`[]`), nil},
		{"POST", "/resolve", "/resolve", []byte(`{}`), []string{"Content-Type", "text/plain"}},
		{"POST", "/merge", "/merge", []byte(`{"base": {"tags": ["a"]}, "override": {"tags": ["b"]}}`), nil},
		{"POST", "/merge", "/merge", []byte(`{"base": {"tags": "a"}, "override": {}}`), nil},
		{"POST", "/policy/evaluate", "/policy/evaluate", []byte(policyReq), nil},
		{"POST", "/policy/evaluate", "/policy/evaluate", []byte(policyReq), []string{"Accept", "text/markdown"}},
		{"POST", "/policy/evaluate", "/policy/evaluate", []byte(`{"policy": "version: 99", "changeset": {"changeset_version": 1, "changes": []}}`), nil},
		{"POST", "/policy/evaluate", "/policy/evaluate", []byte(`{"policy": "version: 1"}`), nil},
		{"POST", "/policy/evaluate", "/policy/evaluate", artifacts.body, []string{"Content-Type", artifacts.contentType}},
		{"POST", "/policy/evaluate", "/policy/evaluate", artifacts.body, []string{"Content-Type", artifacts.contentType, "Accept", "text/markdown"}},
		{"POST", "/policy/evaluate", "/policy/evaluate", brokenArtifacts.body, []string{"Content-Type", brokenArtifacts.contentType}},
		{"POST", "/policy/evaluate", "/policy/evaluate", noPolicy.body, []string{"Content-Type", noPolicy.contentType}},
	}
}

// matchesOpenAPI holds one answer to the schema openapi.yaml gives the
// exchange's route, method, status and media type.
func matchesOpenAPI(t *testing.T, doc map[string]any, schemas *schemaSet, ex exchange, r response) {
	t.Helper()
	method := strings.ToLower(ex.method)
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if r.status == http.StatusNotModified {
		mt = ""
	}
	pointer, ok := responseSchema(t, doc, ex.route, method, r.status, mt)
	if !ok {
		if len(r.body) > 0 {
			t.Errorf("%s %s: %d with a body, but openapi.yaml documents none", ex.method, ex.target, r.status)
		}
		return
	}
	if !strings.Contains(mt, "json") {
		return // YAML, text and Markdown bodies have no schema to hold them to
	}
	if mt == "application/x-ndjson" {
		lines := bytes.Split(bytes.TrimSuffix(r.body, []byte("\n")), []byte("\n"))
		for _, line := range lines {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err == nil {
				err = schemas.compile(t, pointer).Validate(inst)
			}
			if err != nil {
				t.Errorf("%s %s: a line does not match openapi.yaml: %v\n%s", ex.method, ex.target, err, line)
			}
		}
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Errorf("%s %s: %d body is not JSON: %v\n%s", ex.method, ex.target, r.status, err, r.body)
		return
	}
	if err := schemas.compile(t, pointer).Validate(inst); err != nil {
		t.Errorf("%s %s: %d body does not match openapi.yaml:\n%v\n%s", ex.method, ex.target, r.status, err, r.body)
	}
}

// TestProblemsAreProblems: every error answer is RFC 9457 problem+json with
// type, title and status, never HTML or a stack trace.
func TestProblemsAreProblems(t *testing.T) {
	h, _ := testServer(t)
	for _, target := range []string{"/nope", "/datasets/none/rule", "/apps/x", "/owners/x", "/schemas/x", "/datasets?limit=-1"} {
		r := do(t, h, "GET", target, nil)
		var p map[string]any
		if err := json.Unmarshal(r.body, &p); err != nil || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %s", target, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		if p["status"] != float64(r.status) || p["title"] == "" || !strings.HasPrefix(p["type"].(string), ProblemBase) {
			t.Errorf("%s: problem %v", target, p)
		}
	}
}

// TestRejectedStatusMatchesOpenAPI holds /status to the document in the state
// that matters most to an operator: a reload the check refused.
func TestRejectedStatusMatchesOpenAPI(t *testing.T) {
	dir := t.TempDir()
	gov := dir + "/apps/a/governance.yaml"
	os.MkdirAll(dir+"/apps/a", 0o755)
	os.WriteFile(gov, []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	store.Reload(context.Background(), true)
	os.WriteFile(gov, []byte("sources: ["), 0o644)
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Rejected {
		t.Fatalf("outcome %v", st.Outcome)
	}
	h, _ := newServer(Deps{Store: store})
	r := do(t, h, "GET", "/status", nil)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	pointer, _ := responseSchema(t, loadOpenAPI(t), "/status", "get", r.status, "application/json")
	if err := newSchemaSet(t).compile(t, pointer).Validate(inst); err != nil {
		t.Errorf("/status after a rejected reload does not match openapi.yaml:\n%v\n%s", err, r.body)
	}
	if !bytes.Contains(r.body, []byte(`"ok":false`)) || !bytes.Contains(r.body, []byte("load-error")) {
		t.Errorf("/status does not report the rejection:\n%s", r.body)
	}
	// (net/http drops a HEAD response's body; the recorder keeps it.)
	if head := do(t, h, "HEAD", "/apps", nil); head.status != 200 || head.header.Get("ETag") == "" {
		t.Errorf("HEAD /apps: %d, ETag %q", head.status, head.header.Get("ETag"))
	}
}

// TestOpenAPIDescriptionsAreWhole: in a YAML flow mapping a plain scalar ends
// at its first comma, so `{description: A sentence, cut.}` reads as the
// description "A sentence" and a key "cut." with no value. Every description
// must be a string, and no key may be left without a value (example payloads
// aside, where null is data).
func TestOpenAPIDescriptionsAreWhole(t *testing.T) {
	var walk func(ptr string, v any, propertyNames bool)
	walk = func(ptr string, v any, propertyNames bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				p := ptr + "/" + escapePointer(k)
				if !propertyNames && (k == "example" || k == "examples" || k == "default" || k == "const" || k == "enum") {
					continue // data, not document
				}
				if x == nil {
					t.Errorf("%s: key %q has no value: a description cut short at a comma?", p, k)
				}
				if k == "description" && !propertyNames {
					if _, ok := x.(string); !ok {
						t.Errorf("%s: the description is a %T, not a string", p, x)
					}
				}
				// The keys of properties are names; a property may be called
				// "description".
				walk(p, x, !propertyNames && (k == "properties" || k == "patternProperties"))
			}
		case []any:
			for i, x := range v {
				walk(ptr+"/"+strconv.Itoa(i), x, false)
			}
		}
	}
	walk("", loadOpenAPI(t), false)
}

// TestOpenAPISecurityMatchesServer holds the document's security to the
// server with authentication on: an operation answers 401 without a token
// exactly when the document (the operation's own security, else the root's)
// asks for the bearer token; the open routes say `security: []`.
func TestOpenAPISecurityMatchesServer(t *testing.T) {
	doc := loadOpenAPI(t)
	root, ok := doc["security"].([]any)
	if !ok || len(root) == 0 {
		t.Fatal("openapi.yaml declares no root-level security")
	}
	schemes, _ := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	if s, _ := schemes["bearerAuth"].(map[string]any); s["type"] != "http" || s["scheme"] != "bearer" {
		t.Fatalf("components.securitySchemes.bearerAuth is not an http bearer scheme: %v", s)
	}
	// needsToken reads a security requirement list: the token is needed when
	// every alternative names bearerAuth (an empty list or an empty
	// alternative means anonymous access).
	needsToken := func(reqs []any) bool {
		if len(reqs) == 0 {
			return false
		}
		for _, r := range reqs {
			if _, ok := r.(map[string]any)["bearerAuth"]; !ok {
				return false
			}
		}
		return true
	}
	if !needsToken(root) {
		t.Errorf("root security %v does not require the bearer token", root)
	}

	_, store := testServer(t)
	srv, _ := newServer(Deps{Store: store, Tokens: NewTokens([]string{"a-token-long-enough-to-be-accepted"})})
	params := regexp.MustCompile(`\{[^}]+\}`)
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			reqs := root
			if own, ok := op["security"]; ok {
				if _, isList := own.([]any); !isList && own != nil {
					t.Errorf("%s %s: security is a %T, not a list", method, path, own)
					continue
				}
				reqs, _ = own.([]any)
			}
			want := needsToken(reqs)
			got := do(t, srv, strings.ToUpper(method), params.ReplaceAllString(path, "x"), strings.NewReader("{}"),
				"Content-Type", "application/json").status == http.StatusUnauthorized
			if got != want {
				t.Errorf("%s %s: without a token the server answers 401 = %v, the document says the token is needed = %v", method, path, got, want)
			}
			if _, documented := op["responses"].(map[string]any)["401"]; documented != want {
				t.Errorf("%s %s: documents a 401 = %v, needs the token = %v", method, path, documented, want)
			}
		}
	}
}

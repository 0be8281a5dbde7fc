package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/lineage/lineagetest"
	"github.com/celine-eu/governanced/internal/testctx"
)

// The policy gate's hostile inputs, posted as dbt artifacts to a real
// handler: compiled SQL whose lineage grows fast with its size, a model of
// thousands of columns, thousands of changed models in a chain. Each is
// answered within the request timeout, with the server alive.

// dbtModel is one model of a synthetic manifest.
type dbtModel struct {
	name, compiled, checksum string
	deps                     []string // model names
	columns                  []string // its columns in the catalog, all integers
}

// dbtManifest renders models as a dbt manifest (schema v12).
func dbtManifest(t testing.TB, models []dbtModel) []byte {
	t.Helper()
	nodes := map[string]any{}
	children := map[string][]string{}
	uid := func(name string) string { return "model.p." + name }
	for _, m := range models {
		deps := []string{}
		for _, d := range m.deps {
			deps = append(deps, uid(d))
			children[uid(d)] = append(children[uid(d)], uid(m.name))
		}
		if _, ok := children[uid(m.name)]; !ok {
			children[uid(m.name)] = []string{}
		}
		nodes[uid(m.name)] = map[string]any{
			"resource_type": "model", "name": m.name, "package_name": "p", "database": "wh", "schema": "marts", "alias": m.name,
			"meta": map[string]any{}, "config": map[string]any{"meta": map[string]any{}}, "columns": map[string]any{},
			"checksum": map[string]any{"name": "sha256", "checksum": m.checksum}, "compiled_code": m.compiled,
			"depends_on": map[string]any{"nodes": deps},
		}
	}
	data, err := json.Marshal(map[string]any{
		"metadata":  map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.11.2"},
		"nodes":     nodes,
		"exposures": map[string]any{},
		"child_map": children,
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// dbtCatalog renders the models' columns as a dbt catalog.
func dbtCatalog(t testing.TB, models []dbtModel) []byte {
	t.Helper()
	nodes := map[string]any{}
	for _, m := range models {
		cols := map[string]any{}
		for i, c := range m.columns {
			cols[strings.ToUpper(c)] = map[string]any{"name": strings.ToUpper(c), "type": "integer", "index": i + 1}
		}
		nodes["model.p."+m.name] = map[string]any{"columns": cols}
	}
	data, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
		"nodes":    nodes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// postProjects posts the base and head projects' manifests and catalogs
// with an empty policy to POST /policy/evaluate, bounded by the server's
// request timeout alone.
func postProjects(t *testing.T, h http.Handler, base, head []dbtModel) (response, policyAnswer) {
	t.Helper()
	return postArtifacts(t, h, map[string][]byte{"manifest": dbtManifest(t, head), "catalog": dbtCatalog(t, head),
		"base_manifest": dbtManifest(t, base), "base_catalog": dbtCatalog(t, base)})
}

// postArtifacts posts dbt artifacts with an empty policy to POST
// /policy/evaluate, bounded by the server's request timeout alone.
func postArtifacts(t *testing.T, h http.Handler, parts map[string][]byte) (response, policyAnswer) {
	t.Helper()
	parts["policy"] = []byte("version: 1\nrules: []\n")
	b := artifactBody(t, parts)
	var r response
	start := time.Now()
	testctx.Within(t, "POST /policy/evaluate", func() {
		r = doLong(t, h, "POST", "/policy/evaluate", bytes.NewReader(b.body), "Content-Type", b.contentType)
	})
	t.Logf("%d in %v (%d KB of artifacts)", r.status, time.Since(start).Round(time.Millisecond), len(b.body)>>10)
	var a policyAnswer
	if r.status == http.StatusOK {
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatal(err)
		}
	}
	return r, a
}

type policyAnswer struct {
	Precision string   `json:"precision"`
	Warnings  []string `json:"changeset_warnings"`
}

// TestCTEChainIsAnsweredInTime: one changed model whose SQL is a chain of
// CTEs each selecting from the two before it — lineage work that grew about
// 2.5 times a CTE, 16 of them 58 s and 11 GB — is answered within the
// request timeout: with its column lineage, or with the model read at level
// 1 and a warning naming it.
func TestCTEChainIsAnsweredInTime(t *testing.T) {
	h, _ := testServer(t)
	for _, n := range []int{16, 24} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src := dbtModel{name: "src", compiled: "select 1 as id, 2 as a0, 3 as a1", checksum: "s", columns: []string{"id", "a0", "a1"}}
			chain := func(step int) dbtModel {
				return dbtModel{name: "chain", compiled: lineagetest.CTEChain(n, step, "wh.marts.src"), checksum: fmt.Sprint(step),
					deps: []string{"src"}, columns: []string{"id", "a", "b"}}
			}
			r, a := postProjects(t, h, []dbtModel{src, chain(1)}, []dbtModel{src, chain(2)})
			if r.status != http.StatusOK {
				t.Fatalf("%d %.500s", r.status, r.body)
			}
			for _, w := range a.Warnings {
				if !strings.Contains(w, "model.p.chain") {
					t.Errorf("a warning about another model: %s", w)
				}
			}
			t.Logf("precision %s, warnings %q", a.Precision, a.Warnings)
		})
	}
	// The server is alive: a lookup is answered.
	if r := do(t, h, "GET", "/readyz", nil); r.status != http.StatusOK {
		t.Errorf("/readyz after the chains: %d", r.status)
	}
}

// TestWideModelIsAnsweredInTime: one model of 8 000 columns, every one
// changed (lineage quadratic in them took 56 s), is answered within the
// request timeout at level 2: a change for each column.
func TestWideModelIsAnsweredInTime(t *testing.T) {
	const n = 8000
	h, _ := testServer(t)
	side := func(op string) []dbtModel {
		cols, exprs := make([]string, n), make([]string, n)
		for i := range n {
			cols[i] = fmt.Sprintf("c%d", i)
			exprs[i] = fmt.Sprintf("c%d %s as c%d", i, op, i)
		}
		return []dbtModel{
			{name: "src", compiled: "select 1", checksum: "s", columns: cols},
			{name: "wide", compiled: "select " + strings.Join(exprs, ", ") + " from wh.marts.src", checksum: op, deps: []string{"src"}, columns: cols},
		}
	}
	r, a := postProjects(t, h, side("+ 1"), side("+ 2"))
	if r.status != http.StatusOK {
		t.Fatalf("%d %.500s", r.status, r.body)
	}
	if len(a.Warnings) > 0 {
		t.Errorf("the wide model was not read at level 2: %q", a.Warnings)
	}
}

// TestChainedModelsAreBounded: 3 000 changed models in a chain, each
// reading the one before and each change reaching every model after it
// (38 s and 1.4 GB, then a silent cut past the write timeout), are answered
// within the request timeout and the working-memory budget, or refused with
// 413 or 503 saying why.
func TestChainedModelsAreBounded(t *testing.T) {
	const n = 3000
	_, st := testServer(t)
	h, s := newServer(Deps{Store: st})
	side := func(e string) []dbtModel {
		cols := []string{"id", "a", "b"}
		models := []dbtModel{{name: "m0", compiled: "select 1 as id, 2 as a, 3 as b", checksum: "x", columns: cols}}
		for i := 1; i < n; i++ {
			models = append(models, dbtModel{name: fmt.Sprintf("m%d", i), compiled: fmt.Sprintf("select id, %s as a, b from wh.marts.m%d", e, i-1),
				checksum: e, deps: []string{fmt.Sprintf("m%d", i-1)}, columns: cols})
		}
		return models
	}
	r, a := postProjects(t, h, side("a + 1"), side("a + 2"))
	switch r.status {
	case http.StatusOK:
		t.Logf("warnings %q", a.Warnings)
	case http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable:
		if p := problemOf(t, r); p["detail"] == "" {
			t.Errorf("a refusal without a reason: %v", p)
		}
		holdsToOpenAPI(t, "/policy/evaluate", "post", r)
	default:
		t.Fatalf("%d %.500s", r.status, r.body)
	}
	waitFor(t, "the working memory back", func() bool { return s.memory.inUse() == 0 })
}

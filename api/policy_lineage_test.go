package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/lineage/lineagetest"
)

// lineageProject renders a dbt project of two models as manifest.json and
// catalog.json: src, with columns id and a0…a{width-1}, and m, with the
// given SQL and output columns.
func lineageProject(t *testing.T, sql string, width int, outputs []string) (manifest, catalog []byte) {
	t.Helper()
	columns := func(names []string) map[string]any {
		out := map[string]any{}
		for i, n := range names {
			out[n] = map[string]any{"name": n, "type": "INTEGER", "index": i + 1}
		}
		return out
	}
	srcCols := []string{"id"}
	for i := 0; i < width; i++ {
		srcCols = append(srcCols, fmt.Sprintf("a%d", i))
	}
	node := func(name, code string, deps []string) map[string]any {
		return map[string]any{"unique_id": "model.p." + name, "resource_type": "model", "name": name, "package_name": "p",
			"database": "db", "schema": "main", "alias": name, "relation_name": `"db"."main"."` + name + `"`,
			"language": "sql", "compiled_code": code, "checksum": map[string]any{"name": "sha256", "checksum": code},
			"config": map[string]any{"materialized": "table"}, "depends_on": map[string]any{"nodes": deps}, "columns": map[string]any{}}
	}
	m, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.8.7", "adapter_type": "duckdb"},
		"nodes":    map[string]any{"model.p.src": node("src", "select 1", nil), "model.p.m": node("m", sql, []string{"model.p.src"})},
		"sources":  map[string]any{}, "exposures": map[string]any{},
		"child_map": map[string]any{"model.p.src": []string{"model.p.m"}, "model.p.m": []string{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
		"nodes":    map[string]any{"model.p.src": map[string]any{"columns": columns(srcCols)}, "model.p.m": map[string]any{"columns": columns(outputs)}},
		"sources":  map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// TestPolicyEvaluateLineageBudget posts, through a real server, a pull
// request changing one model whose SQL defeats a resolver that repeats
// work: a chain of 16 or 24 CTEs each reading the two before it is read at
// level 2; a chain whose sources grow with the square of its length is
// over its lineage budget and read at level 1, and the answer says so.
// Either way the request is answered.
func TestPolicyEvaluateLineageBudget(t *testing.T) {
	const src = `"db"."main"."src"`
	h, _ := testServer(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	const policyText = "version: 1\nrules:\n  - id: rebuild\n    predicate: { change: { field: kind, op: eq, value: logic_changed } }\n    action: { type: add-to-build-set, include: subject }\n"
	tests := []struct {
		name       string
		base, head string
		width      int
		outputs    []string
		changes    int    // hits of the rule: the changed columns
		warning    string // in changeset_warnings, "" for none
	}{
		{"16 CTEs", lineagetest.CTEChain(16, 1, src), lineagetest.CTEChain(16, 2, src), 2, []string{"id", "a", "b"}, 1, ""},
		{"24 CTEs", lineagetest.CTEChain(24, 1, src), lineagetest.CTEChain(24, 2, src), 2, []string{"id", "a", "b"}, 1, ""},
		{"over the lineage budget", lineagetest.Accumulating(1200, 1, src), lineagetest.Accumulating(1200, 2, src), 1200, []string{"id", "x"}, 2,
			"m: column lineage unavailable (the statement's lineage takes more than 400000 carried sources to resolve, the budget of one statement)"},
	}
	for _, tc := range tests {
		baseManifest, baseCatalog := lineageProject(t, tc.base, tc.width, tc.outputs)
		headManifest, headCatalog := lineageProject(t, tc.head, tc.width, tc.outputs)
		b := artifactBody(t, map[string][]byte{"policy": []byte(policyText), "manifest": headManifest, "catalog": headCatalog,
			"base_manifest": baseManifest, "base_catalog": baseCatalog})
		req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/policy/evaluate", bytes.NewReader(b.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", b.contentType)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got struct {
			Verdict struct {
				Hits []any `json:"hits"`
			} `json:"policy_verdict"`
			Precision string   `json:"precision"`
			Warnings  []string `json:"changeset_warnings"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("%s: %d, %v", tc.name, resp.StatusCode, err)
		}
		if got.Precision != "column" || len(got.Verdict.Hits) != tc.changes {
			t.Errorf("%s: precision %q, %d hits, want column and %d", tc.name, got.Precision, len(got.Verdict.Hits), tc.changes)
		}
		var want []string
		if tc.warning != "" {
			want = []string{tc.warning + "; it counts as reached with unknown mechanisms"}
		}
		if strings.Join(got.Warnings, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: warnings %q, want %q", tc.name, got.Warnings, want)
		}
	}
}

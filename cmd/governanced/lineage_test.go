package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

type cliRun struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, args ...string) cliRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := runE(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
	return cliRun{code: exitCode(err, &stderr), stdout: stdout.String(), stderr: stderr.String()}
}

func pairArgs(t *testing.T) []string {
	pair := testcorpus.Path(t, bouncerPair)
	return []string{
		"--manifest", filepath.Join(pair, "head/manifest.json"), "--catalog", filepath.Join(pair, "head/catalog.json"),
		"--base-manifest", filepath.Join(pair, "base/manifest.json"), "--base-catalog", filepath.Join(pair, "base/catalog.json"),
	}
}

func readJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// TestPolicyChangesetCommand: `policy changeset` prints exactly the changeset
// `policy check` evaluates — for the real pair, the level-2 changeset of the
// lineage corpus (cs-real-pair) and, with --precision model, the level-1 one
// of the reference folder.
func TestPolicyChangesetCommand(t *testing.T) {
	pair := testcorpus.Path(t, bouncerPair)
	tests := []struct {
		precision []string
		want      string
	}{
		{nil, testcorpus.Path(t, "lineage-cases/changeset/cs-real-pair/expected-changeset.json")},
		{[]string{"--precision", "column"}, testcorpus.Path(t, "lineage-cases/changeset/cs-real-pair/expected-changeset.json")},
		{[]string{"--precision", "model"}, filepath.Join(pair, "expected-changeset.level1.json")},
	}
	for _, tc := range tests {
		r := runCLI(t, append(append([]string{"policy", "changeset"}, pairArgs(t)...), tc.precision...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.precision, r.code, r.stderr)
		}
		want, err := os.ReadFile(tc.want)
		if err != nil {
			t.Fatal(err)
		}
		// The corpus omits fields at their defaults (README §2.1): compare
		// after filling them in on both sides.
		if diff := cmp.Diff(fillDefaults(readJSON(t, want)), fillDefaults(readJSON(t, []byte(r.stdout)))); diff != "" {
			t.Errorf("%v: changeset mismatch (-want +got):\n%s", tc.precision, diff)
		}
	}
}

func fillDefaults(v any) any {
	doc, _ := v.(map[string]any)
	changes, _ := doc["changes"].([]any)
	for _, ch := range changes {
		c := ch.(map[string]any)
		for k, def := range map[string]any{"detail": nil, "semantic": nil, "provable_test_break": false, "broken_tests": []any{}} {
			if _, ok := c[k]; !ok {
				c[k] = def
			}
		}
		if r, ok := c["reach"].(map[string]any); ok {
			if _, ok := r["columns_complete"]; !ok {
				r["columns_complete"] = r["columns"] != nil
			}
		}
	}
	return doc
}

// TestPolicyCheckLevel2RealPair: by default `policy check` evaluates the
// level-2 changeset. On the real pair the reformatted staging models and the
// orders columns whose derivation did not change are no longer subjects, so
// the example policy fires on the 13 structural changes only.
func TestPolicyCheckLevel2RealPair(t *testing.T) {
	pair := testcorpus.Path(t, bouncerPair)
	r := runPolicyCheckT(t, t.TempDir(), append([]string{"--policy", filepath.Join(pair, "example-policy.yml"), "--fail-on", "policy"}, pairArgs(t)...)...)
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1 (block)\nstderr: %s", r.code, r.stderr)
	}
	v := r.report(t)["policy_verdict"].(map[string]any)
	var blocked, rebuild []string
	for _, h := range v["hits"].([]any) {
		hit := h.(map[string]any)
		subject := ""
		if hit["change_model"] != nil {
			subject = hit["change_model"].(string) + "." + hit["change_column"].(string)
		}
		switch hit["rule_id"] {
		case "gold-breaking-to-exposure":
			blocked = append(blocked, subject)
		case "rebuild-changed":
			rebuild = append(rebuild, subject)
		}
	}
	wantBlocked := []string{"customers.v3.customer_id_pk", "customers.v3.customer_lifetime_value", "customers.v3.first_name",
		"customers.v3.first_order_date", "customers.v3.is_recurring_customer", "customers.v3.last_name",
		"customers.v3.most_recent_order_date", "customers.v3.new_column", "customers.v3.number_of_orders",
		"orders.customer_id", "orders.customer_id_fk", "orders.order_id", "orders.order_id_pk"}
	if diff := cmp.Diff(wantBlocked, blocked); diff != "" {
		t.Errorf("blocking hits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"orders.customer_id", "orders.order_id"}, rebuild); diff != "" {
		t.Errorf("rebuild hits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"orders"}, v["build_set"]); diff != "" {
		t.Errorf("build_set (-want +got):\n%s", diff)
	}
}

func TestLineageCommand(t *testing.T) {
	pair := testcorpus.Path(t, bouncerPair)
	base := []string{"lineage", "--manifest", filepath.Join(pair, "head/manifest.json"), "--catalog", filepath.Join(pair, "head/catalog.json")}
	r := runCLI(t, append(base, "--model", "stg_orders", "--column", "order_date")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"stg_orders.order_date (downstream)",
		"model orders: direct_passthrough",
		"orders.order_date  direct_passthrough",
		"customers.v3.first_order_date  derived_recompute",
		"model py_order_stats: unknown (not analysable)",
		"exposures: Pulse queries, customers",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, r.stdout)
		}
	}

	r = runCLI(t, append(base, "--model", "customers.v3", "--column", "customer_lifetime_value", "--upstream", "--format", "json")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var up struct {
		Direction string `json:"direction"`
		Edges     []struct {
			FromModel  string `json:"from_model"`
			FromColumn string `json:"from_column"`
			Mechanism  string `json:"mechanism"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &up); err != nil {
		t.Fatal(err)
	}
	if up.Direction != "upstream" || len(up.Edges) != 2 || up.Edges[0].FromModel != "raw_payments" || up.Edges[1].FromModel != "stg_payments" {
		t.Errorf("upstream answer: %+v", up)
	}

	for _, format := range []string{"mermaid", "dot"} {
		r = runCLI(t, append(base, "--model", "stg_payments", "--column", "amount", "--format", format)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		edge := "-->|derived_recompute|"
		if format == "dot" {
			edge = `[label="derived_recompute"]`
		}
		if strings.Count(r.stdout, edge) != 8 {
			t.Errorf("%s: want 8 derived edges from stg_payments.amount:\n%s", format, r.stdout)
		}
	}

	for _, bad := range [][]string{
		{"--model", "stg_orders"},                                      // no --manifest
		append(base[1:], "--model", "x", "--upstream", "--downstream"), // both directions
		append(base[1:], "--model", "x", "--format", "svg"),
	} {
		if r := runCLI(t, append([]string{"lineage"}, bad...)...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, r.code)
		}
	}
	if r := runCLI(t, append(base, "--model", "nope")...); r.code != 2 || !strings.Contains(r.stderr, `no model, snapshot or seed is named "nope"`) {
		t.Errorf("unknown model: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := runCLI(t, append(base, "--model", "orders", "--column", "nope")...); r.code != 2 || !strings.Contains(r.stderr, `orders has no column "nope"`) {
		t.Errorf("unknown column: exit %d, stderr %s", r.code, r.stderr)
	}
}

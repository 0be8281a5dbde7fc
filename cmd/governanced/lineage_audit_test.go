package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// shopTree is a governance tree over the real pair's warehouse: the raw
// customers personal and restricted, the raw payments yellow and internal,
// the customers marts green, open, listed and offered.
const shopTree = `defaults:
  license: CC-BY-4.0
  ownership:
    - name: shop-data
      type: DATA_OWNER
sources:
  dbt.main.raw_customers:
    classification: %s
    access_level: %s
  dbt.main.raw_payments:
    classification: yellow
    access_level: internal
  dbt.main_marts.customers_*:
    classification: %s
    access_level: %s
    expose: true
    row_filters: []
    dataspace:
      expose: true
`

func writeShopTree(t *testing.T, raw, mart [2]string) string {
	t.Helper()
	dir := t.TempDir()
	writePolicyFile(t, dir, "apps/shop/governance.yaml", fmt.Sprintf(shopTree, raw[0], raw[1], mart[0], mart[1]))
	return dir
}

func headArgs(t *testing.T) []string {
	pair := testcorpus.Path(t, bouncerPair)
	return []string{"--manifest", filepath.Join(pair, "head/manifest.json"), "--catalog", filepath.Join(pair, "head/catalog.json")}
}

// TestLineageAuditRealPair: on the real project, with the raw customers
// personal and the marts green and exposed, the audit names the customer
// names in every customers mart with the path through stg_customers, names
// nothing that comes from payments, and exits 1.
func TestLineageAuditRealPair(t *testing.T) {
	tree := writeShopTree(t, [2]string{"pii", "restricted"}, [2]string{"green", "open"})
	r := runCLI(t, append(append([]string{"lineage", "audit"}, headArgs(t)...), "--governance", tree)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"customers.v3.first_name: inferred-above-declared-exposed: pii/restricted above declared green/open [dbt.main_marts.customers_v3]; listed in the catalogue and offered into the dataspace\n" +
			"  raw_customers.first_name  declared pii/restricted [dbt.main.raw_customers]\n" +
			"  → stg_customers.first_name  direct_passthrough\n" +
			"  → customers.v3.first_name  direct_passthrough\n",
		"customers.v3.last_name: inferred-above-declared-exposed: pii/restricted above declared green/open [dbt.main_marts.customers_v3]; listed in the catalogue and offered into the dataspace\n" +
			"  raw_customers.last_name  declared pii/restricted [dbt.main.raw_customers]\n" +
			"  → stg_customers.last_name  direct_passthrough\n",
		"note: stg_customers (dbt.main_stg_crm.stg_customers) matches no governance rule and carries sensitive data in 3 columns",
		"result: fail (findings=9, exposed=9, relations=3, columns=26, incomplete=0)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing\n%s\nin\n%s", want, r.stdout)
		}
	}
	for _, payment := range []string{"customer_lifetime_value", "orders.amount", "raw_payments"} {
		if strings.Contains(r.stdout, payment) {
			t.Errorf("the audit names %s, which carries only yellow/internal data:\n%s", payment, r.stdout)
		}
	}

	r = runCLI(t, append(append([]string{"lineage", "audit"}, headArgs(t)...), "--governance", tree, "--format", "json")...)
	var rep struct {
		Findings []struct {
			Relation, Column string
			Path             []struct{ Relation, Column, Mechanism string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	var names []string
	for _, f := range rep.Findings {
		names = append(names, f.Relation+"."+f.Column)
		if f.Relation == "customers.v3" && f.Column == "first_name" {
			var hops []string
			for _, h := range f.Path {
				hops = append(hops, h.Relation+"."+h.Column+" "+h.Mechanism)
			}
			want := []string{"raw_customers.first_name ", "stg_customers.first_name direct_passthrough", "customers.v3.first_name direct_passthrough"}
			if diff := cmp.Diff(want, hops); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
		}
	}
	want := []string{
		"customers.v1.customer_id", "customers.v1.first_name", "customers.v1.last_name",
		"customers.v2.customer_id", "customers.v2.first_name", "customers.v2.last_name",
		"customers.v3.customer_id_pk", "customers.v3.first_name", "customers.v3.last_name",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// Lower thresholds bring the payments in: the inference carries them,
	// the default thresholds leave them out.
	r = runCLI(t, append(append([]string{"lineage", "audit"}, headArgs(t)...), "--governance", tree, "--min-classification", "yellow", "--min-access-level", "internal")...)
	if !strings.Contains(r.stdout, "customers.v3.customer_lifetime_value: inferred-above-declared-exposed: yellow/internal") {
		t.Errorf("with yellow/internal thresholds the lifetime value is a finding:\n%s", r.stdout)
	}
}

// TestLineageAuditExitStatus: 0 without a finding, 2 on bad input.
func TestLineageAuditExitStatus(t *testing.T) {
	declared := writeShopTree(t, [2]string{"pii", "restricted"}, [2]string{"pii", "secret"})
	broken := writeShopTree(t, [2]string{"PII", "restricted"}, [2]string{"green", "open"})
	ambiguous := writeShopTree(t, [2]string{"pii", "restricted"}, [2]string{"green", "open"})
	writePolicyFile(t, ambiguous, "apps/crm/governance.yaml", "defaults:\n  license: CC-BY-4.0\nsources:\n  dbt.main.raw_customers:\n    classification: red\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"marts declared for what they carry", append(headArgs(t), "--governance", declared), 0, "result: pass (findings=0", ""},
		{"markdown without a finding", append(headArgs(t), "--governance", declared, "--format", "markdown"), 0, "### Lineage audit: PASS", ""},
		{"no governance", headArgs(t), 2, "", "--governance is required"},
		{"no manifest", []string{"--governance", declared}, 2, "", "--manifest is required"},
		{"a tree with errors", append(headArgs(t), "--governance", broken), 2, "", "--governance:"},
		{"an unreadable manifest", []string{"--manifest", filepath.Join(t.TempDir(), "none.json"), "--governance", declared}, 2, "", "none.json"},
		{"a relation two apps declare", append(headArgs(t), "--governance", ambiguous), 2, "",
			"the audit cannot tell what a relation declares when several rules claim it: dbt.main.raw_customers is declared by several apps (crm, shop)"},
		{"an unknown format", append(headArgs(t), "--governance", declared, "--format", "html"), 2, "", `--format "html" is not one of text, json, markdown, sarif`},
		{"an unknown threshold", append(headArgs(t), "--governance", declared, "--min-classification", "secret"), 2, "", "'secret' is not a valid DataClassification"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"lineage", "audit"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", r.code, tc.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestPolicyGovernanceInferred: with --governance, the changeset of the
// real pair carries each changed column's inferred governance, and a
// policy on it blocks the personal data the pull request adds to the
// exposed customers.v3.
func TestPolicyGovernanceInferred(t *testing.T) {
	tree := writeShopTree(t, [2]string{"pii", "restricted"}, [2]string{"green", "open"})
	r := runCLI(t, append(append([]string{"policy", "changeset"}, pairArgs(t)...), "--governance", tree)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var cs struct {
		Models map[string]struct {
			Meta    map[string]any `json:"meta"`
			Columns map[string]struct {
				Meta struct {
					Governance struct {
						Inferred map[string]any `json:"inferred"`
					} `json:"governance"`
				} `json:"meta"`
			} `json:"columns"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cs); err != nil {
		t.Fatal(err)
	}
	first := cs.Models["customers.v3"].Columns["first_name"].Meta.Governance.Inferred
	if first["classification"] != "pii" || first["access_level"] != "restricted" || first["complete"] != true {
		t.Errorf("customers.v3.first_name: %v", first)
	}
	if path, _ := first["path"].([]any); len(path) != 3 {
		t.Errorf("customers.v3.first_name path: %v", first["path"])
	}
	clv := cs.Models["customers.v3"].Columns["customer_lifetime_value"].Meta.Governance.Inferred
	if clv["classification"] != "yellow" || !slices.Contains(clv["through"].([]any), any("sum")) {
		t.Errorf("customers.v3.customer_lifetime_value: %v", clv)
	}

	dir := t.TempDir()
	policyFile := writePolicyFile(t, dir, "governanced.policy.yml", `version: 1
rules:
  - id: pii-into-exposed-dataset
    predicate:
      all:
        - meta: { key: governance.inferred.classification, op: eq, value: pii }
        - meta: { key: governance.dataspace.expose, op: is_true }
        - not: { meta: { key: governance.inferred.through, op: intersects, value: [md5, sha2] } }
    action: { type: block }
`)
	pr := runPolicyCheckT(t, dir, append(append([]string{"--policy", policyFile}, pairArgs(t)...), "--governance", tree, "--fail-on", "policy")...)
	if pr.code != 1 {
		t.Fatalf("exit %d, want 1 (block); stderr %s", pr.code, pr.stderr)
	}
	var subjects []string
	for _, h := range pr.report(t)["policy_verdict"].(map[string]any)["hits"].([]any) {
		h := h.(map[string]any)
		subjects = append(subjects, h["change_model"].(string)+"."+h["change_column"].(string))
	}
	if diff := cmp.Diff([]string{"customers.v3.customer_id_pk", "customers.v3.first_name", "customers.v3.last_name"}, subjects); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}

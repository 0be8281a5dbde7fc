package dbt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRealManifestsLoad: the same project at dbt 1.6 (v10), 1.7 (v11) and
// 1.11 (v12) loads, and a versioned model's version reads the same whether
// the schema writes it as a string (v11) or an integer (v12).
func TestRealManifestsLoad(t *testing.T) {
	tests := []struct {
		dir          string
		version      int
		versionedUID string
		wantVersion  string
	}{
		{"v10-dbt-1.6.0", 10, "", ""},
		{"v11-dbt-1.7.0", 11, "model.dbt_bouncer_test_project.customers.v2", "2"},
		{"pair-a2094336-f5b6f07b/head", 12, "model.dbt_bouncer_test_project.customers.v3", "3"},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			m := manifest(t, filepath.Join(referenceDir, tc.dir, "manifest.json"))
			c := catalog(t, filepath.Join(referenceDir, tc.dir, "catalog.json"))
			if m.SchemaVersion != tc.version || len(m.Warnings) > 0 {
				t.Errorf("schema v%d (warnings %q), want v%d", m.SchemaVersion, m.Warnings, tc.version)
			}
			if len(m.Nodes) == 0 || len(m.Exposures) == 0 || len(m.ChildMap) == 0 || len(c.Nodes) == 0 {
				t.Errorf("nodes %d, exposures %d, child_map %d, catalog nodes %d", len(m.Nodes), len(m.Exposures), len(m.ChildMap), len(c.Nodes))
			}
			if tc.versionedUID != "" {
				if got := m.Nodes[tc.versionedUID].VersionString(); got != tc.wantVersion {
					t.Errorf("version %q, want %q", got, tc.wantVersion)
				}
			}
			orders := m.Nodes["model.dbt_bouncer_test_project.orders"]
			if orders == nil || orders.MergedMeta()["maturity"] != "gold" {
				t.Errorf("orders meta: %v", orders)
			}
		})
	}
}

// TestAcrossSchemaVersions builds a changeset from the v10 manifest to the v11
// one: different schemas on the two sides must not trip the builder.
func TestAcrossSchemaVersions(t *testing.T) {
	cs, _, err := Build(t.Context(), Inputs{
		Base:        manifest(t, filepath.Join(referenceDir, "v10-dbt-1.6.0/manifest.json")),
		Head:        manifest(t, filepath.Join(referenceDir, "v11-dbt-1.7.0/manifest.json")),
		BaseCatalog: catalog(t, filepath.Join(referenceDir, "v10-dbt-1.6.0/catalog.json")),
		HeadCatalog: catalog(t, filepath.Join(referenceDir, "v11-dbt-1.7.0/catalog.json")),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Changes) == 0 {
		t.Fatal("v10 → v11 shows no change at all")
	}
	roundTrip(t, cs)
}

func TestReadManifestErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"too old", `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v9.json", "dbt_version": "1.5.0"}}`, "older than v10"},
		{"not a manifest", `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"}}`, "not a dbt manifest"},
		{"no metadata", `{}`, "not a dbt manifest"},
		{"bad JSON", "{\n  \"metadata\": {,\n}", "m.json:2:16"},
		{"wrong type", `{"metadata": {"dbt_schema_version": 12}}`, "m.json:1:"},
		{"empty", ``, "empty or truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadManifest([]byte(tc.doc), "m.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	m, err := ReadManifest([]byte(`{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v13.json"}}`), "m.json")
	if err != nil || len(m.Warnings) != 1 {
		t.Errorf("a newer manifest must load best-effort with a warning: %v %v", err, m)
	}
	if _, err := ReadCatalog([]byte(`{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v2.json"}}`), "c.json"); err == nil {
		t.Error("catalog v2 must be refused")
	}
}

func TestSQLTokens(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"select a,b from t", "select  a ,\n\tb\nfrom t", true},
		{"( select 1)", "(select 1)", true},
		{"select 1 -- note\nfrom t", "select 1 from t /* other note */", true},
		{"select 'a  b'", "select 'a b'", false},
		{"select 'it''s -- not a comment'", "select 'it''s -- not a comment'", true},
		{"select 'it''s -- x'", "select 'it''s'", false},
		{`select "Col"`, `select "col"`, false},
		{"select Col", "select col", false},
		{"select `a b`", "select `a  b`", false},
		{"select a>=b", "select a > = b", true},
		{"select $1", "select $2", false},
		{"select 1 /* unterminated", "select 1", true},
		{"select 'unterminated", "select 'unterminated", true},
	}
	for _, tc := range tests {
		if got := sameTokens(tc.a, tc.b); got != tc.same {
			t.Errorf("sameTokens(%q, %q) = %v, want %v (tokens %q vs %q)", tc.a, tc.b, got, tc.same, sqlTokens(tc.a), sqlTokens(tc.b))
		}
	}
	want := []string{"select", "x", ",", "'a''b'", "from", `"T"`}
	if diff := cmp.Diff(want, sqlTokens("select x, 'a''b' -- c\n from \"T\"")); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

// TestRealPairReformattingIsNotALogicChange: spec §8.5 on the real pair — five
// nodes changed checksum by reformatting only; only orders really changed.
func TestRealPairReformattingIsNotALogicChange(t *testing.T) {
	in := pairInputs(t)
	var changed []string
	for uid, head := range in.Head.Nodes {
		base := in.Base.Nodes[uid]
		if base == nil || head.ResourceType == "test" || base.Checksum.Checksum == head.Checksum.Checksum {
			continue
		}
		if logicChanged(base, head) {
			changed = append(changed, uid)
		}
	}
	if diff := cmp.Diff([]string{"model.dbt_bouncer_test_project.orders"}, changed); diff != "" {
		t.Errorf("logic changes (-want +got):\n%s", diff)
	}
}

func FuzzSQLTokens(f *testing.F) {
	f.Add("select 'a''b' -- c\n from \"T\" /* x */ where `q` = $1")
	f.Fuzz(func(t *testing.T, sql string) {
		// Re-joining the tokens with spaces is a pure reformatting, so it must
		// give the same tokens back.
		toks := sqlTokens(sql)
		if again := sqlTokens(strings.Join(toks, " ")); !cmp.Equal(toks, again, cmpopts.EquateEmpty()) {
			t.Fatalf("%q: tokens %q, re-joined %q", sql, toks, again)
		}
	})
}

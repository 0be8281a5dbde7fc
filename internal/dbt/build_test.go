package dbt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/policy"
)

// referenceDir holds real dbt artifacts (testdata/reference/dbt/dbt-bouncer
// at the repository's top).
const referenceDir = "../../testdata/reference/dbt/dbt-bouncer"

var pairDir = filepath.Join(referenceDir, "pair-a2094336-f5b6f07b")

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func manifest(t testing.TB, path string) *Manifest {
	t.Helper()
	m, err := ReadManifest(readFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func catalog(t testing.TB, path string) *Catalog {
	t.Helper()
	c, err := ReadCatalog(readFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func pairInputs(t testing.TB) Inputs {
	return Inputs{
		Base:        manifest(t, filepath.Join(pairDir, "base/manifest.json")),
		Head:        manifest(t, filepath.Join(pairDir, "head/manifest.json")),
		BaseCatalog: catalog(t, filepath.Join(pairDir, "base/catalog.json")),
		HeadCatalog: catalog(t, filepath.Join(pairDir, "head/catalog.json")),
	}
}

func asJSONValue(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealPairChangeset is the end-to-end check of spec §9: the real
// dbt-bouncer base/head pair gives exactly the level-1 changeset its folder
// states, and the example policy gives the stated verdict on it.
func TestRealPairChangeset(t *testing.T) {
	cs, warnings, err := Build(t.Context(), pairInputs(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("unexpected warnings: %q", warnings)
	}
	want := asJSONValue(t, json.RawMessage(readFile(t, filepath.Join(pairDir, "expected-changeset.level1.json"))))
	if diff := cmp.Diff(want, asJSONValue(t, cs)); diff != "" {
		t.Fatalf("changeset mismatch (-want +got):\n%s", diff)
	}

	res, err := policy.Check(t.Context(), readFile(t, filepath.Join(pairDir, "example-policy.yml")), "example-policy.yml", cs)
	if err != nil {
		t.Fatal(err)
	}
	var expected struct {
		PolicyVerdict json.RawMessage `json:"policy_verdict"`
		ExitCode      int             `json:"exit_code"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(pairDir, "expected-verdict.json")), &expected); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(asJSONValue(t, expected.PolicyVerdict), asJSONValue(t, res.Verdict)); diff != "" {
		t.Errorf("verdict mismatch (-want +got):\n%s", diff)
	}
	if got := res.Verdict.Decision == policy.DecisionBlock; got != (expected.ExitCode == 1) {
		t.Errorf("decision %s, expected exit code %d", res.Verdict.Decision, expected.ExitCode)
	}
}

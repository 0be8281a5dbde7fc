package treegen

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/keyindex"
)

// TestPipelinesPassTheCheck: the many-pipelines tree is the same for the
// same seed, has the keys and globs asked for, and passes the check with
// its registry, overlays and depends_on entries.
func TestPipelinesPassTheCheck(t *testing.T) {
	opts := PipelinesOptions{Apps: 30, Sources: 40, Seed: 3}
	tree := GeneratePipelines(opts)
	again := GeneratePipelines(opts)
	for p, data := range tree.Files {
		if !bytes.Equal(data, again.Files[p]) {
			t.Fatalf("same seed, different %s", p)
		}
	}
	globs, deps, overlays := 0, 0, 0
	for p, data := range tree.Files {
		switch {
		case strings.HasSuffix(p, ".deploy.yaml"):
			overlays++
		case strings.HasSuffix(p, "/governance.yaml"):
			globs += strings.Count(string(data), "*") + strings.Count(string(data), "?")
			deps += strings.Count(string(data), "- dataset:")
		}
	}
	if overlays < 5 || overlays > 15 || deps < 20 || globs < 30*12 {
		t.Errorf("%d overlays, %d depends_on entries, %d metacharacters: not the shape asked for", overlays, deps, globs)
	}
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	name := "deploy"
	rep, err := check.Run(context.Background(), check.Options{Paths: []string{filepath.Join(dir, "apps", "*")}, OverlayName: &name,
		Owners: []string{filepath.Join(dir, "owners.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	// The warnings the shape has on purpose, as the CELINE files do: a
	// block with no row policy, an unknown key, a consent whose filter a
	// delegated request cannot use.
	expected := map[string]bool{check.CodeRowPolicyUndeclared: true, check.CodeUnknownKey: true, check.CodeConsentFilterNotDelegable: true}
	for _, f := range rep.Findings {
		if f.Severity == check.Error || f.Severity == check.Warning && !expected[f.Code] {
			t.Errorf("%s:%d: %s: %s", f.File, f.Line, f.Code, f.Message)
		}
	}
	if rep.Summary.Bases != 30 {
		t.Errorf("%d bases checked, want 30", rep.Summary.Bases)
	}
	// The names given to query it with resolve as they say.
	for _, n := range tree.GlobNames[:20] {
		if keyindex.HasMeta(n) {
			t.Errorf("glob name %q is itself a pattern", n)
		}
	}
}

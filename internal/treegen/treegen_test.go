package treegen

import (
	"bytes"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
)

func TestGenerateIsDeterministicAndParses(t *testing.T) {
	a := Generate(Options{Apps: 4, Sources: 200, Seed: 7})
	b := Generate(Options{Apps: 4, Sources: 200, Seed: 7})
	if len(a.Files) != len(b.Files) {
		t.Fatalf("same seed, different trees: %d vs %d files", len(a.Files), len(b.Files))
	}
	for p, data := range a.Files {
		if !bytes.Equal(data, b.Files[p]) {
			t.Fatalf("same seed, different %s", p)
		}
	}
	sources := 0
	for p, data := range a.Files {
		if p == "owners.yaml" {
			continue
		}
		cfg, err := governance.Parse(data, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(cfg.Warnings) > 0 {
			t.Errorf("%s: %v", p, cfg.Warnings)
		}
		if !bytes.Contains([]byte(p), []byte(".deploy.")) {
			sources += len(cfg.Sources)
		}
	}
	if sources != 200 {
		t.Errorf("sources = %d, want 200", sources)
	}
	if len(a.ExactNames) == 0 || len(a.GlobNames) == 0 || len(a.MissNames) == 0 {
		t.Errorf("names: %d exact, %d glob, %d miss", len(a.ExactNames), len(a.GlobNames), len(a.MissNames))
	}
}

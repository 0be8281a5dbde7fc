package treegen

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
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

func TestOrder(t *testing.T) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprint(i)
	}
	o := Order(names, 1)
	if len(o.Source) != 1000 || len(o.Random) != 1000 || len(o.Sample) != SampleSize {
		t.Fatalf("lengths %d %d %d", len(o.Source), len(o.Random), len(o.Sample))
	}
	if slices.Equal(o.Random, names) {
		t.Error("Random is not shuffled")
	}
	sorted := slices.Clone(o.Random)
	slices.SortFunc(sorted, func(a, b string) int { return cmpInt(a) - cmpInt(b) })
	if !slices.Equal(sorted, names) {
		t.Error("Random is not a permutation of the names")
	}
	seen := map[string]bool{}
	for _, s := range o.Sample {
		if seen[s] {
			t.Errorf("%s sampled twice", s)
		}
		seen[s] = true
	}
	if !seen["0"] || !seen["990"] {
		t.Errorf("the sample does not span the list: %v", o.Sample)
	}
	if again := Order(names, 1); !slices.Equal(again.Random, o.Random) || !slices.Equal(again.Sample, o.Sample) {
		t.Error("the same seed gave another order")
	}
	if small := Order(names[:10], 1); len(small.Sample) != 10 {
		t.Errorf("a sample of a 10-name list has %d names", len(small.Sample))
	}
}

func cmpInt(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestDependsOnLeavesTheRestAlone checks that DependsOn adds depends_on
// blocks and changes nothing else, so benchmarks of trees without it keep
// measuring the same files.
func TestDependsOnLeavesTheRestAlone(t *testing.T) {
	plain := Generate(Options{Apps: 5, Sources: 300, Seed: 3})
	withDeps := Generate(Options{Apps: 5, Sources: 300, Seed: 3, DependsOn: 4})
	if len(plain.Files) != len(withDeps.Files) {
		t.Fatalf("%d files, want %d", len(withDeps.Files), len(plain.Files))
	}
	for p, data := range withDeps.Files {
		cfg, err := governance.Parse(data, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if p == "owners.yaml" || bytes.Contains([]byte(p), []byte(".deploy.")) {
			if !bytes.Equal(data, plain.Files[p]) {
				t.Errorf("%s changed", p)
			}
			continue
		}
		if len(cfg.DependsOn) != 4 {
			t.Errorf("%s: %d dependencies, want 4", p, len(cfg.DependsOn))
		}
		start := bytes.Index(data, []byte("depends_on:\n"))
		end := bytes.Index(data, []byte("sources:\n"))
		if start < 0 || end < start {
			t.Fatalf("%s: no depends_on block before sources", p)
		}
		if without := append(slices.Clone(data[:start]), data[end:]...); !bytes.Equal(without, plain.Files[p]) {
			t.Errorf("%s differs beyond its depends_on block", p)
		}
	}
}

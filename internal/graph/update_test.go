package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
)

// randomPipelines are pipelines whose keys and dependencies overlap across
// pipelines in every way §5 matches: literal keys, glob keys, literal and
// glob dependencies, globs matching globs' text, self-dependencies,
// externals, inactive producers and cycles.
func randomPipelines(rng *rand.Rand, n int) []Pipeline {
	ps := make([]Pipeline, n)
	for i := range ps {
		ps[i] = randomPipeline(rng, fmt.Sprintf("app%02d", i), n)
	}
	return ps
}

func randomPipeline(rng *rand.Rand, name string, n int) Pipeline {
	layers := []string{"gold", "silver"}
	p := Pipeline{Name: name, Path: "apps/" + name + "/governance.yaml", Active: rng.IntN(5) > 0, Declared: rng.IntN(6) > 0}
	for k := range rng.IntN(6) {
		layer := layers[rng.IntN(2)]
		switch rng.IntN(4) {
		case 0:
			p.Produces = append(p.Produces, fmt.Sprintf("ds.%s.%s_t%d_*", layer, name, k))
		case 1:
			p.Produces = append(p.Produces, fmt.Sprintf("ds.*_%s.%s_t%d", layer, name, rng.IntN(3)))
		default:
			p.Produces = append(p.Produces, fmt.Sprintf("ds.%s.%s_t%d", layer, name, rng.IntN(4)))
		}
	}
	if !p.Declared {
		return p
	}
	p.DependsOn = []governance.Dependency{}
	for range rng.IntN(4) {
		other := fmt.Sprintf("app%02d", rng.IntN(n+2)) // now and then one that does not exist
		layer := layers[rng.IntN(2)]
		var ds string
		switch rng.IntN(4) {
		case 0:
			ds = fmt.Sprintf("ds.*_%s.%s_*", layer, other)
		case 1:
			ds = fmt.Sprintf("ds.%s.%s_t%d", layer, other, rng.IntN(4))
		case 2:
			ds = fmt.Sprintf("ds.%s.%s_t%d_x", layer, other, rng.IntN(4))
		default:
			ds = fmt.Sprintf("ds.*.%s_t?", other)
		}
		p.DependsOn = append(p.DependsOn, governance.Dependency{Dataset: ds, External: rng.IntN(8) == 0, Optional: rng.IntN(5) == 0})
	}
	return p
}

// TestUpdateIsBuild changes, adds and removes pipelines of random graphs
// and compares the graph Update makes from the previous one with the one
// Build makes from scratch.
func TestUpdateIsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for round := range 300 {
		n := 2 + rng.IntN(12)
		before := randomPipelines(rng, n)
		prev := Build(before, Options{})
		after := slices.Clone(before)
		same := make([]bool, len(after))
		for i := range same {
			same[i] = true
		}
		for range 1 + rng.IntN(3) {
			if len(after) == 0 {
				break
			}
			switch i := rng.IntN(len(after)); rng.IntN(4) {
			case 0: // an app removed
				after = slices.Delete(after, i, i+1)
				same = slices.Delete(same, i, i+1)
			case 1: // an app added
				after = slices.Insert(after, i, randomPipeline(rng, fmt.Sprintf("new%02d", round%7), n))
				same = slices.Insert(same, i, false)
			default: // an app changed
				after[i] = randomPipeline(rng, after[i].Name, n)
				same[i] = false
			}
		}
		if len(after) == 0 {
			continue
		}
		names := map[string]bool{}
		dup := false
		for _, p := range after {
			dup = dup || names[p.Name]
			names[p.Name] = true
		}
		if dup {
			continue
		}
		got := Update(prev, after, func(i int) bool { return same[i] }, Options{Workers: 1 + rng.IntN(3)})
		want := Build(after, Options{})
		if diff := cmp.Diff(want.Edges, got.Edges, cmp.AllowUnexported(Edge{})); diff != "" {
			t.Fatalf("round %d: edges (-Build +Update):\n%s", round, diff)
		}
		if diff := cmp.Diff(want.Findings, got.Findings); diff != "" {
			t.Fatalf("round %d: findings (-Build +Update):\n%s", round, diff)
		}
		if diff := cmp.Diff(want.Tiers(), got.Tiers()); diff != "" {
			t.Fatalf("round %d: tiers (-Build +Update):\n%s", round, diff)
		}
		if diff := cmp.Diff(want.ownHit, got.ownHit); diff != "" {
			t.Fatalf("round %d: self hits (-Build +Update):\n%s", round, diff)
		}
	}
}

// TestUpdateUnchangedIsPrev: an update in which no pipeline changed or
// moved is the previous graph itself; one in which a pipeline changed,
// or two swapped places, is a new graph equal to Build's.
func TestUpdateUnchangedIsPrev(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 3))
	all := func(int) bool { return true }
	for range 50 {
		before := randomPipelines(rng, 2+rng.IntN(12))
		prev := Build(before, Options{})
		if got := Update(prev, slices.Clone(before), all, Options{}); got != prev {
			t.Fatal("nothing changed: a new graph")
		}
		changed := rng.IntN(len(before))
		if got := Update(prev, before, func(i int) bool { return i != changed }, Options{}); got == prev {
			t.Fatal("a pipeline changed: the previous graph")
		}
		swapped := slices.Clone(before)
		swapped[0], swapped[1] = swapped[1], swapped[0]
		got := Update(prev, swapped, all, Options{})
		if got == prev {
			t.Fatal("two pipelines swapped: the previous graph")
		}
		if diff := cmp.Diff(Build(swapped, Options{}).Edges, got.Edges, cmp.AllowUnexported(Edge{})); diff != "" {
			t.Fatalf("two pipelines swapped: edges (-Build +Update):\n%s", diff)
		}
	}
}

// TestBuildWorkers: the matching spread over workers finds what one finds.
func TestBuildWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		ps := randomPipelines(rng, 2+rng.IntN(30))
		one := Build(ps, Options{Workers: 1})
		for _, w := range []int{2, 3, 8} {
			many := Build(ps, Options{Workers: w})
			if diff := cmp.Diff(one.Edges, many.Edges, cmp.AllowUnexported(Edge{})); diff != "" {
				t.Fatalf("%d workers (-1 +%d):\n%s", w, w, diff)
			}
			if diff := cmp.Diff(one.Findings, many.Findings); diff != "" {
				t.Fatalf("%d workers findings (-1 +%d):\n%s", w, w, diff)
			}
		}
	}
}

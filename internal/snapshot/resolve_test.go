package snapshot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testfs"
)

// resolveByApps is global resolution in its plainest form: a scan of every
// dataset for the exact key, then every app's own index asked in turn. The
// global glob index must answer exactly as it does.
func resolveByApps(s *Snapshot, name string) (*Dataset, error) {
	var ds []*Dataset
	for _, d := range s.Datasets() {
		if d.ID() == name {
			ds = append(ds, d)
		}
	}
	switch len(ds) {
	case 0:
	case 1:
		return ds[0], nil
	default:
		return nil, ambiguous(name, ds, false)
	}
	var best []*Dataset
	bestLen := -1
	for _, a := range s.apps {
		src, m := a.Config.Lookup(name)
		if src == nil || m.Kind != governance.MatchGlob {
			continue
		}
		n := utf8.RuneCountInString(m.Pattern)
		switch {
		case n > bestLen:
			best, bestLen = []*Dataset{datasetByKey(a, m.Pattern)}, n
		case n == bestLen:
			best = append(best, datasetByKey(a, m.Pattern))
		}
	}
	switch len(best) {
	case 0:
		return nil, ErrNoMatch
	case 1:
		return best[0], nil
	}
	return nil, ambiguous(name, best, true)
}

// TestGlobIndexAnswersAsEveryApp generates apps whose globs overlap across
// apps and inside them (equal lengths, nested prefixes, classes, ?, non-ASCII)
// and compares the two resolutions on names built to hit every case.
func TestGlobIndexAnswersAsEveryApp(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	parts := []string{"a", "b", "ab", "é", "x1", "gold", "_", "."}
	metas := []string{"*", "?", "[ab]", "[!a]", "*_*", "[é-z]"}
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	var globs, ties, misses int
	for round := range 20 {
		files := map[string]string{}
		var keys []string
		for a := range 2 + rng.IntN(4) {
			var b strings.Builder
			b.WriteString("defaults: {}\nsources:\n")
			seen := map[string]bool{}
			for range 3 + rng.IntN(8) {
				key := "ds." + word()
				if rng.IntN(4) > 0 {
					key += metas[rng.IntN(len(metas))] + word()
				}
				if rng.IntN(3) == 0 {
					key += metas[rng.IntN(len(metas))]
				}
				if len(keys) > 0 && rng.IntN(4) == 0 {
					key = keys[rng.IntN(len(keys))] // another app's key: ties between apps
				}
				if seen[key] {
					continue
				}
				seen[key] = true
				keys = append(keys, key)
				fmt.Fprintf(&b, "  %q:\n    title: t\n", key)
			}
			files[fmt.Sprintf("apps/app%d/governance.yaml", a)] = b.String()
		}
		s, err := (&Loader{Inputs: Inputs{Trees: []string{testfs.Tree(t, files)}}}).Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for range 400 {
			names = append(names, "ds."+word()+word()+word())
		}
		for _, k := range keys { // a key's own spelling, and names near it
			names = append(names, k, strings.NewReplacer("*", "zz", "?", "a", "[ab]", "b", "[!a]", "c", "[é-z]", "f").Replace(k))
		}
		for _, name := range names {
			got, gerr := s.Resolve(name)
			want, werr := resolveByApps(s, name)
			var ga, wa *AmbiguousError
			switch {
			case errors.Is(werr, ErrNoMatch):
				misses++
			case errors.As(werr, &wa) && wa.Glob:
				ties++
			case werr == nil && want.Pattern && want.ID() != name:
				globs++
			}
			switch {
			case errors.As(gerr, &ga) && errors.As(werr, &wa):
				if !reflect.DeepEqual(ga, wa) {
					t.Fatalf("round %d, %q: ambiguous %+v, want %+v", round, name, ga, wa)
				}
			case gerr != werr || got != want:
				t.Fatalf("round %d, %q: %v, %v; want %v, %v", round, name, got, gerr, want, werr)
			}
			// Resolution in one app, asked of the tree's index, answers
			// as the app's own index.
			for _, a := range s.apps {
				want := a.Defaults()
				if i, _ := a.Config.LookupIndex(name); i >= 0 {
					want = a.Dataset(i)
				}
				if got, err := s.ResolveIn(a.Name, name); err != nil || got != want {
					t.Fatalf("round %d, ResolveIn(%s, %q) = %v, %v; want %v", round, a.Name, name, got, err, want)
				}
			}
		}
	}
	if globs < 100 || ties < 20 || misses < 100 {
		t.Errorf("the names exercised %d glob matches, %d ties, %d misses: too few to compare", globs, ties, misses)
	}
	t.Logf("%d glob matches, %d ties between apps, %d misses", globs, ties, misses)
}

func datasetByKey(a *App, key string) *Dataset {
	for _, d := range a.Datasets() {
		if d.ID() == key {
			return d
		}
	}
	return nil
}

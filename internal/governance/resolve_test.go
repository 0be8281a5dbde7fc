package governance

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolveConcurrent resolves every name of one configuration on many
// goroutines at once, the cache of merged rules made by whichever comes
// first (go test -race): each answer is the rule a configuration parsed
// alone resolves, and later answers are the cached rule itself.
func TestResolveConcurrent(t *testing.T) {
	doc := []byte(`defaults:
  license: CC-BY-4.0
  ownership: [{name: ops, type: owner}]
sources:
  datasets.raw.meters:
    classification: internal
  datasets.raw.*:
    tags: [raw]
  datasets.*_silver.weather_*:
    access_level: open
`)
	names := []string{"datasets.raw.meters", "datasets.raw.prices", "datasets.x_silver.weather_hourly", "other"}
	want := map[string]string{}
	alone, err := Parse(doc, "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		r, m := alone.Resolve(n)
		want[n] = string(mustJSON(t, r)) + " " + m.Kind.String() + " " + m.Pattern
	}
	cfg, err := Parse(doc, "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, n := range names {
				r, m := cfg.Resolve(n)
				if got := string(mustJSON(t, r)) + " " + m.Kind.String() + " " + m.Pattern; got != want[n] {
					t.Errorf("Resolve(%q) concurrently:\n%s", n, cmp.Diff(want[n], got))
				}
			}
		})
	}
	wg.Wait()
	for _, n := range names {
		r1, _ := cfg.Resolve(n)
		if r2, _ := cfg.Resolve(n); r1 != r2 {
			t.Errorf("Resolve(%q) merged again: the cache holds no rule for it", n)
		}
	}
}

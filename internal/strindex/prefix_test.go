package strindex

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrefixSetEach(t *testing.T) {
	tests := []struct {
		name     string
		prefixes []string
		probe    string
		want     []int
	}{
		{name: "none", prefixes: nil, probe: "abc", want: nil},
		{name: "empty prefix matches everything", prefixes: []string{"", "x"}, probe: "abc", want: []int{0}},
		{name: "shortest first", prefixes: []string{"abc", "a", "ab", "b"}, probe: "abcd", want: []int{1, 2, 0}},
		{name: "the whole name is a prefix of itself", prefixes: []string{"abc"}, probe: "abc", want: []int{0}},
		{name: "longer than the name", prefixes: []string{"abcd"}, probe: "abc", want: nil},
		{name: "repeats keep the first", prefixes: []string{"a", "a"}, probe: "ab", want: []int{0}},
		{name: "same length, other text", prefixes: []string{"ab", "ac"}, probe: "ac.x", want: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			NewPrefixSet(tt.prefixes).Each(tt.probe, func(i int) bool { got = append(got, i); return true })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Each(%q) (-want +got):\n%s", tt.probe, diff)
			}
		})
	}
}

func TestPrefixSetStops(t *testing.T) {
	calls := 0
	NewPrefixSet([]string{"a", "ab", "abc"}).Each("abcd", func(int) bool { calls++; return false })
	if calls != 1 {
		t.Fatalf("yield called %d times after returning false, want 1", calls)
	}
}

func FuzzPrefixSet(f *testing.F) {
	f.Add("ds.,ds.a,,x", "ds.ab")
	f.Fuzz(func(t *testing.T, joined, name string) {
		prefixes := strings.Split(joined, ",")
		var want []int
		seen := map[string]bool{}
		for l := 0; l <= len(name); l++ {
			for i, p := range prefixes {
				if len(p) == l && strings.HasPrefix(name, p) && !seen[p] {
					seen[p] = true
					want = append(want, i)
				}
			}
		}
		var got []int
		NewPrefixSet(prefixes).Each(name, func(i int) bool { got = append(got, i); return true })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Each(%q) over %q (-want +got):\n%s", name, prefixes, diff)
		}
		// The same set probed with the ends of the name.
		want, got = nil, nil
		seen = map[string]bool{}
		for l := 0; l <= len(name); l++ {
			for i, p := range prefixes {
				if len(p) == l && strings.HasSuffix(name, p) && !seen[p] {
					seen[p] = true
					want = append(want, i)
				}
			}
		}
		NewPrefixSet(prefixes).EachSuffix(name, func(i int) bool { got = append(got, i); return true })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("EachSuffix(%q) over %q (-want +got):\n%s", name, prefixes, diff)
		}
	})
}

package strindex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		found map[string]int
		miss  []string
	}{
		{name: "empty", keys: nil, miss: []string{"", "a"}},
		{name: "empty key", keys: []string{"", "a"}, found: map[string]int{"": 0, "a": 1}, miss: []string{"b"}},
		{name: "repeat keeps first", keys: []string{"x", "y", "x", "y", "z"}, found: map[string]int{"x": 0, "y": 1, "z": 4}, miss: []string{"w", "xy"}},
		{name: "prefixes are distinct keys", keys: []string{"ab", "abc", "a"}, found: map[string]int{"ab": 0, "abc": 1, "a": 2}, miss: []string{"abcd", "b", "bc"}},
		{name: "bytes, not runes", keys: []string{"é", "e\u0301", "\xff"}, found: map[string]int{"é": 0, "e\u0301": 1, "\xff": 2}, miss: []string{"e", "\xfe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := New(tt.keys)
			if ix.Len() != len(tt.keys) {
				t.Errorf("Len() = %d, want %d", ix.Len(), len(tt.keys))
			}
			for k, want := range tt.found {
				if got := ix.Lookup(k); got != want {
					t.Errorf("Lookup(%q) = %d, want %d", k, got, want)
				}
			}
			for _, k := range tt.miss {
				if got := ix.Lookup(k); got != -1 {
					t.Errorf("Lookup(%q) = %d, want -1", k, got)
				}
			}
			for i, k := range tt.keys {
				if got := ix.Key(i); got != k {
					t.Errorf("Key(%d) = %q, want %q", i, got, k)
				}
			}
		})
	}
}

// TestAgainstMap checks every size class of the table (the position bits and
// the tag bits change with the number of keys) against a map.
func TestAgainstMap(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 100, 1 << 10, 1<<10 + 1, 50_000} {
		keys := make([]string, n)
		want := map[string]int{}
		for i := range keys {
			keys[i] = fmt.Sprintf("datasets.ds_%d.t_%d", i%97, i/3) // a third are repeats
			if _, ok := want[keys[i]]; !ok {
				want[keys[i]] = i
			}
		}
		half := n / 2
		joined := Join([]*Index{New(keys[:half]), New(nil), Join([]*Index{New(keys[half:])})})
		for _, ix := range []*Index{New(keys), joined} {
			if ix.Len() != n {
				t.Fatalf("n=%d: Len() = %d", n, ix.Len())
			}
			for k, w := range want {
				if got := ix.Lookup(k); got != w {
					t.Fatalf("n=%d: Lookup(%q) = %d, want %d", n, k, got, w)
				}
				if got := ix.Lookup(k + "x"); got != -1 {
					t.Fatalf("n=%d: Lookup(%q) = %d, want -1", n, k+"x", got)
				}
			}
			if got := ix.Key(n - 1); got != keys[n-1] {
				t.Fatalf("n=%d: Key(%d) = %q, want %q", n, n-1, got, keys[n-1])
			}
		}
	}
}

func TestEmptyJoin(t *testing.T) {
	for _, ix := range []*Index{Join(nil), Join([]*Index{New(nil)})} {
		if ix.Len() != 0 || ix.Lookup("a") != -1 {
			t.Fatal("an empty joined index should hold nothing")
		}
	}
}

func TestNilIndex(t *testing.T) {
	var ix *Index
	if ix.Lookup("a") != -1 || ix.Len() != 0 {
		t.Fatal("a nil index should hold nothing")
	}
}

func FuzzLookup(f *testing.F) {
	f.Add("a,b,a,,c", "a")
	f.Add("datasets.x,datasets.y", "datasets.z")
	f.Fuzz(func(t *testing.T, joined, probe string) {
		keys := strings.Split(joined, ",")
		want := map[string]int{}
		for i, k := range keys {
			if _, ok := want[k]; !ok {
				want[k] = i
			}
		}
		ix := New(keys)
		for _, k := range append(keys, probe) {
			w, ok := want[k]
			if !ok {
				w = -1
			}
			if got := ix.Lookup(k); got != w {
				t.Fatalf("Lookup(%q) = %d, want %d", k, got, w)
			}
		}
	})
}

func TestRepeats(t *testing.T) {
	tests := []struct {
		name  string
		parts [][]string // one part: New; more: Join of each part's New
		want  []Repeat
	}{
		{name: "none", parts: [][]string{{"a", "b", "c"}}},
		{name: "empty", parts: [][]string{nil}},
		{name: "each repeat names the first", parts: [][]string{{"x", "y", "x", "y", "x"}}, want: []Repeat{{2, 0}, {3, 1}, {4, 0}}},
		{name: "across parts", parts: [][]string{{"a", "b"}, {}, {"b", "c", "a"}}, want: []Repeat{{2, 1}, {4, 0}}},
		{name: "within a part, joined", parts: [][]string{{"a"}, {"c", "c"}}, want: []Repeat{{2, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ix *Index
			if len(tt.parts) == 1 {
				ix = New(tt.parts[0])
			} else {
				var parts []*Index
				for _, p := range tt.parts {
					parts = append(parts, New(p))
				}
				ix = Join(parts)
			}
			if diff := cmp.Diff(tt.want, ix.Repeats()); diff != "" {
				t.Errorf("Repeats() (-want +got):\n%s", diff)
			}
		})
	}
}

package strindex

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuckets(t *testing.T) {
	var bb BucketsBuilder[string]
	for _, e := range []struct{ prefix, entry string }{
		{"ds.", "ds.b*"}, {"ds.a", "ds.a?"}, {"ds.", "ds.a*"}, {"x", "x*"}, {"", "*"},
	} {
		bb.Add(e.prefix, e.entry)
	}
	b := bb.Build(func(g []string) { slices.Sort(g) })
	if b.Len() != 5 {
		t.Errorf("Len() = %d, want 5", b.Len())
	}
	tests := []struct {
		name string
		want [][]string
	}{
		{"ds.ab", [][]string{{"*"}, {"ds.a*", "ds.b*"}, {"ds.a?"}}},
		{"ds.", [][]string{{"*"}, {"ds.a*", "ds.b*"}}},
		{"y", [][]string{{"*"}}},
	}
	for _, tt := range tests {
		var got [][]string
		b.Each(tt.name, func(g []string) bool { got = append(got, g); return true })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Each(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	calls := 0
	b.Each("ds.ab", func([]string) bool { calls++; return false })
	if calls != 1 {
		t.Errorf("yield called %d times after returning false, want 1", calls)
	}
}

package pyglob

import (
	"io/fs"
	"path"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// mapFS answers for path text as names of an fstest.MapFS, lexically.
type mapFS struct{ m fstest.MapFS }

func (f mapFS) name(p string) string { return path.Clean("./" + p) }

func (f mapFS) Lexists(p string) bool {
	_, err := fs.Stat(f.m, f.name(p))
	return err == nil
}

func (f mapFS) IsDir(p string) bool {
	info, err := fs.Stat(f.m, f.name(p))
	return err == nil && info.IsDir()
}

func (f mapFS) ReadDir(p string) []fs.DirEntry {
	es, _ := fs.ReadDir(f.m, f.name(p))
	return es
}

func (f mapFS) Identity(p string) string { return f.name(p) }

func TestSorted(t *testing.T) {
	f := mapFS{fstest.MapFS{
		"apps/a/governance.yaml":   {},
		"apps/a-b/governance.yaml": {},
		"apps/a.c/x":               {},
		"apps/.h/governance.yaml":  {},
		"apps/README.md":           {},
		"top":                      {},
	}}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"apps/*", []string{"apps/README.md", "apps/a", "apps/a-b", "apps/a.c"}},
		{"apps/*/", []string{"apps/a-b/", "apps/a.c/", "apps/a/"}},
		{"apps/.*/governance.yaml", []string{"apps/.h/governance.yaml"}},
		{"apps/**/governance.yaml", []string{"apps/a-b/governance.yaml", "apps/a/governance.yaml"}},
		{"**", []string{"apps", "apps/README.md", "apps/a", "apps/a-b", "apps/a-b/governance.yaml", "apps/a.c", "apps/a.c/x", "apps/a/governance.yaml", "top"}},
		{"**/", []string{"apps/", "apps/a-b/", "apps/a.c/", "apps/a/"}},
		{"./ap[p]s//a", []string{"./apps/a"}},
		{"apps/a", []string{"apps/a"}},
		{"apps/missing/*", nil},
		{"top/**", []string{"top/"}}, // as Python 3.11: "" under a file
	} {
		if diff := cmp.Diff(tc.want, Sorted(f, tc.pattern)); diff != "" {
			t.Errorf("Sorted(%q) (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][2]string{
		"apps/*/": {"apps/*", ""}, "apps//*": {"apps", "*"}, "/x": {"/", "x"}, "x": {"", "x"}, "//": {"//", ""},
	} {
		if h, tl := Split(in); h != want[0] || tl != want[1] {
			t.Errorf("Split(%q) = %q, %q, want %q", in, h, tl, want)
		}
	}
}

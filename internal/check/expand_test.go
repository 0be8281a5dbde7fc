package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testfs"
)

func TestDisplayPath(t *testing.T) {
	for in, want := range map[string]string{
		"./apps//grid/":                "apps/grid",
		"./apps//grid/governance.yaml": "apps/grid/governance.yaml",
		"":                             ".",
		".":                            ".",
		"./":                           ".",
		"../x/./y":                     "../x/y",
		"/abs//p/":                     "/abs/p",
		"/":                            "/",
	} {
		if got := displayPath(in); got != want {
			t.Errorf("displayPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOverlayName(t *testing.T) {
	for in, want := range map[string]string{
		"governance.grid.yaml":  "grid",
		"governance.a.b.yaml":   "a.b",
		"governance..yaml":      "",
		"governance...yaml":     ".",
		"governance.yaml":       "",
		"governance.grid.yml":   "",
		"Governance.grid.yaml":  "",
		"xgovernance.grid.yaml": "",
	} {
		if got := overlayName(in); got != want {
			t.Errorf("overlayName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppName(t *testing.T) {
	for in, want := range map[string]string{
		"apps/grid/governance.yaml": "grid",
		"governance.yaml":           "",
		"../governance.yaml":        "",
		"/governance.yaml":          "",
		"x/../governance.yaml":      "",
	} {
		if got := appName(in); got != want {
			t.Errorf("appName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGlob holds the shell-glob semantics of check.md §3.1 (Python's
// glob(recursive=True)): fnmatch per segment, hidden entries only for a
// segment starting with ".", "**" for zero or more levels, code-point order.
func TestGlob(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/b/governance.yaml":      "",
		"apps/a/governance.yaml":      "",
		"apps/B/governance.yaml":      "",
		"apps/.h/governance.yaml":     "",
		"apps/a/deep/governance.yaml": "",
		"apps/[x]/governance.yaml":    "",
		"apps/a/governance.grid.yaml": "",
		"apps/README.md":              "",
	})
	r, err := newTree(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"apps/*", []string{"apps/B", "apps/README.md", "apps/[x]", "apps/a", "apps/b"}},
		{"apps/.*", []string{"apps/.h"}},
		{"apps/[ab]/governance.yaml", []string{"apps/a/governance.yaml", "apps/b/governance.yaml"}},
		{"apps/[!a]", []string{"apps/B", "apps/b"}},
		{"apps/[x", nil}, // an unclosed bracket is literal, and no entry is called "[x"
		{"apps/?/governance.*.yaml", []string{"apps/a/governance.grid.yaml"}},
		{"apps/**/governance.yaml", []string{"apps/B/governance.yaml", "apps/[x]/governance.yaml", "apps/a/deep/governance.yaml", "apps/a/governance.yaml", "apps/b/governance.yaml"}},
		{"./apps//a/*", []string{"apps/a/deep", "apps/a/governance.grid.yaml", "apps/a/governance.yaml"}},
		{"apps/*/", []string{"apps/B", "apps/[x]", "apps/a", "apps/b"}},
		{"nothing/*", nil},
		{"nothing/../apps/[a]", nil}, // ".." after nothing names nothing, as in the operating system
		{"apps/../apps/[a]", []string{"apps/../apps/a"}},
		{"apps/a/governance.yaml/**", nil}, // "**" under a file: Python's "governance.yaml/" is no directory
		{"apps/a/**", []string{"apps/a", "apps/a/deep", "apps/a/deep/governance.yaml", "apps/a/governance.grid.yaml", "apps/a/governance.yaml"}},
	} {
		if diff := cmp.Diff(tc.want, r.glob(tc.pattern)); diff != "" {
			t.Errorf("glob(%q) (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

// Package graphcases reads the command-level cases of the dependency graph: a
// directory per case holding a working tree, the arguments of `graph`, and
// the exact standard output, standard error and exit status expected
// (testdata/cases/README.md describes the format). The graph package's tests
// run them through graph.RunCLI, governanced's through `governanced graph`.
//
// Besides the cases kept here, GOVERNANCE_GRAPH_CASES_DIR may name another
// directory in the same format, whose cases run by the same rules.
package graphcases

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// EnvDir names an extra directory of cases.
const EnvDir = "GOVERNANCE_GRAPH_CASES_DIR"

// Case is one command-level case.
type Case struct {
	Name string
	// Tree is the working directory the command runs in; "" when the case
	// has none (the runner makes an empty one).
	Tree        string
	Args        []string
	Stdout      string
	Stderr      string         // compared exactly, unless StderrMatch is set
	StderrMatch *regexp.Regexp // a whole-output pattern, for messages the spec leaves free
	Exit        int
}

// Dirs are the case directories to run: the package's own and, when set,
// GOVERNANCE_GRAPH_CASES_DIR.
func Dirs() []string {
	_, file, _, _ := runtime.Caller(0)
	dirs := []string{filepath.Join(filepath.Dir(file), "..", "testdata", "cases")}
	if extra := os.Getenv(EnvDir); extra != "" {
		dirs = append(dirs, extra)
	}
	return dirs
}

// Load reads every case under dir, in name order.
func Load(dir string) ([]Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := loadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", e.Name(), err)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Case) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func loadCase(dir string) (Case, error) {
	c := Case{Name: filepath.Base(dir)}
	if info, err := os.Stat(filepath.Join(dir, "tree")); err == nil && info.IsDir() {
		c.Tree = filepath.Join(dir, "tree")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		for l := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
			if len(b) > 0 {
				c.Args = append(c.Args, l)
			}
		}
	} else if !os.IsNotExist(err) {
		return c, err
	}
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return string(b), err
	}
	var err error
	if c.Stdout, err = read("stdout"); err != nil {
		return c, err
	}
	if m, err := read("stderr-match"); err == nil {
		if c.StderrMatch, err = regexp.Compile(strings.TrimSuffix(m, "\n")); err != nil {
			return c, err
		}
	} else if c.Stderr, err = read("stderr"); err != nil {
		return c, err
	}
	exit, err := read("exit")
	if err != nil {
		return c, err
	}
	if c.Exit, err = strconv.Atoi(strings.TrimSpace(exit)); err != nil {
		return c, fmt.Errorf("exit: %w", err)
	}
	return c, nil
}

// WorkDir is the directory to run the case in: its tree, or a new empty one.
func (c *Case) WorkDir(t testing.TB) string {
	if c.Tree != "" {
		return c.Tree
	}
	return t.TempDir()
}

// Check compares what a run produced with the case.
func (c *Case) Check(t testing.TB, stdout, stderr string, exit int) {
	t.Helper()
	if exit != c.Exit {
		t.Errorf("exit status %d, want %d", exit, c.Exit)
	}
	if stdout != c.Stdout {
		t.Errorf("standard output:\n%q\nwant:\n%q", stdout, c.Stdout)
	}
	if c.StderrMatch != nil {
		if !c.StderrMatch.MatchString(stderr) {
			t.Errorf("standard error:\n%q\ndoes not match %s", stderr, c.StderrMatch)
		}
	} else if stderr != c.Stderr {
		t.Errorf("standard error:\n%q\nwant:\n%q", stderr, c.Stderr)
	}
}

// Run runs every case of Dirs as a subtest of t named after the case, run
// being one command's run of it, and fails t when there is no case at all:
// a runner that found none would otherwise pass.
func Run(t *testing.T, run func(t *testing.T, c Case)) {
	t.Helper()
	n := 0
	for _, dir := range Dirs() {
		cases, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			n++
			t.Run(c.Name, func(t *testing.T) { run(t, c) })
		}
	}
	if n == 0 {
		t.Fatal("no graph cases found")
	}
}

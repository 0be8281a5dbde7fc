// Package testcorpus finds the test data the project keeps under the
// repository's top-level testdata/ directory, or a directory named by an
// environment variable instead, for tests of every package.
//
// A corpus-driven test states how many inputs it expects: a missing directory
// or a corpus much smaller than expected fails the test rather than letting it
// pass on whatever is left.
package testcorpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Root returns the absolute path of the repository's testdata/ directory,
// found by walking up from the working directory to the directory holding
// go.mod. It fails the test when there is none.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			root := filepath.Join(dir, "testdata")
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				tb.Fatalf("test data directory %s is missing: the repository's testdata/ holds every file the tests read", root)
			}
			return root
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the working directory: cannot find the repository's testdata/")
		}
		dir = parent
	}
}

// Path returns testdata/<rel> (rel slash-separated), failing the test when it
// does not exist.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Root(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("test data %s is missing (scripts/sync-testdata.sh refreshes testdata/): %v", p, err)
	}
	return p
}

// Dir returns the directory a corpus is read from: the value of the
// environment variable env when it is set, else testdata/<rel>. It fails the
// test when the directory does not exist.
func Dir(tb testing.TB, env, rel string) string {
	tb.Helper()
	if d := os.Getenv(env); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			tb.Fatal(err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			tb.Fatalf("%s=%s: not a directory", env, d)
		}
		return abs
	}
	return Path(tb, rel)
}

// Glob returns the files matching pattern (filepath.Glob syntax) under dir,
// failing the test when fewer than min match: a corpus that shrank would
// otherwise let the test pass on what is left.
func Glob(tb testing.TB, dir, pattern string, min int) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) < min {
		tb.Fatalf("%s: %d files match %s, expected at least %d: is the corpus missing or incomplete?", dir, len(files), pattern, min)
	}
	return files
}

// ReferenceApps returns the governance.yaml of every reference CELINE
// pipeline under testdata/reference/celine-pipelines/apps: 17 of them.
func ReferenceApps(tb testing.TB) []string {
	tb.Helper()
	return Glob(tb, Path(tb, "reference/celine-pipelines/apps"), "*/governance.yaml", 17)
}

// ReadFiles returns the contents of paths, in their order, failing the
// test on the first that cannot be read.
func ReadFiles(tb testing.TB, paths []string) [][]byte {
	tb.Helper()
	out := make([][]byte, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = data
	}
	return out
}

// AtLeast fails the test when a corpus yielded fewer than min inputs.
func AtLeast(tb testing.TB, what string, got, min int) {
	tb.Helper()
	if got < min {
		tb.Fatalf("%s: %d inputs, expected at least %d: is the corpus missing or incomplete?", what, got, min)
	}
}

// A Corpus is a directory of test inputs that an environment variable can
// replace, with the number of inputs the project's own copy holds.
type Corpus struct {
	Env   string // the variable naming another directory, e.g. GOVERNANCE_CONFORMANCE_DIR
	Rel   string // the directory under testdata/, slash-separated
	Count int    // how many inputs testdata/<Rel> holds
}

// Dir returns the corpus directory (see the package-level Dir).
func (c Corpus) Dir(tb testing.TB) string {
	tb.Helper()
	return Dir(tb, c.Env, c.Rel)
}

// Check fails the test when a run found fewer inputs than expected: the
// project's own copy must hold at least Count, a directory named by Env at
// least one, since a held-back or updated set may be any size.
func (c Corpus) Check(tb testing.TB, got int) {
	tb.Helper()
	min := c.Count
	if os.Getenv(c.Env) != "" {
		min = 1
	}
	AtLeast(tb, c.Dir(tb), got, min)
}

// SQLCase is a statement of the column-lineage corpus
// (testdata/lineage-cases/sql): its file, id and SQL, the dialect it is
// written in ("" for none), and whether the reference tool parsed it.
type SQLCase struct {
	File, ID, SQL, Dialect string
	ParseOK                bool
}

// LineageSQL reads every statement of the lineage corpus, failing the test
// when the corpus holds fewer than its 82 or one cannot be read.
func LineageSQL(tb testing.TB) []SQLCase {
	tb.Helper()
	var out []SQLCase
	for _, f := range Glob(tb, Path(tb, "lineage-cases"), "sql/*.json", 82) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var c struct {
			ID       string  `json:"id"`
			SQL      string  `json:"sql"`
			Dialect  *string `json:"dialect"`
			Expected struct {
				ParseOK bool `json:"parse_ok"`
			} `json:"expected"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		sc := SQLCase{File: f, ID: c.ID, SQL: c.SQL, ParseOK: c.Expected.ParseOK}
		if c.Dialect != nil {
			sc.Dialect = *c.Dialect
		}
		out = append(out, sc)
	}
	return out
}

// SqlglotSelects reads testdata/sqlglot/selects.tsv, the SELECT statements
// of the reference parser's dialect tests that this project's parser
// reads: each a SQLCase whose File is "selects.tsv", ID its line number,
// and Dialect its dbt adapter type. It fails the test when the file holds
// fewer than its 766 or a line is not a dialect, a tab and a statement.
func SqlglotSelects(tb testing.TB) []SQLCase {
	tb.Helper()
	data, err := os.ReadFile(Path(tb, "sqlglot/selects.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []SQLCase
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		dialect, sql, ok := strings.Cut(line, "\t")
		if !ok || dialect == "" || sql == "" {
			tb.Fatalf("selects.tsv:%d: want a dialect, a tab and a statement, got %q", i+1, line)
		}
		out = append(out, SQLCase{File: "selects.tsv", ID: strconv.Itoa(i + 1), SQL: sql, Dialect: dialect, ParseOK: true})
	}
	AtLeast(tb, "sqlglot/selects.tsv", len(out), 766)
	return out
}

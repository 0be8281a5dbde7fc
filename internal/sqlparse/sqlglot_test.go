package sqlparse

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// TestSqlglotStatements: the SELECT statements of the reference parser's
// own dialect tests (sqlglot 26.9.0) that this parser reads keep being
// read, each printing to SQL that reads back to the same print. The
// statements it does not read are not in the file; grammar.md lists
// those constructs.
func TestSqlglotStatements(t *testing.T) {
	for _, c := range sqlglotStatements(t) {
		q, err := Parse(c.sql, c.dialect)
		if err != nil {
			t.Errorf("selects.tsv:%d (%s): %v\n%s", c.line, c.dialect.Name(), err, c.sql)
			continue
		}
		checkRoundTrip(t, fmt.Sprintf("selects.tsv:%d", c.line), q, c.dialect)
	}
}

type sqlglotStatement struct {
	line    int
	dialect Dialect
	sql     string
}

// sqlglotStatements reads testdata/sqlglot/selects.tsv.
func sqlglotStatements(tb testing.TB) []sqlglotStatement {
	tb.Helper()
	f, err := os.Open(testcorpus.Path(tb, "sqlglot/selects.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []sqlglotStatement
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			continue
		}
		adapter, sql, ok := strings.Cut(text, "\t")
		d, known := DialectFor(adapter)
		if !ok || !known {
			tb.Fatalf("selects.tsv:%d: want a dialect, a tab and a statement, got %q", line, text)
		}
		out = append(out, sqlglotStatement{line: line, dialect: d, sql: sql})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	testcorpus.AtLeast(tb, "sqlglot/selects.tsv", len(out), 559)
	return out
}

package sqlparse

import (
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// TestSqlglotStatements: the SELECT statements of the reference parser's
// own dialect tests (sqlglot 26.9.0) that this parser reads keep being
// read, each printing to SQL that reads back to the same print. The
// statements it does not read are not in the file; grammar.md lists
// those constructs.
func TestSqlglotStatements(t *testing.T) {
	for _, c := range testcorpus.SqlglotSelects(t) {
		d, ok := DialectFor(c.Dialect)
		if !ok {
			t.Fatalf("selects.tsv:%s: unknown dialect %q", c.ID, c.Dialect)
		}
		q, err := Parse(c.SQL, d)
		if err != nil {
			t.Errorf("selects.tsv:%s (%s): %v\n%s", c.ID, c.Dialect, err, c.SQL)
			continue
		}
		checkRoundTrip(t, "selects.tsv:"+c.ID, q, d)
	}
}

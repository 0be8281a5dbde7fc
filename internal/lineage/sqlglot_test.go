package lineage

import (
	"testing"

	"github.com/celine-eu/governanced/internal/sqlparse"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// TestAnalyzeSqlglotStatements: every statement of the reference parser's
// dialect tests that the parser reads (testdata/sqlglot) is analyzed in
// its dialect without error, to a well-formed result (checkWellFormed).
func TestAnalyzeSqlglotStatements(t *testing.T) {
	for _, c := range testcorpus.SqlglotSelects(t) {
		d, ok := sqlparse.DialectFor(c.Dialect)
		if !ok {
			t.Fatalf("selects.tsv:%s: unknown dialect %q", c.ID, c.Dialect)
		}
		t.Run(c.ID, func(t *testing.T) {
			res, err := Analyze(t.Context(), c.SQL, Options{Dialect: d, Catalog: testCatalog})
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.Dialect, err, c.SQL)
			}
			checkWellFormed(t, res)
		})
	}
}

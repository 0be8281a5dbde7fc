package lineage

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// TestHostileColumns: COLUMNS(…) over a wide relation in a large
// expression makes an item for each column, each as large as the
// expression; a long pattern is tested against each name; $n is looked for
// among every column: the budget stops each product before it is made
// whole, and a wide relation picked plainly costs its columns.
func TestHostileColumns(t *testing.T) {
	wide := make([]string, 5000)
	for i := range wide {
		wide[i] = "c" + strconv.Itoa(i)
	}
	catalog := func(r Relation) ([]string, bool) { return wide, r.Name == "wide" }
	big := "select columns(*) " + strings.Repeat("+ 1 ", 3000) + "from wide"
	_, err := Analyze(t.Context(), big, Options{Dialect: sqlparse.DuckDB, Catalog: catalog, Budget: Budget{Nodes: 100_000}})
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Errorf("a 3000-node expression over 5000 columns, within 100,000 nodes: got %v, want a budget error", err)
	}
	for _, tc := range []struct {
		d   sqlparse.Dialect
		sql string
	}{
		{sqlparse.DuckDB, "select * like '" + strings.Repeat("%c", 20_000) + "' from wide"},
		{sqlparse.DuckDB, "select columns('" + strings.Repeat("c?", 20_000) + "') from wide"},
		{sqlparse.Snowflake, "select " + strings.Repeat("$4999 + ", 1000) + "1 from wide"},
	} {
		if _, err := Analyze(t.Context(), tc.sql, Options{Dialect: tc.d, Catalog: catalog}); !errors.As(err, &be) {
			t.Errorf("%.40s… over 5000 columns: got %v, want a budget error", tc.sql, err)
		}
	}
	plain := "select columns('^c'), max(columns(* exclude (c0))) from wide"
	res, err := Analyze(t.Context(), plain, Options{Dialect: sqlparse.DuckDB, Catalog: catalog})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 2*5000-1 || res.Work.Nodes > 40*2*5000 {
		t.Errorf("%d columns, %d nodes visited", len(res.Columns), res.Work.Nodes)
	}
}

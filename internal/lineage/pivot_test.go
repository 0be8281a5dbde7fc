package lineage

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// TestPivot: a PIVOT's columns are the conditional aggregates they equal,
// derived from the aggregate's arguments and the columns pivoted on, beside
// the columns it groups by; an UNPIVOT's value columns pass on each column
// they gather, one entry each, as a UNION ALL's do.
func TestPivot(t *testing.T) {
	tests := []struct {
		name, sql string
		dialect   sqlparse.Dialect
		want      []string
		complete  bool
	}{
		{"snowflake: values named as written, a default", "select * from quarterly_sales pivot(sum(amount) for quarter in ('Q1', 'Q2') default on null (0))", sqlparse.Snowflake,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "dept: direct_passthrough(quarterly_sales.dept)",
				"'q1': derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "'q2': derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "filter: "}, true},
		{"bigquery: two aggregates, count(*) reads the column pivoted on", "select * from quarterly_sales pivot(sum(amount) total, count(*) n for quarter in ('Q1', 'Q2' as h2))", sqlparse.BigQuery,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "dept: direct_passthrough(quarterly_sales.dept)",
				"total_q1: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "n_q1: derived_recompute(quarterly_sales.quarter)",
				"total_h2: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "n_h2: derived_recompute(quarterly_sales.quarter)", "filter: "}, true},
		{"through aliases, on both sides", "select p.empid, q1 from quarterly_sales as s pivot(sum(s.amount) for quarter in ('Q1')) as p where p.dept = 'x'", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "q1: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "filter: quarterly_sales.dept"}, true},
		{"a pivot of a CTE, renamed by its alias", "with c as (select empid, quarter, amount * 2 as a2 from quarterly_sales) select * from c pivot (max(a2) for quarter in ('Q1')) as p(e, top_q1)", sqlparse.Redshift,
			[]string{"e: renamed_passthrough(quarterly_sales.empid)", "top_q1: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "filter: "}, true},
		{"two columns pivoted on", "select * from quarterly_sales pivot (sum(amount) for (quarter, dept) in (('Q1', 'a') as q1a))", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "q1a: derived_recompute(quarterly_sales.amount,quarterly_sales.dept,quarterly_sales.quarter)", "filter: "}, true},
		{"values the data holds: names read through it are its columns", "select empid, \"'Q3'\" as q3 from quarterly_sales pivot(sum(amount) for quarter in (any order by quarter))", sqlparse.Snowflake,
			// The pivot groups by empid and dept: dept decides the rows.
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "q3: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "filter: quarterly_sales.dept"}, true},
		{"values the data holds: a star is not complete", "select * from quarterly_sales pivot(sum(amount) for quarter in (select quarter from quarterly_sales))", sqlparse.Snowflake,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "dept: direct_passthrough(quarterly_sales.dept)", "filter: "}, false},
		{"a source the catalog does not list", "select * from raw pivot(sum(amount) for quarter in ('a'))", sqlparse.BigQuery,
			[]string{"a: derived_recompute(raw.amount,raw.quarter)", "filter: "}, false},
		{"unpivot: the name, then the values", "select * from monthly_sales unpivot(sales for month in (jan, feb as 'February', mar))", sqlparse.Snowflake,
			[]string{"empid: direct_passthrough(monthly_sales.empid)", "dept: direct_passthrough(monthly_sales.dept)", "month: derived_recompute()",
				"sales: renamed_passthrough(monthly_sales.jan) renamed_passthrough(monthly_sales.feb) renamed_passthrough(monthly_sales.mar)", "filter: "}, true},
		{"bigquery unpivot: the values first, two of them", "select * from monthly_sales unpivot((a, b) for half in ((jan, feb) as 'h1', (mar, mar) as 'h2'))", sqlparse.BigQuery,
			[]string{"empid: direct_passthrough(monthly_sales.empid)", "dept: direct_passthrough(monthly_sales.dept)",
				"a: renamed_passthrough(monthly_sales.jan) renamed_passthrough(monthly_sales.mar)", "b: renamed_passthrough(monthly_sales.feb) renamed_passthrough(monthly_sales.mar)",
				"half: derived_recompute()", "filter: "}, true},
		{"an unpivot turned by a pivot", "select * from monthly_sales unpivot (v for m in (jan, feb)) pivot (min(v) as lo for m in ('jan'))", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(monthly_sales.empid)", "dept: direct_passthrough(monthly_sales.dept)", "mar: direct_passthrough(monthly_sales.mar)",
				"jan_lo: derived_recompute(monthly_sales.feb,monthly_sales.jan)", "filter: "}, true},
		{"duckdb's pivot statement: the groups as written", "pivot quarterly_sales on quarter in ('Q1', 'Q2') using sum(amount) as total group by empid", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "q1_total: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)",
				"q2_total: derived_recompute(quarterly_sales.amount,quarterly_sales.quarter)", "filter: "}, true},
		{"duckdb's pivot statement on every value, counting, in a subquery", "select p.dept, p.q3 from (pivot quarterly_sales on quarter) p", sqlparse.DuckDB,
			// Grouped by every other column: empid and amount decide the rows.
			[]string{"dept: direct_passthrough(quarterly_sales.dept)", "q3: derived_recompute(quarterly_sales.quarter)", "filter: quarterly_sales.amount,quarterly_sales.empid"}, true},
		{"duckdb's unpivot statement in a CTE", "with u as (unpivot monthly_sales on jan, feb as second into name month value sales) select month, sales from u", sqlparse.DuckDB,
			[]string{"month: derived_recompute()", "sales: renamed_passthrough(monthly_sales.jan) renamed_passthrough(monthly_sales.feb)", "filter: "}, true},
		{"unpivot of an unlisted source: names trusted", "select id, v from raw unpivot (v for k in (a, b))", sqlparse.Snowflake,
			[]string{"id: direct_passthrough(raw.id)", "v: renamed_passthrough(raw.a) renamed_passthrough(raw.b)", "filter: "}, true},
	}
	for _, tc := range tests {
		res := analyze(t, tc.sql, tc.dialect)
		if diff := cmp.Diff(tc.want, render(res)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if res.Complete != tc.complete {
			t.Errorf("%s: complete %v, want %v", tc.name, res.Complete, tc.complete)
		}
	}
}

// TestHostilePivots: a pivot whose values and aggregates multiply into
// more columns than the budget allows stops before making them; an unpivot
// of many columns of a wide source costs their sum, not their product.
func TestHostilePivots(t *testing.T) {
	var aggs, values []string
	for i := range 2000 {
		aggs = append(aggs, "sum(a"+strconv.Itoa(i)+")")
		values = append(values, strconv.Itoa(i))
	}
	wide := "select * from t pivot (" + strings.Join(aggs, ", ") + " for k in (" + strings.Join(values, ", ") + "))"
	_, err := Analyze(t.Context(), wide, Options{Dialect: sqlparse.DuckDB})
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Errorf("2000 aggregates by 2000 values: got %v, want a budget error", err)
	}

	var cols, gathered []string
	for i := range 3000 {
		cols = append(cols, "c"+strconv.Itoa(i)+" + 0 as c"+strconv.Itoa(i))
		if i%2 == 0 {
			gathered = append(gathered, "c"+strconv.Itoa(i))
		}
	}
	unpivot := "select * from (select " + strings.Join(cols, ", ") + " from t) unpivot (v for k in (" + strings.Join(gathered, ", ") + "))"
	res, err := Analyze(t.Context(), unpivot, Options{Dialect: sqlparse.Snowflake})
	if err != nil {
		t.Fatal(err)
	}
	if res.Work.Nodes > 20*len(unpivot) {
		t.Errorf("%d nodes visited for %d bytes", res.Work.Nodes, len(unpivot))
	}
	if v := res.Column("v"); v == nil || len(v.Entries) != len(gathered) {
		t.Errorf("v: %+v", v)
	}
}

package sqlparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPivotColumns: each warehouse's names for a PIVOT's columns (sqlglot
// 26.9's, but that a Snowflake value with an alias is named by it; the
// DuckDB ones are those DuckDB 1.5 gives), and an UNPIVOT's name and value
// columns in the warehouse's order.
func TestPivotColumns(t *testing.T) {
	tests := []struct {
		name string
		d    Dialect
		sql  string
		want []string // nil: known only when the query runs
	}{
		{"snowflake names a value as written", Snowflake, "pivot (sum(a) for k in ('Q1', 2, 'x' as named))",
			[]string{"'q1'", "2", "named"}},
		{"snowflake joins an aggregate's alias after", Snowflake, "pivot (sum(a) as total for k in ('Q1'))",
			[]string{"'q1'_total"}},
		{"bigquery puts the aggregate's alias first", BigQuery, "pivot (sum(a) total, count(*) n for k in ('Q1', 'Q2' as second))",
			[]string{"total_q1", "n_q1", "total_second", "n_second"}},
		{"bigquery, one aggregate without an alias", BigQuery, "pivot (sum(a) for k in ('Q1', 1))",
			[]string{"q1", "1"}},
		{"duckdb names aggregates without an alias by their call", DuckDB, "pivot (sum(a), max(b) as m, count(*) for k in ('x'))",
			[]string{"x_sum(a)", "x_m", "x_count_star()"}},
		{"duckdb, one aggregate", DuckDB, "pivot (sum(a) for k in ('x', y))",
			[]string{"x", "y"}},
		{"redshift and postgres join the alias after", Redshift, "pivot (avg(a) as mean for k in ('x'))",
			[]string{"x_mean"}},
		{"values the data holds", Snowflake, "pivot (sum(a) for k in (any))", nil},
		{"values a query gives", Snowflake, "pivot (sum(a) for k in (select k from u))", nil},
	}
	for _, tc := range tests {
		q, err := Parse("select * from t "+tc.sql, tc.d)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := q.Body.(*Select).From[0].(*Pivot)
		got, ok := tc.d.PivotColumns(p)
		if ok != (tc.want != nil) {
			t.Errorf("%s: known %v, want %v", tc.name, ok, tc.want != nil)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	q, err := Parse("select * from t unpivot ((a, b) for k in ((c, d), (e, f)))", Generic)
	if err != nil {
		t.Fatal(err)
	}
	u := q.Body.(*Select).From[0].(*Unpivot)
	for _, tc := range []struct {
		d    Dialect
		want []string
	}{{BigQuery, []string{"a", "b", "k"}}, {Snowflake, []string{"k", "a", "b"}}, {DuckDB, []string{"k", "a", "b"}}} {
		var got []string
		for _, id := range tc.d.UnpivotColumns(u) {
			got = append(got, id.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s UnpivotColumns (-want +got):\n%s", tc.d.Name(), diff)
		}
	}
}

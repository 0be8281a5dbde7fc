package sqlparse

import (
	"slices"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// FuzzParse: whatever the input, Parse returns a tree or an *Error — never a
// panic or a hang (depth and size are bounded) — and a tree it returns
// prints to SQL that parses back to the same print.
func FuzzParse(f *testing.F) {
	for _, c := range testcorpus.LineageSQL(f) {
		f.Add(c.SQL, uint8(0))
	}
	for _, s := range []string{
		"select ((((((1))))))", "select 'unterminated", "select \"x", "select $$x", "select /* x",
		"select a in (1, 2, 3", "select * exclude (a) replace (b as c) rename (d as e) from t",
		"select x::int[]::varchar(3) from t", "with recursive r as (select 1 union all select 1 from r) select * from r",
		"select {'a': [1, 2]}, x -> x + 1, `a`.`b`, payload:a.b::string from t",
	} {
		f.Add(s, uint8(0))
	}
	dialects := []Dialect{Generic, Postgres, DuckDB, Snowflake, BigQuery, Redshift, Databricks}
	f.Add("select #1, -# 2, map {a: #3 % 2, 'b': map {}} from t order by #1 limit 10% offset 1", uint8(slices.Index(dialects, DuckDB)))
	for _, c := range testcorpus.SqlglotSelects(f) {
		d, _ := DialectFor(c.Dialect)
		f.Add(c.SQL, uint8(slices.Index(dialects, d)))
	}
	f.Fuzz(func(t *testing.T, sql string, which uint8) {
		d := dialects[int(which)%len(dialects)]
		q, err := Parse(sql, d)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		printed := FormatQuery(q)
		q2, err := Parse(printed, printedIn(d))
		if err != nil {
			t.Fatalf("printed query does not parse: %v\n%s", err, printed)
		}
		if again := FormatQuery(q2); again != printed {
			t.Fatalf("printing is not stable:\n%s\n%s", printed, again)
		}
	})
}

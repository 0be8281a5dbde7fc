package lineage

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// FuzzAnalyze: whatever the statement, Analyze returns a *ParseError or a
// well-formed result — every column named, every entry with a mechanism,
// every source with a column, filter columns among the predicate columns —
// and never panics or hangs.
func FuzzAnalyze(f *testing.F) {
	files := testcorpus.Glob(f, testcorpus.Path(f, "lineage-cases"), "sql/*.json", 82)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var c struct {
			SQL string `json:"sql"`
		}
		if json.Unmarshal(data, &c) == nil {
			f.Add(c.SQL)
		}
	}
	f.Add("with recursive r as (select 1 as n union all select n + 1 from r) select * from r")
	f.Add("select sum(x) over w from t window w as (w)")
	f.Add("select a as b, b as a, a from t where b in (select a from t)")
	f.Fuzz(func(t *testing.T, sql string) {
		res, err := Analyze(sql, Options{Dialect: sqlparse.DuckDB, Catalog: testCatalog})
		if err != nil {
			if !IsParseError(err) {
				t.Fatalf("error that is not a parse error: %v", err)
			}
			return
		}
		pred := map[Source]bool{}
		for _, s := range res.PredicateColumns {
			pred[s] = true
		}
		for _, s := range res.FilterColumns {
			if !pred[s] {
				t.Fatalf("filter column %s is not a predicate column", s)
			}
		}
		for _, c := range res.Columns {
			for _, e := range c.Entries {
				if e.Mechanism < Direct || e.Mechanism > Derived {
					t.Fatalf("%s: entry without a mechanism", c.Name)
				}
				if e.Mechanism != Derived && len(e.Sources) != 1 {
					t.Fatalf("%s: a pass-through with %d sources", c.Name, len(e.Sources))
				}
				for _, s := range e.Sources {
					if s.Column == "" {
						t.Fatalf("%s: a source without a column", c.Name)
					}
				}
			}
			if c.Certain && c.Canonical == "" && len(c.Entries) > 0 {
				t.Fatalf("%s: certain without a canonical form", c.Name)
			}
		}
	})
}

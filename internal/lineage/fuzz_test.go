package lineage

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// FuzzAnalyze: whatever the statement, Analyze returns a *ParseError or a
// well-formed result — every column named, every entry with a mechanism,
// every source with a column, filter columns among the predicate columns,
// functions (Through) only for sources — and never panics or hangs.
func FuzzAnalyze(f *testing.F) {
	dialects := []sqlparse.Dialect{sqlparse.DuckDB, sqlparse.Generic, sqlparse.Postgres, sqlparse.Snowflake, sqlparse.BigQuery, sqlparse.Redshift, sqlparse.Databricks}
	for _, c := range testcorpus.LineageSQL(f) {
		f.Add(c.SQL, uint8(0))
	}
	f.Add("with recursive r as (select 1 as n union all select n + 1 from r) select * from r", uint8(0))
	f.Add("select sum(x) over w from t window w as (w)", uint8(0))
	f.Add("select a as b, b as a, a from t where b in (select a from t)", uint8(0))
	f.Add("select * from orders pivot (sum(amount) as s, count(*) for (status, customer_id) in (('a', 1) as x, 'b') default on null (0)) as p(a, b)", uint8(0))
	f.Add("select * from orders unpivot include nulls ((v, w) for k in ((amount, discount) as 'm', (order_id, status))) pivot (max(v) for k in (any order by k))", uint8(0))
	f.Add("with p as (pivot orders on status in ('a', 'b') using sum(amount) as s group by customer_id) select * from p, (unpivot orders on amount, discount as d into name k value v) u", uint8(0))
	f.Add("select * from (pivot orders on status || order_date) p where p.a > 0 order by all desc fetch first 2 rows with ties", uint8(0))
	f.Add("select * exclude (status) ilike '%_id', o.* not similar to 'a.*', * glob '[a-d]*' from orders o", uint8(0))
	f.Add("select t.v, e.payload.a.b, $1 from events e left join e.tags t on true", uint8(0))
	f.Add("select object_construct(*) as a, hash(o.*) as b, to_json_string(o) as c, o, count(o.*) from orders o", uint8(0))
	f.Add("select [upper(x) for x in tags if x <> payload] as t, list_reduce(tags, lambda a, b: a || b) as r from events", uint8(0))
	f.Add("select columns('^a'), max(columns(o.* exclude (amount))) as \"m_\\0\", columns(c -> c like '%id' or c in ('status')) from orders o where columns(['discount']) > 0", uint8(0))
	f.Add("select count(*) from (select distinct on (customer_id) customer_id, sum(amount) filter (where status = 'a') + 1, unnest(tags) from orders, unnest(string_split(status, ',')) s(x) group by all order by customer_id, amount desc)", uint8(0))
	f.Add("select count(*) from (select status from orders union select method from payments except all select status from orders) u order by all limit 1", uint8(0))
	f.Add("select e.event_id, t.tag, e.payload:a.b::string, posexplode(e.tags) as (i, v) from `events` e lateral view outer explode(e.tags) t as tag lateral view inline(x) y", uint8(slices.Index(dialects, sqlparse.Databricks)))
	f.Add("select count(*) from (select order_id, jsonb_array_elements(to_jsonb(status)), generate_series(1, amount::int) from orders where status in (values ('a'))) x", uint8(slices.Index(dialects, sqlparse.Postgres)))
	f.Fuzz(func(t *testing.T, sql string, which uint8) {
		res, err := Analyze(t.Context(), sql, Options{Dialect: dialects[int(which)%len(dialects)], Catalog: testCatalog})
		if err != nil {
			if !IsParseError(err) {
				t.Fatalf("error that is not a parse error: %v", err)
			}
			return
		}
		checkWellFormed(t, res)
	})
}

// checkWellFormed fails the test unless res is well-formed: every entry
// with a mechanism, a pass-through with one source, every source with a
// column, filter columns among the predicate columns, a certain column
// with its canonical form, and functions (Through) only for sources.
func checkWellFormed(t *testing.T, res *Result) {
	t.Helper()
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
		if through, ok := c.Through(); ok {
			for s := range through {
				if !slices.ContainsFunc(c.Sources(), func(m SourceMechanism) bool { return m.Source == s }) {
					t.Fatalf("%s: functions for %s, which is not a source", c.Name, s)
				}
			}
		}
	}
}

// FuzzLineageWork: chains of CTEs, each reading one to three of the ones
// before it through joins, under a fan of joins, resolve without error and
// within a work bounded by their text — a few dozen nodes a byte, plus at
// most two canonical forms printed whole for every select item and
// predicate — and sources bounded by the columns the catalog has.
func FuzzLineageWork(f *testing.F) {
	f.Add(uint8(16), uint8(1), uint8(3), uint8(0), uint64(1))
	f.Add(uint8(24), uint8(2), uint8(3), uint8(4), uint64(7))
	f.Add(uint8(47), uint8(2), uint8(8), uint8(30), uint64(42))
	f.Fuzz(func(t *testing.T, n, fan, width, joins uint8, seed uint64) {
		sql, exprs := generatedChain(int(n%48)+1, int(fan%3)+1, int(width%8)+1, int(joins%40), seed)
		res, err := Analyze(t.Context(), sql, Options{Dialect: sqlparse.DuckDB, Catalog: testCatalog})
		if err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
		if limit := 64*len(sql) + 2*maxCanonNodes*exprs; res.Work.Nodes > limit {
			t.Fatalf("%d nodes visited, more than %d for %d bytes and %d expressions:\n%s", res.Work.Nodes, limit, len(sql), exprs, sql)
		}
		if limit := 16 * len(sql); res.Work.Sources > limit {
			t.Fatalf("%d sources carried, more than %d for %d bytes:\n%s", res.Work.Sources, limit, len(sql), sql)
		}
	})
}

// generatedChain is a chain of n CTEs of width value columns over orders,
// each joining up to fan of the CTEs before it (chosen by seed) and
// combining their columns, then a final SELECT joining the last CTE to
// joins more relations. exprs counts its select items and predicates.
func generatedChain(n, fan, width, joins int, seed uint64) (sql string, exprs int) {
	next := func(k int) int { // xorshift: a deterministic choice from seed
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(k))
	}
	cols := []string{"amount", "discount", "customer_id", "status", "order_date", "order_id"}
	var b strings.Builder
	b.WriteString("with c0 as (select order_id as id")
	for i := 0; i < width; i++ {
		fmt.Fprintf(&b, ", %s as v%d", cols[i%len(cols)], i)
	}
	b.WriteString(" from orders)")
	exprs += width + 1
	for k := 1; k < n; k++ {
		reads := min(fan, k)
		fmt.Fprintf(&b, ",\nc%d as (select t0.id", k)
		for i := 0; i < width; i++ {
			x, y := next(reads), next(reads)
			switch next(4) {
			case 0:
				fmt.Fprintf(&b, ", t%d.v%d as v%d", x, i, i)
			case 1:
				fmt.Fprintf(&b, ", t%d.v%d + t%d.v%d as v%d", x, i, y, next(width), i)
			case 2:
				fmt.Fprintf(&b, ", coalesce(t%d.v%d, t%d.v%d) as v%d", x, i, y, i, i)
			default:
				fmt.Fprintf(&b, ", sum(t%d.v%d) over (partition by t%d.v%d) as v%d", x, i, y, next(width), i)
			}
		}
		exprs += width + 1
		fmt.Fprintf(&b, " from c%d t0", k-1-next(k))
		for j := 1; j < reads; j++ {
			fmt.Fprintf(&b, " join c%d t%d on t%d.id = t0.id", k-1-next(k), j, j)
			exprs++
		}
		if next(3) == 0 {
			fmt.Fprintf(&b, " where t0.v%d > 0", next(width))
			exprs++
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "\nselect t.*")
	for j := 0; j < joins; j++ {
		fmt.Fprintf(&b, ", o%d.status as s%d", j, j)
	}
	fmt.Fprintf(&b, " from c%d t", n-1)
	for j := 0; j < joins; j++ {
		fmt.Fprintf(&b, " join orders o%d on o%d.order_id = t.id", j, j)
	}
	exprs += 2*joins + width + 1
	return b.String(), exprs
}

package sqlparse

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

func ExampleInspect() {
	q, err := Parse("select upper(name) as n, (select max(id) from t) as m from customers where active", Postgres)
	if err != nil {
		panic(err)
	}
	// The columns the outer query reads, not those of its subquery.
	Inspect(q, func(n Node) bool {
		switch x := n.(type) {
		case *ColumnRef:
			fmt.Println(Format(x))
		case *Query:
			return x == q
		}
		return true
	})
	// Output:
	// name
	// active
}

// TestWalkOrder: Inspect meets the nodes in the order they are written,
// goes into every nested query, and skips the children of a node f
// returns false for.
func TestWalkOrder(t *testing.T) {
	tests := []struct {
		name, sql string
		skip      func(Node) bool // children not visited
		want      string          // the column references met, in order
	}{
		{"clauses in order", "with c as (select a from t) select b, f(c1) over (partition by p order by o) from c join u on c.k = u.k where w group by g having h qualify q window x as (partition by y) order by z limit l", nil,
			"a b c1 p o c.k u.k w g h q y z l"},
		{"nested queries", "select (select a from t where b in (select c from u)), exists (select d from v) from w where e = any (select f from x)", nil,
			"a b c d e f"},
		{"lambdas, case, star replace", "select list_transform(l, x -> x + m), case when n then o else p end, * replace (r as s) from t", nil,
			"l x m n o p r"},
		{"a subquery skipped", "select a, (select b from t), c in (select d from u) from v", func(n Node) bool { _, q := n.(*Query); return q },
			"a c"},
	}
	for _, tc := range tests {
		q, err := Parse(tc.sql, DuckDB)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var refs []string
		root := true
		Inspect(q, func(n Node) bool {
			if tc.skip != nil && !root && tc.skip(n) {
				return false
			}
			root = false
			if c, ok := n.(*ColumnRef); ok {
				refs = append(refs, Format(c))
			}
			return true
		})
		if got := strings.Join(refs, " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestWalkSkip: a node f returns false for has none of its children
// visited, and f(nil) closes exactly the nodes it returned true for.
func TestWalkSkip(t *testing.T) {
	q, err := Parse("select a + (select b from t where c), d from u where e in (select f from v)", Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	depth, maxDepth := 0, 0
	Inspect(q, func(n Node) bool {
		if n == nil {
			depth--
			return false
		}
		if c, ok := n.(*ColumnRef); ok {
			refs = append(refs, Format(c))
		}
		if _, nested := n.(*Query); nested && n != Node(q) {
			return false
		}
		depth++
		maxDepth = max(maxDepth, depth)
		return true
	})
	if depth != 0 {
		t.Errorf("%d nodes opened and never closed", depth)
	}
	if diff := cmp.Diff([]string{"a", "d", "e"}, refs); diff != "" {
		t.Errorf("references outside the nested queries (-want +got):\n%s", diff)
	}
}

// TestWalkReachesEveryNode: over every statement of the lineage corpus
// and the parser's own cases, Walk visits each node of the tree exactly
// once — every pointer to a Node type found by following the fields of
// the tree — so that a field added to a node and forgotten by Walk fails
// here.
func TestWalkReachesEveryNode(t *testing.T) {
	type stmt struct {
		sql string
		d   Dialect
	}
	stmts := []stmt{
		{"select {'a': [1, 2]}, x -> x + 1, a[1:2], (b).f, c::int, extract(year from e), g collate \"C\", h at time zone 'UTC', interval 3 day, $1, current_date, count(*) filter (where i) over w from t window w as (order by j)", DuckDB},
		{"select string_agg(x, ',' order by y), percentile_cont(0.5) within group (order by v), k is distinct from l, m between n and o, p like q escape r, s = all (select 1), array(select 2), row(3, 4), f(name => 5) from (values (1, 2)) as v(a, b), lateral unnest(z) as u", DuckDB},
		{"select * exclude (a) replace (b + 1 as b) from t natural join u union all by name select * from (select 1) intersect select 2 except values (3) order by 1 limit 5 offset 6", DuckDB},
		{"select c:d::int, f.value from t, lateral flatten(input => t.l) f", Snowflake},
		{"select cast(a as string format b at time zone c) from t", BigQuery},
		{"select connect_by_root a from t start with b connect by prior c = d where e", Snowflake},
		{"select top n array_agg(a order by b limit c), group_concat(d separator e) from t", Generic},
		{"with p as (pivot t on a || b in (c, 'd' as e) using sum(f) as g group by h) select * from p, (unpivot u on i, j as k into name l value m)", DuckDB},
		{"select columns('a'), sum(columns(* exclude (b))), columns(['c']), columns(d -> d like 'e%') from t", DuckDB},
		{"select * from t pivot (sum(a) filter (where b) as s for (c, d) in ((1, e), (2, 'f') as g) default on null (h)) p, u pivot (max(i) for j in (any order by k)), v pivot (min(l) for m in (select n from w)), x unpivot ((o, q) for r in ((s1, s2) as 'y', (s3, s4) as 2, (s5, s6) z))", Snowflake},
	}
	for _, tc := range stmts {
		if _, err := Parse(tc.sql, tc.d); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
	}
	for _, c := range testcorpus.LineageSQL(t) {
		stmts = append(stmts, stmt{c.SQL, DuckDB})
	}
	for _, tc := range stmts {
		q, err := Parse(tc.sql, tc.d)
		if err != nil {
			continue // the corpus's statements of other dialects
		}
		want := map[Node]int{}
		reachable(reflect.ValueOf(q), want)
		got := map[Node]int{}
		Inspect(q, func(n Node) bool {
			if n != nil {
				got[n]++
			}
			return true
		})
		for n, k := range got {
			if k != 1 || want[n] == 0 {
				t.Errorf("%.60q: %T visited %d times (in the tree: %v)", tc.sql, n, k, want[n] > 0)
			}
		}
		for n := range want {
			if got[n] == 0 {
				t.Errorf("%.60q: %T %s not visited", tc.sql, n, describeNode(n))
			}
		}
	}
}

// reachable adds every node under v to seen, following struct fields,
// slices, pointers and interfaces.
func reachable(v reflect.Value, seen map[Node]int) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(Node); ok && v.Kind() == reflect.Pointer {
			if seen[n] > 0 {
				return
			}
			seen[n]++
		}
		reachable(v.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			reachable(v.Field(i), seen)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			reachable(v.Index(i), seen)
		}
	}
}

func describeNode(n Node) string {
	if e, ok := n.(Expr); ok {
		return Format(e)
	}
	return fmt.Sprintf("%+v", n)
}

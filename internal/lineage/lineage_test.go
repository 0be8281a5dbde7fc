package lineage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

var testCatalog = Catalog(func(r Relation) ([]string, bool) {
	c, ok := map[string][]string{
		"orders":    {"order_id", "customer_id", "order_date", "status", "amount", "discount"},
		"customers": {"customer_id", "first_name", "last_name", "email", "country", "created_at"},
		"payments":  {"payment_id", "order_id", "method", "amount", "paid_at"},
		"events":    {"event_id", "payload", "tags"},
		// pivot_test.go's
		"quarterly_sales": {"empid", "dept", "quarter", "amount"},
		"monthly_sales":   {"empid", "dept", "jan", "feb", "mar"},
	}[r.Name]
	return c, ok
})

func analyze(t *testing.T, sql string, d sqlparse.Dialect) *Result {
	t.Helper()
	res, err := Analyze(t.Context(), sql, Options{Dialect: d, Catalog: testCatalog})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res
}

// render is "name: mechanism(sources) …" per column, then the filter columns.
func render(res *Result) []string {
	var out []string
	for _, c := range res.Columns {
		var parts []string
		for _, e := range c.Entries {
			var srcs []string
			for _, s := range e.Sources {
				srcs = append(srcs, s.String())
			}
			parts = append(parts, e.Mechanism.String()+"("+strings.Join(srcs, ",")+")")
		}
		out = append(out, c.Name+": "+strings.Join(parts, " "))
	}
	var filter []string
	for _, s := range res.FilterColumns {
		filter = append(filter, s.String())
	}
	return append(out, "filter: "+strings.Join(filter, ","))
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name, sql string
		dialect   sqlparse.Dialect
		want      []string
	}{
		{"named window", "select customer_id, sum(amount) over w as s from orders window w as (partition by customer_id order by order_date)", sqlparse.DuckDB,
			[]string{"customer_id: direct_passthrough(orders.customer_id)", "s: derived_recompute(orders.amount,orders.customer_id,orders.order_date)", "filter: "}},
		{"join using: the right key only chooses rows", "select order_id, p.method from orders join payments p using (order_id)", sqlparse.Postgres,
			[]string{"order_id: direct_passthrough(orders.order_id)", "method: direct_passthrough(payments.method)", "filter: payments.order_id"}},
		{"group by and having are row-set columns", "select customer_id, count(*) as n from orders group by customer_id, status having sum(discount) > 0", sqlparse.Postgres,
			[]string{"customer_id: direct_passthrough(orders.customer_id)", "n: derived_recompute()", "filter: orders.discount,orders.status"}},
		{"order by under limit", "select order_id from orders order by amount desc limit 10", sqlparse.DuckDB,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.amount"}},
		{"a star keeping the names that match, as DuckDB's", "select * exclude (empid) ilike '%T', p.* glob 'pay*' from quarterly_sales, payments p", sqlparse.DuckDB,
			[]string{"dept: direct_passthrough(quarterly_sales.dept)", "amount: direct_passthrough(quarterly_sales.amount)",
				"amount_1: renamed_passthrough(payments.amount)", "paid_at: direct_passthrough(payments.paid_at)",
				"payment_id: direct_passthrough(payments.payment_id)", "filter: "}},
		{"duckdb names a relation's columns apart, as a model's table", "with c as (select order_id as a, customer_id as a, amount as a_1 from orders) select a_1, a_1_1, * exclude (a) from c", sqlparse.DuckDB,
			[]string{"a_1: renamed_passthrough(orders.customer_id)", "a_1_1: renamed_passthrough(orders.amount)", "a_1_2: renamed_passthrough(orders.customer_id)", "a_1_1_1: renamed_passthrough(orders.amount)", "filter: "}},
		{"a star keeping the names that do not match whole", "select * not similar to 'q|am.*' from quarterly_sales", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "dept: direct_passthrough(quarterly_sales.dept)", "quarter: direct_passthrough(quarterly_sales.quarter)", "filter: "}},
		{"duckdb columns: an item for each column picked, named as DuckDB names them", "select empid, columns(c -> c in ('dept', 'quarter')) || '!' as \"\\0_x\", max(columns('^am')) from quarterly_sales where columns('^a') > 0 group by all", sqlparse.DuckDB,
			[]string{"empid: direct_passthrough(quarterly_sales.empid)", "dept_x: derived_recompute(quarterly_sales.dept)", "quarter_x: derived_recompute(quarterly_sales.quarter)",
				"amount: derived_recompute(quarterly_sales.amount)", "filter: "}},
		{"duckdb columns of a star, through a FROM item's name", "select columns(p.* exclude (amount, paid_at)) from quarterly_sales q, payments p where columns(['dept']) = 'x'", sqlparse.DuckDB,
			[]string{"payment_id: direct_passthrough(payments.payment_id)", "order_id: direct_passthrough(payments.order_id)", "method: direct_passthrough(payments.method)", "filter: quarterly_sales.dept"}},
		{"duckdb list comprehension: the list and what its test reads", "select event_id, [upper(x) for x in tags if x <> payload] as t, list_transform(tags, lambda y: y || event_id) as u from events", sqlparse.DuckDB,
			[]string{"event_id: direct_passthrough(events.event_id)", "t: derived_recompute(events.payload,events.tags)", "u: derived_recompute(events.event_id,events.tags)", "filter: "}},
		{"a call's star reads every column, count(*) none", "select object_construct(*) as o, hash(c.*) as h, count(*) as n, count(c.*) as m from customers c", sqlparse.Snowflake,
			[]string{"o: derived_recompute(customers.country,customers.created_at,customers.customer_id,customers.email,customers.first_name,customers.last_name)", "h: derived_recompute(customers.country,customers.created_at,customers.customer_id,customers.email,customers.first_name,customers.last_name)", "n: derived_recompute()", "m: derived_recompute()", "filter: "}},
		{"a FROM item's name is its whole row", "select to_json_string(c) as j, farm_fingerprint(to_json_string(c)) as f from customers c", sqlparse.BigQuery,
			[]string{"j: derived_recompute(customers.country,customers.created_at,customers.customer_id,customers.email,customers.first_name,customers.last_name)", "f: derived_recompute(customers.country,customers.created_at,customers.customer_id,customers.email,customers.first_name,customers.last_name)", "filter: "}},
		{"a column named as a FROM item is the column", "select status, o from orders as status, (select 1 as o) o", sqlparse.Postgres,
			[]string{"status: direct_passthrough(orders.status)", "o: derived_recompute()", "filter: "}},
		{"snowflake identifier() names a table", "select o.order_id, status from identifier('db.raw.orders') o", sqlparse.Snowflake,
			[]string{"order_id: direct_passthrough(db.raw.orders.order_id)", "status: direct_passthrough(db.raw.orders.status)", "filter: "}},
		{"snowflake hierarchy: its conditions choose rows", "select order_id, connect_by_root order_id as root, sys_connect_by_path(status, '/') as path from orders start with customer_id is null connect by prior order_id = customer_id", sqlparse.Snowflake,
			[]string{"order_id: direct_passthrough(orders.order_id)", "root: derived_recompute(orders.order_id)", "path: derived_recompute(orders.status)", "filter: orders.customer_id"}},
		{"duckdb positional columns: #n of the FROM items, in ORDER BY the n-th select item", "select #1 as e, upper(#3) as u from orders where #5 > 0 order by #2 limit 3", sqlparse.DuckDB,
			[]string{"e: renamed_passthrough(orders.order_id)", "u: derived_recompute(orders.order_date)", "filter: orders.amount"}},
		{"in a values list", "select order_id from orders where status in (values ('a'), ('b'))", sqlparse.Postgres,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.status"}},
		{"duckdb map literals read their keys and values", "select map {status: amount, 'k': 1} as m from orders", sqlparse.DuckDB,
			[]string{"m: derived_recompute(orders.amount,orders.status)", "filter: "}},
		{"snowflake positional columns", "select $1, $2 as s, upper($5) as u, $9 as beyond from orders", sqlparse.Snowflake,
			[]string{"$1: renamed_passthrough(orders.order_id)", "s: renamed_passthrough(orders.customer_id)", "u: derived_recompute(orders.amount)", "beyond: ", "filter: "}},
		{"a field of a FROM item's column", "select c.payload.name as n, c.payload[0].id as i from events c", sqlparse.Redshift,
			[]string{"n: derived_recompute(events.payload)", "i: derived_recompute(events.payload)", "filter: "}},
		{"an earlier item's array in FROM: its elements (redshift)", "select o.id, o as whole from events e, e.tags as o", sqlparse.Redshift,
			[]string{"id: derived_recompute(events.tags)", "whole: derived_recompute(events.tags)", "filter: "}},
		{"an earlier item's array in FROM: its elements (bigquery)", "select t.v, e.event_id from events e left join e.tags t on true", sqlparse.BigQuery,
			[]string{"v: derived_recompute(events.tags)", "event_id: direct_passthrough(events.event_id)", "filter: "}},
		{"a qualified name in FROM is a table in snowflake", "select x from events e, e.tags", sqlparse.Snowflake,
			[]string{"x: direct_passthrough(e.tags.x)", "filter: "}},
		{"semi and anti joins: the right side only chooses rows", "select * from orders semi join payments using (order_id) anti join customers c on c.customer_id = orders.customer_id", sqlparse.DuckDB,
			[]string{"order_id: direct_passthrough(orders.order_id)", "customer_id: direct_passthrough(orders.customer_id)", "order_date: direct_passthrough(orders.order_date)",
				"status: direct_passthrough(orders.status)", "amount: direct_passthrough(orders.amount)", "discount: direct_passthrough(orders.discount)", "filter: customers.customer_id,payments.order_id"}},
		{"duckdb's names for a VALUES list's and a table function's columns", "select * from (values (1, 'a')) v, range(3) r", sqlparse.DuckDB,
			[]string{"col0: derived_recompute()", "col1: derived_recompute()", "range: derived_recompute(range)", "filter: "}},
		{"postgres's names for them", "select * from (values (1, 'a')) v, generate_series(1, 3) g", sqlparse.Postgres,
			[]string{"column1: derived_recompute()", "column2: derived_recompute()", "g: derived_recompute(g)", "filter: "}},
		{"union by name: the columns of every branch, matched by name", "select order_id, amount from orders union all by name select amount, payment_id from payments", sqlparse.DuckDB,
			[]string{"order_id: direct_passthrough(orders.order_id)", "amount: direct_passthrough(orders.amount) direct_passthrough(payments.amount)", "payment_id: direct_passthrough(payments.payment_id)", "filter: "}},
		{"order by under top", "select top 3 order_id from orders order by amount desc", sqlparse.Snowflake,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.amount"}},
		{"order by without limit chooses nothing", "select order_id from orders order by amount", sqlparse.DuckDB,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: "}},
		{"except: the right side only removes rows", "select customer_id from orders except select customer_id from customers", sqlparse.DuckDB,
			[]string{"customer_id: direct_passthrough(orders.customer_id)", "filter: customers.customer_id"}},
		{"in-subquery select list decides membership", "select email from customers where customer_id in (select customer_id from orders where amount > 0)", sqlparse.DuckDB,
			[]string{"email: direct_passthrough(customers.email)", "filter: customers.customer_id,orders.amount,orders.customer_id"}},
		{"window in a CTE filtered outside", "with r as (select order_id, row_number() over (partition by customer_id order by order_date) as rn from orders) select order_id from r where rn = 1", sqlparse.DuckDB,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.customer_id,orders.order_date"}},
		{"unused CTE predicates do not count", "with a as (select * from orders where status = 'x'), b as (select * from customers) select email from b", sqlparse.DuckDB,
			[]string{"email: direct_passthrough(customers.email)", "filter: "}},
		{"union entries keep their own mechanism", "select order_id as id, amount from orders union all select payment_id, -amount from payments", sqlparse.DuckDB,
			[]string{"id: renamed_passthrough(orders.order_id) renamed_passthrough(payments.payment_id)", "amount: direct_passthrough(orders.amount) derived_recompute(payments.amount)", "filter: "}},
		{"rename then pass through keeps the rename", "with r as (select status as state from orders) select state from r", sqlparse.DuckDB,
			[]string{"state: renamed_passthrough(orders.status)", "filter: "}},
		{"databricks: a lateral view's columns come of the array, which makes the rows", "select e.event_id, t.tag, e.payload:region::string as r from `events` e lateral view outer explode(e.tags) t as tag", sqlparse.Databricks,
			[]string{"event_id: direct_passthrough(events.event_id)", "tag: derived_recompute(events.tags)", "r: derived_recompute(events.payload)", "filter: "}},
		{"databricks: a lateral view named by its columns alone", "select e.event_id, tag from events e lateral view explode(e.tags) as tag", sqlparse.Databricks,
			[]string{"event_id: direct_passthrough(events.event_id)", "tag: derived_recompute(events.tags)", "filter: "}},
		{"databricks: sort by under a limit chooses the rows, distribute by does not", "select order_id from orders distribute by customer_id sort by amount desc limit 3", sqlparse.Databricks,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.amount"}},
		{"databricks: a generator's columns in the select list", "select event_id, posexplode(tags) as (pos, tag) from events", sqlparse.Databricks,
			[]string{"event_id: direct_passthrough(events.event_id)", "pos: derived_recompute(events.tags)", "tag: derived_recompute(events.tags)", "filter: "}},
		{"databricks: a generator's columns named as Databricks names them", "select e.event_id, posexplode(e.tags), t.col from events e lateral view explode(string_split(e.payload, ',')) t", sqlparse.Databricks,
			[]string{"event_id: direct_passthrough(events.event_id)", "pos: derived_recompute(events.tags)", "col: derived_recompute(events.tags)", "col: derived_recompute(events.payload)", "filter: "}},
		{"databricks: the generators decide the rows", "select count(*) as n from (select event_id, explode_outer(tags) as tag from events lateral view posexplode(string_split(payload, ',')) p as i, part) x", sqlparse.Databricks,
			[]string{"n: derived_recompute()", "filter: events.payload,events.tags"}},
		{"databricks: a values list's columns are col1, col2", "select col2 as b from values (1, 'a'), (2, 'b')", sqlparse.Databricks,
			[]string{"b: derived_recompute()", "filter: "}},
		{"unnest reads the array", "select e.event_id, tag from events as e, unnest(e.tags) as tag", sqlparse.BigQuery,
			[]string{"event_id: direct_passthrough(events.event_id)", "tag: derived_recompute(events.tags)", "filter: "}},
		{"join lateral flatten without on reads the array", "select e.event_id, f.value::string as tag, f.index from events e join lateral flatten(input => e.tags) f where e.payload is not null", sqlparse.Snowflake,
			[]string{"event_id: direct_passthrough(events.event_id)", "tag: derived_recompute(events.tags)", "index: derived_recompute(events.tags)", "filter: events.payload"}},
		{"star over a join expands both sides", "select * from payments cross join events", sqlparse.DuckDB,
			[]string{"payment_id: direct_passthrough(payments.payment_id)", "order_id: direct_passthrough(payments.order_id)",
				"method: direct_passthrough(payments.method)", "amount: direct_passthrough(payments.amount)", "paid_at: direct_passthrough(payments.paid_at)",
				"event_id: direct_passthrough(events.event_id)", "payload: direct_passthrough(events.payload)", "tags: direct_passthrough(events.tags)", "filter: "}},
		{"a comparison after a cast", "select order_id, amount::numeric < 100 as small from orders where discount::int > 0", sqlparse.Postgres,
			[]string{"order_id: direct_passthrough(orders.order_id)", "small: derived_recompute(orders.amount)", "filter: orders.discount"}},
		{"bigquery array offset", "select e.event_id, e.tags[offset(0)] as first_tag from events as e", sqlparse.BigQuery,
			[]string{"event_id: direct_passthrough(events.event_id)", "first_tag: derived_recompute(events.tags)", "filter: "}},
		{"snowflake asof join: the match condition chooses rows", "select o.order_id, p.method from orders o asof join payments p match_condition (o.order_date >= p.paid_at) on o.order_id = p.order_id", sqlparse.Snowflake,
			[]string{"order_id: direct_passthrough(orders.order_id)", "method: direct_passthrough(payments.method)", "filter: orders.order_date,payments.order_id,payments.paid_at"}}, // as the same plain JOIN reads
		{"a function's records, typed by a column definition list", "select e.event_id, r.kind from events as e, jsonb_to_recordset(e.payload) as r(kind text, n int)", sqlparse.Postgres,
			[]string{"event_id: direct_passthrough(events.event_id)", "kind: derived_recompute(events.payload)", "filter: "}},
		{"snowflake epoch parts are words, not columns, where names are trusted", "select date_part(epoch_second, ts) as s, date_part(epoch_millisecond, ts) as ms from raw", sqlparse.Snowflake,
			[]string{"s: derived_recompute(raw.ts)", "ms: derived_recompute(raw.ts)", "filter: "}},
		{"unknown relation: names are trusted", "with s as (select * from raw) select id, upper(name) as name from s", sqlparse.DuckDB,
			[]string{"id: direct_passthrough(raw.id)", "name: derived_recompute(raw.name)", "filter: "}},
		// What decides how many rows there are, seen from a query that
		// counts them (each checked against DuckDB by changing the column's
		// values and watching the count move).
		{"group by all groups by the items that aggregate nothing", "select count(*) as n from (select status, count(*) as k, sum(amount) + 1 as s from orders group by all) g", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: orders.status"}},
		{"distinct: every value of a row", "select count(*) as n from (select distinct customer_id from orders) d", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: orders.customer_id"}},
		{"distinct on keeps the row its order by puts first", "select distinct on (customer_id) order_id from orders order by customer_id, order_date desc", sqlparse.Postgres,
			[]string{"order_id: direct_passthrough(orders.order_id)", "filter: orders.customer_id,orders.order_date"}},
		{"union keeps one row of each value", "select count(*) as n from (select status from orders union select method from payments) u", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: orders.status,payments.method"}},
		{"union all keeps every row", "select count(*) as n from (select status from orders union all select method from payments) u", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: "}},
		{"except matches both sides' values", "select count(*) as n from (select customer_id from orders except select customer_id from customers) x", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: customers.customer_id,orders.customer_id"}},
		{"an unnest in from: the array decides the rows", "select e.event_id from events e, unnest(e.tags) as t(tag)", sqlparse.DuckDB,
			[]string{"event_id: direct_passthrough(events.event_id)", "filter: events.tags"}},
		{"a select list's unnest: the array decides the rows", "select count(*) as n from (select event_id, unnest(tags) as tag from events) x", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: events.tags"}},
		{"postgres: a select list's set-returning function makes the rows", "select count(*) as n from (select e.event_id, jsonb_array_elements(e.payload -> 'items') as item from events e) x", sqlparse.Postgres,
			[]string{"n: derived_recompute()", "filter: events.payload"}},
		{"postgres: a set-returning call inside another", "select count(*) as n from (select order_id, upper(regexp_split_to_table(status, ',')) as s, generate_series(1, amount::int) as k from orders) x", sqlparse.Postgres,
			[]string{"n: derived_recompute()", "filter: orders.amount,orders.status"}},
		{"duckdb: generate_series in a select list is one list", "select count(*) as n from (select order_id, generate_series(1, amount::int) as k, generate_subscripts(string_split(status, ','), 1) as i from orders) x", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: orders.status"}},
		{"bigquery: no function makes rows in a select list", "select count(*) as n from (select order_id, unnest(status) as s from orders) x", sqlparse.BigQuery,
			[]string{"n: derived_recompute()", "filter: "}},
		{"unpivot leaves out the rows of nulls", "select empid from monthly_sales unpivot (v for m in (jan, feb))", sqlparse.Snowflake,
			[]string{"empid: direct_passthrough(monthly_sales.empid)", "filter: monthly_sales.feb,monthly_sales.jan"}},
		{"unpivot including nulls keeps them", "select empid from monthly_sales unpivot include nulls (v for m in (jan, feb))", sqlparse.Snowflake,
			[]string{"empid: direct_passthrough(monthly_sales.empid)", "filter: "}},
		{"order by all under a limit", "select count(*) as n from (select status from orders order by all limit 3) x", sqlparse.DuckDB,
			[]string{"n: derived_recompute()", "filter: orders.status"}},
	}
	for _, tc := range tests {
		got := render(analyze(t, tc.sql, tc.dialect))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestSignatures: what changes a column's signature, its canonical value
// and the statement's row signature.
func TestSignatures(t *testing.T) {
	tests := []struct {
		name               string
		base, head         string
		column             string
		sameSig, sameCanon bool
		sameRows           bool
		dialect            sqlparse.Dialect
	}{
		{"layout and case", "select order_id, amount/100 as a from orders", "SELECT order_id,\n  AMOUNT / 100 AS a FROM orders", "a", true, true, true, sqlparse.DuckDB},
		{"cast syntax", "select cast(order_date as date) as d from orders", "select order_date::date as d from orders", "d", true, true, true, sqlparse.DuckDB},
		{"table re-aliasing: a pass-through", "select o.amount from orders o", "select ord.amount from orders ord", "amount", true, true, true, sqlparse.DuckDB},
		{"CTE renamed under an expression", "with p as (select * from orders) select coalesce(p.amount, 0) as a from p", "with q as (select * from orders) select coalesce(q.amount, 0) as a from q", "a", false, true, true, sqlparse.DuckDB},
		{"constant folding", "select coalesce(amount, 0) as a from orders", "select coalesce(amount, 0 * 1) as a from orders", "a", false, true, true, sqlparse.DuckDB},
		{"div0 by a constant", "select amount / 100 as a from orders", "select div0(amount, 100) as a from orders", "a", false, true, true, sqlparse.Snowflake},
		{"commuted conditions", "select case when status = 'a' and amount > 1 then 1 end as f from orders", "select case when 1 < amount and status = 'a' then 1 end as f from orders", "f", false, true, true, sqlparse.DuckDB},
		{"a real edit", "select amount / 100 as a from orders", "select round(amount / 100, 2) as a from orders", "a", false, false, true, sqlparse.DuckDB},
		{"an edit inside a CTE reaches the column", "with c as (select customer_id, count(order_id) as n from orders group by 1) select coalesce(n, 0) as n from c", "with c as (select customer_id, count(distinct order_id) as n from orders group by 1) select coalesce(n, 0) as n from c", "n", false, false, true, sqlparse.DuckDB},
		{"where edit: rows only", "select order_id from orders where status = 'a'", "select order_id from orders where status in ('a', 'b')", "order_id", true, true, false, sqlparse.DuckDB},
		{"join alias rename keeps the rows", "select o.order_id from orders o left join payments p on p.order_id = o.order_id", "select x.order_id from orders x left join payments y on y.order_id = x.order_id", "order_id", true, true, true, sqlparse.DuckDB},
		{"join kind changes the rows", "select o.order_id from orders o left join payments p on p.order_id = o.order_id", "select o.order_id from orders o join payments p on p.order_id = o.order_id", "order_id", true, true, false, sqlparse.DuckDB},
		{"limit changes the rows", "select order_id from orders", "select order_id from orders limit 5", "order_id", true, true, false, sqlparse.DuckDB},
		{"snowflake: a join without on is a cross join", "select o.order_id from orders o cross join payments p where p.order_id = o.order_id", "select o.order_id from orders o join payments p where p.order_id = o.order_id", "order_id", true, true, true, sqlparse.Snowflake},
		{"a sample changes the rows", "select order_id from orders sample (10)", "select order_id from orders sample (50)", "order_id", true, true, false, sqlparse.Snowflake},
		{"a sample as written: layout, case, before or after the alias", "select o.order_id from orders o tablesample bernoulli (10)", "SELECT o.order_id FROM orders TABLESAMPLE BERNOULLI(10) AS o", "order_id", true, true, true, sqlparse.Snowflake},
		{"time travel changes the rows", "select order_id from orders", "select order_id from orders at (offset => -86400)", "order_id", true, true, false, sqlparse.Snowflake},
		{"a subquery's sample changes the rows", "select order_id from (select * from orders) s", "select order_id from (select * from orders) sample (1) s", "order_id", true, true, false, sqlparse.Snowflake},
		{"between symmetric", "select order_id, amount between 9 and 1 as f from orders", "select order_id, amount between symmetric 9 and 1 as f from orders", "f", false, false, true, sqlparse.Postgres},
		{"order by all's direction under a limit", "select order_id from orders order by all limit 3", "select order_id from orders order by all desc limit 3", "order_id", true, true, false, sqlparse.DuckDB},
		{"postgres: a select list's set-returning function changes the rows", "select order_id, status from orders", "select order_id, jsonb_array_elements_text(to_jsonb(string_to_array(status, ','))) as status from orders", "order_id", true, true, false, sqlparse.Postgres},
		{"postgres: which set-returning function changes the rows", "select order_id, unnest(string_to_array(status, ',')) as s from orders", "select order_id, regexp_split_to_table(status, ',') as s from orders", "order_id", true, true, false, sqlparse.Postgres},
		{"duckdb: a share of the rows is no count of them", "select order_id from orders limit 10", "select order_id from orders limit 10%", "order_id", true, true, false, sqlparse.DuckDB},
		{"fetch with ties", "select order_id from orders order by amount fetch first 3 rows only", "select order_id from orders order by amount fetch first 3 rows with ties", "order_id", true, true, false, sqlparse.Postgres},
		{"a hierarchy's condition changes the rows", "select order_id from orders start with customer_id is null connect by prior order_id = customer_id", "select order_id from orders start with customer_id is null connect by order_id = prior customer_id", "order_id", true, true, false, sqlparse.Snowflake},
		{"top changes the rows", "select top 5 order_id from orders order by amount", "select top 10 order_id from orders order by amount", "order_id", true, true, false, sqlparse.Snowflake},
		{"an aggregate's limit", "select array_agg(status order by order_date limit 1) as s from orders", "select array_agg(status order by order_date limit 2) as s from orders", "s", false, false, true, sqlparse.BigQuery},
		{"an aggregate's separator", "select group_concat(status separator ',') as s from orders", "select group_concat(status separator ';') as s from orders", "s", false, false, true, sqlparse.Generic},
		{"a struct field renamed", "select struct(amount as a, status) as s from orders", "select struct(amount as b, status) as s from orders", "s", false, false, true, sqlparse.BigQuery},
		{"a cast's format", "select cast(order_date as string format 'YYYY') as y from orders", "select cast(order_date as string format 'MM') as y from orders", "y", false, false, true, sqlparse.BigQuery},
		{"a cast's time zone", "select cast(order_date as string format 'HH24' at time zone 'UTC') as h from orders", "select cast(order_date as string format 'HH24' at time zone 'CET') as h from orders", "h", false, false, true, sqlparse.BigQuery},
		{"pivot: another value beside it", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q3'))", "q1_s", true, true, true, sqlparse.DuckDB},
		{"pivot: layout and case", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "SELECT *\nFROM quarterly_sales PIVOT (SUM(AMOUNT) s FOR QUARTER IN ('Q1', 'Q2'))", "q1_s", true, true, true, sqlparse.DuckDB},
		{"pivot: another aggregate", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "select * from quarterly_sales pivot (avg(amount) as s for quarter in ('Q1', 'Q2'))", "q1_s", false, false, true, sqlparse.DuckDB},
		{"pivot: another value of the same name", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('q1', 'Q2'))", "q1_s", false, false, true, sqlparse.DuckDB},
		{"group by all: another key", "select status, count(*) as n from orders group by all", "select status, customer_id, count(*) as n from orders group by all", "n", true, true, false, sqlparse.DuckDB},
		{"distinct: another column", "select distinct status from orders", "select distinct status, customer_id from orders", "status", true, true, false, sqlparse.DuckDB},
		{"distinct on: another order chooses another row", "select distinct on (customer_id) order_id from orders order by customer_id, order_date desc", "select distinct on (customer_id) order_id from orders order by customer_id, amount desc", "order_id", true, true, false, sqlparse.Postgres},
		{"union: a side's value edited", "select status as s from orders union select method from payments", "select status as s from orders union select upper(method) from payments", "s", false, false, false, sqlparse.DuckDB},
		{"pivot: rows filtered first", "select * from quarterly_sales pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "select * from (select * from quarterly_sales where dept = 'a') pivot (sum(amount) as s for quarter in ('Q1', 'Q2'))", "q1_s", false, true, false, sqlparse.DuckDB},
	}
	for _, tc := range tests {
		b, h := analyze(t, tc.base, tc.dialect), analyze(t, tc.head, tc.dialect)
		bc, hc := b.Column(tc.column), h.Column(tc.column)
		if bc == nil || hc == nil {
			t.Errorf("%s: column %s missing", tc.name, tc.column)
			continue
		}
		if got := bc.Signature == hc.Signature; got != tc.sameSig {
			t.Errorf("%s: same signature %v, want %v", tc.name, got, tc.sameSig)
		}
		if !bc.Certain || !hc.Certain {
			t.Errorf("%s: not certain (%q, %q)", tc.name, bc.Canonical, hc.Canonical)
		}
		if got := bc.Canonical == hc.Canonical; got != tc.sameCanon {
			t.Errorf("%s: same canonical %v, want %v:\n%s\n%s", tc.name, got, tc.sameCanon, bc.Canonical, hc.Canonical)
		}
		if got := b.RowSignature == h.RowSignature; got != tc.sameRows {
			t.Errorf("%s: same rows %v, want %v", tc.name, got, tc.sameRows)
		}
	}
}

func TestCanonical(t *testing.T) {
	res := analyze(t, "with c as (select order_id, amount_cents / 100.0 as amount from raw_orders) select round(amount, 2) as amount from c", sqlparse.DuckDB)
	col := res.Column("amount")
	if col.Certain || col.Canonical != "" {
		t.Errorf("a relation the catalog does not list must leave the value undecided: %+v", col)
	}
	res = analyze(t, "with c as (select order_id, amount / 100.0 as amt from orders) select round(amt, 2) as a, (amt) * (2 + 3) as b from c", sqlparse.DuckDB)
	if got := res.Column("a").Canonical; got != "ROUND(orders.amount / 100.0, 2)" {
		t.Errorf("a: %s", got)
	}
	if got := res.Column("b").Canonical; got != "(orders.amount / 100.0) * 5" {
		t.Errorf("b: %s", got)
	}
}

func TestParseErrorIsReported(t *testing.T) {
	_, err := Analyze(t.Context(), "select a from t where {{ this }}", Options{Dialect: sqlparse.DuckDB})
	if !IsParseError(err) || !strings.Contains(err.Error(), "line 1, column 23") {
		t.Errorf("got %v", err)
	}
}

// TestHostileLineage: statements built to blow up a naive resolver resolve
// within a work bounded by their text, with bounded canonical forms.
func TestHostileLineage(t *testing.T) {
	var b strings.Builder
	b.WriteString("with c0 as (select amount as a, amount as b from orders)")
	for i := 1; i <= 60; i++ {
		// Each level's columns read both columns of the level below: the
		// expanded value doubles per level.
		b.WriteString(", c" + itoa(i) + " as (select a + b as a, a * b as b from c" + itoa(i-1) + ")")
	}
	b.WriteString(" select a from c60")
	wide := "select " + strings.Repeat("amount + ", 20000) + "amount as x from orders where " + strings.Repeat("status = 'a' and ", 20000) + "true"
	interval := "select created_at + interval 1 day" + strings.Repeat(" 2 hours", 20000) + " as x from orders"
	for _, c := range []struct {
		sql string
		d   sqlparse.Dialect
	}{{b.String(), sqlparse.DuckDB}, {wide, sqlparse.DuckDB}, {interval, sqlparse.Databricks}} {
		sql := c.sql
		res := analyze(t, sql, c.d)
		if res.Work.Nodes > 20*len(sql) {
			t.Errorf("%d nodes visited for %d bytes", res.Work.Nodes, len(sql))
		}
		if c := res.Columns[0]; len(c.Canonical) > 200000 {
			t.Errorf("canonical form of %d bytes", len(c.Canonical))
		}
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/10)) + string(rune('0'+i%10)))
}

// TestThrough: the functions a source's value passes through on its way
// into a column, through CTEs and UNION branches.
func TestThrough(t *testing.T) {
	tests := []struct {
		name, sql, column string
		want              map[string][]string // source → functions; nil: not known
	}{
		{"pass-through", "select first_name from customers", "first_name",
			map[string][]string{"customers.first_name": nil}},
		{"a hash", "select md5(first_name) as h from customers", "h",
			map[string][]string{"customers.first_name": {"md5"}}},
		{"only the argument it encloses", "select md5(first_name) || last_name as n from customers", "n",
			map[string][]string{"customers.first_name": {"md5"}, "customers.last_name": nil}},
		{"a bare read anywhere counts", "select case when md5(email) = 'x' then email end as e from customers", "e",
			map[string][]string{"customers.email": nil}},
		{"through CTEs, every function on the way", "with s as (select sha2(email, 256) as e from customers) select upper(e) as e from s", "e",
			map[string][]string{"customers.email": {"sha2", "upper"}}},
		{"union branches: each must pass through it", "select md5(email) as e from customers union all select email from customers", "e",
			map[string][]string{"customers.email": nil}},
		{"union branches both hashed", "select md5(email) as e from customers union all select md5(first_name) from customers", "e",
			map[string][]string{"customers.email": {"md5"}, "customers.first_name": {"md5"}}},
		{"a window's partition is inside the call", "select sum(amount) over (partition by customer_id) as s from orders", "s",
			map[string][]string{"orders.amount": {"sum"}, "orders.customer_id": {"sum"}}},
		{"a qualified function", "select util.mask(email) as e from customers", "e",
			map[string][]string{"customers.email": {"util.mask"}}},
		{"a subquery: not known", "select (select max(md5(amount)) from orders) as m from customers", "m", nil},
		{"a relation the catalog does not list: not known", "select md5(name) as m from raw", "m", nil},
		{"a pass-through of a relation the catalog does not list", "select name from raw", "name",
			map[string][]string{"raw.name": nil}},
		{"no canonical value: not known", "select md5(email) || nosuch as e from customers", "e", nil},
	}
	for _, tc := range tests {
		res := analyze(t, tc.sql, sqlparse.DuckDB)
		through, ok := res.Column(tc.column).Through()
		if tc.want == nil {
			if ok {
				t.Errorf("%s: got %v, want not known", tc.name, through)
			}
			continue
		}
		got := map[string][]string{}
		for s, fs := range through {
			got[s.String()] = fs
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

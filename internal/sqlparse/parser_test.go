package sqlparse

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testctx"
)

// TestParseCorpus parses every statement of the lineage corpus and checks
// that printing is a fixed point: Format(Parse(Format(Parse(sql)))) equals
// Format(Parse(sql)). The one statement with unrendered Jinja must fail.
func TestParseCorpus(t *testing.T) {
	for _, c := range testcorpus.LineageSQL(t) {
		d, _ := DialectFor(c.Dialect)
		q, err := Parse(c.SQL, d)
		if (err == nil) != c.ParseOK {
			t.Errorf("%s: parse error %v, expected parse_ok %v", c.ID, err, c.ParseOK)
			continue
		}
		if err != nil {
			continue
		}
		checkRoundTrip(t, filepath.Base(c.File), q, d)
	}
}

// printedIn is the dialect the printer's SQL for a statement of d reads
// back in: the printer quotes names with ", which BigQuery and Databricks
// read as strings; BigQuery's other extensions are the generic
// dialect's.
func printedIn(d Dialect) Dialect {
	switch {
	case d == BigQuery:
		return Generic
	case d.doubleQuotedStrings:
		d.doubleQuotedStrings = false
	}
	return d
}

func checkRoundTrip(t *testing.T, name string, q *Query, d Dialect) {
	t.Helper()
	s := FormatQuery(q)
	q2, err := Parse(s, printedIn(d))
	if err != nil {
		t.Errorf("%s: the printed query does not parse: %v\n%s", name, err, s)
		return
	}
	if s2 := FormatQuery(q2); s2 != s {
		t.Errorf("%s: printing is not stable:\n%s\n%s", name, s, s2)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, sql string
		dialect   Dialect
		want      string // the printed query
	}{
		{"cast syntaxes print alike", "select x::integer, cast(y as int4), z::double precision from t", Postgres,
			"SELECT CAST(x AS INT), CAST(y AS INT), CAST(z AS DOUBLE) FROM t"},
		{"typed literal and interval", "select date '2020-01-01' + interval 1 day as d", DuckDB,
			"SELECT CAST('2020-01-01' AS DATE) + INTERVAL '1' DAY AS d"},
		{"qualify and star exclude", "select * exclude (a) from t qualify row_number() over (partition by b order by c desc) = 1", DuckDB,
			"SELECT * EXCLUDE (a) FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY b ORDER BY c DESC) = 1"},
		{"bigquery path in backticks", "select e.x from `p.d.events` as e, unnest(e.tags) as tag with offset as pos", BigQuery,
			"SELECT e.x FROM p.d.events AS e, UNNEST(e.tags) AS tag WITH OFFSET AS pos"},
		{"snowflake flatten and paths", "select f.value:id::string as id from t, lateral flatten(input => t.payload:items) f", Snowflake,
			"SELECT CAST(f.value:id AS STRING) AS id FROM t, LATERAL FLATTEN(input => t.payload:items) AS f"},
		{"snowflake join lateral flatten without on", "select e.id, f.value::string as tag from events e join lateral flatten(input => e.tags) f left join table(flatten(e.attrs)) a", Snowflake,
			"SELECT e.id, CAST(f.value AS STRING) AS tag FROM events AS e INNER JOIN LATERAL FLATTEN(input => e.tags) AS f LEFT JOIN FLATTEN(e.attrs) AS a"},
		{"duckdb join lateral subquery without on", "select t.a, s.b from t join lateral (select t.a + 1 as b) s", DuckDB,
			"SELECT t.a, s.b FROM t INNER JOIN LATERAL (SELECT t.a + 1 AS b) AS s"},
		{"date part words", "select dateadd(day, -3, current_date) as d, datediff('month', a, b) as m from t", Snowflake,
			"SELECT DATEADD(DAY, -3, CURRENT_DATE) AS d, DATEDIFF('month', a, b) AS m FROM t"},
		{"set operations bind", "select a from t union all select a from u intersect select a from v", Postgres,
			"SELECT a FROM t UNION ALL SELECT a FROM u INTERSECT SELECT a FROM v"},
		{"join using and natural", "select * from a join b using (id) natural left join c", Postgres,
			"SELECT * FROM a INNER JOIN b USING (id) NATURAL LEFT JOIN c"},
		{"aggregate clauses", "select string_agg(x, ',' order by y) filter (where z > 0) as s, percentile_cont(0.5) within group (order by v) as p from t", Postgres,
			"SELECT STRING_AGG(x, ',' ORDER BY y) FILTER(WHERE z > 0) AS s, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY v) AS p FROM t"},
		{"duckdb from-first and lambdas", "from t select list_transform(l, x -> x + 1) as l2", DuckDB,
			"SELECT LIST_TRANSFORM(l, x -> x + 1) AS l2 FROM t"},
		{"grouping sets", "select a, b, count(*) from t group by grouping sets ((a), (a, b), ())", Postgres,
			"SELECT a, b, COUNT(*) FROM t GROUP BY GROUPING SETS ((a), ROW(a, b), ())"},
		{"a comparison after a cast", "select x::int < 5 as small, cast(y as array<int64>) as a from t where z::numeric < 100 and w > 2", Postgres,
			"SELECT CAST(x AS INT) < 5 AS small, CAST(y AS ARRAY<INT64>) AS a FROM t WHERE CAST(z AS DECIMAL) < 100 AND w > 2"},
		{"nested type parameters", "select cast(s as struct<a array<int64>, b numeric(10, 2)>) < t as c from u", BigQuery,
			"SELECT CAST(s AS STRUCT<A ARRAY<INT64>, B NUMERIC(10, 2)>) < t AS c FROM u"},
		{"bigquery array offsets", "select a[offset(0)] as f, a[ordinal(1)] as g, a[safe_offset(2)] as h from t", BigQuery,
			"SELECT a[OFFSET(0)] AS f, a[ORDINAL(1)] AS g, a[SAFE_OFFSET(2)] AS h FROM t"},
		{"jsonb key operators", "select a::jsonb ? 'k' as has_k, b ?| array['x', 'y'] as any_of, b ?& array['x'] as all_of from t", Postgres,
			"SELECT CAST(a AS JSONB) ? 'k' AS has_k, b ?| ['x', 'y'] AS any_of, b ?& ['x'] AS all_of FROM t"},
		{"bigquery typed constructors", "select array<int64>[1, 2] as l, array<struct<x int64>>[] as e, struct<a int64, b string>(1, 'x') as s", BigQuery,
			"SELECT CAST([1, 2] AS ARRAY<INT64>) AS l, CAST([] AS ARRAY<STRUCT<X INT64>>) AS e, CAST(ROW(1, 'x') AS STRUCT<A INT64, B STRING>) AS s"},
		{"snowflake rlike and collate calls", "select rlike(a, '^x', 'i') as m, collate(b, 'und:ci') as c, a rlike '^y' as n from t", Snowflake,
			// Reserved names are written quoted, as LEFT( and RIGHT( are.
			`SELECT "rlike"(a, '^x', 'i') AS m, "collate"(b, 'und:ci') AS c, a RLIKE '^y' AS n FROM t`},
		{"a precision before the time zone", "select cast(a as timestamp(3) with time zone) as t, b::time(0) without time zone as u from t", Redshift,
			"SELECT CAST(a AS TIMESTAMP(3) WITH TIME ZONE) AS t, CAST(b AS TIME(0) WITHOUT TIME ZONE) AS u FROM t"},
		{"snowflake asof join match condition", "select t.a, q.p from trades t asof join quotes q match_condition (t.ts >= q.ts) on t.sym = q.sym", Snowflake,
			"SELECT t.a, q.p FROM trades AS t ASOF JOIN quotes AS q ON (t.ts >= q.ts) AND (t.sym = q.sym)"},
		{"a column definition list", "select r.a, r.b from t, jsonb_to_recordset(t.payload) as r(a int, b varchar(10))", Postgres,
			"SELECT r.a, r.b FROM t, JSONB_TO_RECORDSET(t.payload) AS r(a INT, b VARCHAR(10))"},
		{"an interval of an expression keeps its parentheses", "select d + interval (n - 1) day as x from t", DuckDB,
			"SELECT d + INTERVAL (n - 1) DAY AS x FROM t"},
		{"collations as written", `select a collate 'und:ci' as c, b collate "de_DE" as d from t`, Snowflake,
			`SELECT a COLLATE 'und:ci' AS c, b COLLATE "de_DE" AS d FROM t`},
		{"a window defined as another", "select sum(a) over w as s from t window w0 as (partition by b), w as (w0)", Postgres,
			"SELECT SUM(a) OVER w AS s FROM t WINDOW w0 AS (PARTITION BY b), w AS (w0)"},
		{"trim with a mode and no FROM", "select trim(both ' x ') as a, trim(leading b, '0') as c, trim(trailing from d) as e from t", Postgres,
			"SELECT TRIM(' x ') AS a, LTRIM(b, '0') AS c, RTRIM(d) AS e FROM t"},
		{"bigquery project ids with dashes", "select a - b as d from my-project-123.raw.events as e join other-project.raw.users u on e.id = u.id", BigQuery,
			`SELECT a - b AS d FROM "my-project-123".raw.events AS e INNER JOIN "other-project".raw.users AS u ON e.id = u.id`},
		{"samples with a method, and after a subquery", "select a from t sample block (10) seed (42), (select b from u) sample (1) as v tablesample bernoulli (5)", Snowflake,
			"SELECT a FROM t, (SELECT b FROM u) AS v"},
		{"snowflake time travel, before and after an alias", "select o.id, n.id from t before (statement => '8e5d') as o full join t at(offset => -60 * 5) n on o.id = n.id", Snowflake,
			"SELECT o.id, n.id FROM t AS o FULL JOIN t AS n ON o.id = n.id"},
		{"snowflake changes", "select c1 from t1 changes (information => append_only) at (stream => 's1') end (timestamp => to_timestamp_tz('2024-07-01'))", Snowflake,
			"SELECT c1 FROM t1"},
		{"bigquery and databricks time travel", "select a from t for system_time as of timestamp_sub(current_timestamp(), interval 1 hour) as x, u version as of 3, v timestamp as of '2024-01-01' w", BigQuery,
			"SELECT a FROM t AS x, u, v AS w"},
		{"a word that is an alias, not time travel", "select version.b from u version", Postgres,
			"SELECT version.b FROM u AS version"},
		{"time zone words", "select a::timestamp with local time zone as l, b::timestamp_ltz as m, c::timestamp(3) with local time zone as n, d::time without time zone as o from t", Snowflake,
			"SELECT CAST(a AS TIMESTAMP_LTZ) AS l, CAST(b AS TIMESTAMP_LTZ) AS m, CAST(c AS TIMESTAMP(3) WITH LOCAL TIME ZONE) AS n, CAST(d AS TIME) AS o FROM t"},
		{"overlay", "select overlay(a placing b from 1 for 2) as o, overlay(a placing b from 3) as p from t", Postgres,
			"SELECT OVERLAY(a, b, 1, 2) AS o, OVERLAY(a, b, 3) AS p FROM t"},
		{"redshift approximate count", "select approximate count(distinct y) as n from t", Redshift,
			"SELECT APPROXIMATE_COUNT(DISTINCT y) AS n FROM t"},
		{"duckdb filter without where", "select sum(x) filter (x = 1) as s from t", DuckDB,
			"SELECT SUM(x) FILTER(WHERE x = 1) AS s FROM t"},
		{"duckdb files as tables", "select e.id from 's3://Bucket/events/*.parquet' as e join 'users.csv' u on e.uid = u.id", DuckDB,
			`SELECT e.id FROM "s3://bucket/events/*.parquet" AS e INNER JOIN "users.csv" AS u ON e.uid = u.id`},
		{"snowflake inner join without on: a cross join", "select i, j from t1 join t2 tablesample bernoulli (50) inner join t3 where t2.j = t1.i", Snowflake,
			"SELECT i, j FROM t1 CROSS JOIN t2 CROSS JOIN t3 WHERE t2.j = t1.i"},
		{"top, an aggregate's limit and separator", "select top 5 array_agg(x order by y limit 10) as a, group_concat(z separator ';') as g from t", Generic,
			"SELECT TOP 5 ARRAY_AGG(x ORDER BY y LIMIT 10) AS a, GROUP_CONCAT(z SEPARATOR ';') AS g FROM t"},
		{"bigquery struct fields keep their names", "select struct(a as x, 2, c as `z`) as s from t", BigQuery,
			"SELECT ROW(a AS x, 2, c AS z) AS s FROM t"},
		{"between symmetric, order by all, fetch with ties", "select a from t where b between symmetric 9 and 1 order by all desc fetch first 3 rows with ties", DuckDB,
			"SELECT a FROM t WHERE b BETWEEN SYMMETRIC 9 AND 1 ORDER BY ALL DESC FETCH FIRST 3 ROWS WITH TIES"},
		{"fetch with ties after an offset", "select a from t order by a offset 2 rows fetch next 1 row with ties", Postgres,
			"SELECT a FROM t ORDER BY a OFFSET 2 FETCH FIRST 1 ROWS WITH TIES"},
		{"duckdb pivot statements, in a subquery and a CTE", "with u as (unpivot monthly on jan, feb as second into name month value a) select * from (pivot t on k in ('x' as ex, 'y') using sum(v) as s, max(w) group by g, h) as p, u", DuckDB,
			"WITH u AS (UNPIVOT monthly ON jan, feb AS second INTO NAME month VALUE a) SELECT * FROM (PIVOT t ON k IN ('x' AS ex, 'y') USING SUM(v) AS s, MAX(w) GROUP BY g, h) AS p, u"},
		{"duckdb pivot statements' defaults: every value, a count, name and value", "pivot t on k || '_' || l order by 1 limit 3", DuckDB,
			"PIVOT t ON k || '_' || l USING COUNT(*) ORDER BY 1 LIMIT 3"},
		{"duckdb unpivot statement's defaults", "unpivot t on a, b", DuckDB,
			"UNPIVOT t ON a, b INTO NAME name VALUE value"},
		{"duckdb pivot_wider and pivot_longer", "with w as (pivot_wider t on k using sum(v)) pivot_longer w on a, b into name n value x", DuckDB,
			"WITH w AS (PIVOT t ON k USING SUM(v)) UNPIVOT w ON a, b INTO NAME n VALUE x"},
		{"stars keeping the names that match", "select * exclude (a) ilike '%ID%', t.* not similar to 'x$', * glob 'a*' from t", DuckDB,
			"SELECT * EXCLUDE (a) ILIKE '%ID%', t.* NOT SIMILAR TO 'x$', * GLOB 'a*' FROM t"},
		{"duckdb columns expressions", "select columns('^a'), min(columns(* exclude (a))) as \"m_\\0\", columns(['x', 'y']), columns(c -> c like 'x%' and not c = 'xy') from t", DuckDB,
			"SELECT COLUMNS('^a'), MIN(COLUMNS(* EXCLUDE (a))) AS \"m_\\0\", COLUMNS(['x', 'y']), COLUMNS(c -> c LIKE 'x%' AND NOT c = 'xy') FROM t"},
		{"duckdb list comprehensions and lambda keywords", "select [x * 2 for x in l if x > m] as f, [x + i for x, i in l] as g, list_reduce(l, lambda a, b: a + b) as r, lambda from t", DuckDB,
			"SELECT LIST_TRANSFORM(LIST_FILTER(l, x -> x > m), x -> x * 2) AS f, LIST_TRANSFORM(l, (x, i) -> x + i) AS g, LIST_REDUCE(l, (a, b) -> a + b) AS r, lambda FROM t"},
		{"a call named columns outside duckdb", "select columns(a), s.columns(b) from t", Postgres,
			`SELECT "columns"(a), S.COLUMNS(b) FROM t`},
		{"a call's qualified star", "select object_construct(c.*), count(t.*) from c, t", Snowflake,
			"SELECT OBJECT_CONSTRUCT(c.*), COUNT(t.*) FROM c, t"},
		{"snowflake identifier() in FROM is the table it names", "select a from identifier('DB.\"My Schema\".t') as x, identifier(:tbl)", Snowflake,
			`SELECT a FROM db."my schema".t AS x, IDENTIFIER(:tbl)`},
		{"snowflake hierarchies", "select a, connect_by_root a as root, sys_connect_by_path(b, '/') as p, prior from t connect by nocycle prior a = b and c = prior d start with b is null where a > 0", Snowflake,
			"SELECT a, CONNECT_BY_ROOT a AS root, SYS_CONNECT_BY_PATH(b, '/') AS p, prior FROM t START WITH b IS NULL CONNECT BY NOCYCLE PRIOR a = b AND c = PRIOR d WHERE a > 0"},
		{"start and connect as aliases outside snowflake", "select start.a from t start, u connect", Postgres,
			"SELECT start.a FROM t AS start, u AS connect"},
		{"bigquery cast formats", "select cast(a as string format 'YYYY-MM-DD' at time zone 'Asia/Kolkata') as s, safe_cast(b as date format f) as d from t", BigQuery,
			"SELECT CAST(a AS STRING FORMAT 'YYYY-MM-DD' AT TIME ZONE 'Asia/Kolkata') AS s, SAFE_CAST(b AS DATE FORMAT f) AS d FROM t"},
		{"pivot with a default and an alias, then a sample", "select * from sales s pivot(sum(s.amount) as total, count(*) for quarter in ('Q1' as first, 'Q2') default on null (0)) as p tablesample bernoulli (1) where p.dept = 'x'", Snowflake,
			"SELECT * FROM sales AS s PIVOT (SUM(s.amount) AS total, COUNT(*) FOR quarter IN ('Q1' AS first, 'Q2') DEFAULT ON NULL (0)) AS p WHERE p.dept = 'x'"},
		{"pivot over the values the data holds", "select * from a pivot(max(v) for k in (any order by k)) join b pivot(min(v) for k in (select k from c)) on true", Snowflake,
			"SELECT * FROM a PIVOT (MAX(v) FOR k IN (ANY ORDER BY k)) INNER JOIN b PIVOT (MIN(v) FOR k IN (SELECT k FROM c)) ON TRUE"},
		{"pivot on two columns, of a join", "select * from (a join b using (id)) pivot (sum(x) for (y, z) in ((1, 'a') as one, (2, 'b') two))", DuckDB,
			"SELECT * FROM (a INNER JOIN b USING (id)) PIVOT (SUM(x) FOR (y, z) IN (ROW(1, 'a') AS one, ROW(2, 'b') AS two))"},
		{"unpivots, one turning another", "select * from t unpivot include nulls (v for k in (a, b as bee, c as 'sea')) as u unpivot ((x, y) for w in ((k, v) as 1))", BigQuery,
			"SELECT * FROM t UNPIVOT INCLUDE NULLS (v FOR k IN (a, b AS bee, c AS 'sea')) AS u UNPIVOT ((x, y) FOR w IN ((k, v) AS 1))"},
		{"duckdb limits of a share of the rows", "select a from (select a from t limit 10%) x limit 2.5 percent offset 1", DuckDB,
			"SELECT a FROM (SELECT a FROM t LIMIT 10 PERCENT) AS x LIMIT 2.5 PERCENT OFFSET 1"},
		{"a modulo in a limit stays one", "select a from t limit 10 % 3", DuckDB,
			"SELECT a FROM t LIMIT 10 % 3"},
		{"duckdb positional columns and map literals", "select #1, # 2 + 1 as b, map {a: #3, 'k' || b: [1]} as m, map {} as e from t order by #1", DuckDB,
			"SELECT #1, #2 + 1 AS b, MAP {a: #3, 'k' || b: [1]} AS m, MAP {} AS e FROM t ORDER BY #1"},
		{"values lists as subqueries", "select (values (4)) as v from t where a in (values (1), (2)) and b = any (values (3)) and exists (values (5))", Postgres,
			"SELECT (VALUES (4)) AS v FROM t WHERE a IN (VALUES (1), (2)) AND b = ANY(VALUES (3)) AND EXISTS(VALUES (5))"},
		{"databricks: names, strings, json paths and lateral views", "select `a.b`, t.`c`, \"it's\" as s, 'a\\'b' as e, x:a.b[0]::string as j, y:['k'] as k, any(f) as f, transform(arr, x -> x + 1) as u from `cat`.`sch`.`t` t lateral view outer posexplode(t.arr) p as i, v lateral view explode(m) e lateral view inline(s) as q, r", Databricks,
			`SELECT "a.b", t.c, 'it''s' AS s, 'a\''b' AS e, CAST(x:a.b[0] AS STRING) AS j, y:k AS k, "any"(f) AS f, TRANSFORM(arr, x -> x + 1) AS u FROM cat.sch.t AS t LATERAL VIEW OUTER POSEXPLODE(t.arr) p AS i, v LATERAL VIEW EXPLODE(m) e LATERAL VIEW INLINE(s) AS q, r`},
		{"generic: one parameter in parentheses is a json arrow, several a lambda", "select (payload) -> 0 as j, list_transform(xs, (x, i) -> x + i) as l from t", Generic,
			"SELECT (payload) -> 0 AS j, LIST_TRANSFORM(xs, (x, i) -> x + i) AS l FROM t"},
		{"duckdb: an arrow before a key is json's, in parentheses or not", "select (payload) -> 'a' as j, payload -> 'b' as k, list_transform(xs, (x) -> x + 1) as l from t", DuckDB,
			"SELECT (payload) -> 'a' AS j, payload -> 'b' AS k, LIST_TRANSFORM(xs, x -> x + 1) AS l FROM t"},
		{"bit and byte strings keep their prefix, text strings are text", "select b'0101', x'ff', n'n', e'e' from t", Postgres,
			"SELECT B'0101', X'ff', 'n', 'e' FROM t"},
		{"databricks: identifier of a raw string is the table it names", "select * from identifier(r'cat.sch.t') as x", Databricks,
			"SELECT * FROM cat.sch.t AS x"},
		{"snowflake: identifier of a byte string is a call, not a table", "select * from identifier(x'30')", Snowflake,
			"SELECT * FROM IDENTIFIER(X'30')"},
		{"databricks: an interval of several units is the sum of its parts", "select ts + interval 1 day -2 hours * 2 as a, interval '5' hours +'30' minutes - 1 as b from t", Databricks,
			"SELECT ts + (INTERVAL '1' DAY + INTERVAL '-2' HOURS) * 2 AS a, (INTERVAL '5' HOURS + INTERVAL '30' MINUTES) - 1 AS b FROM t"},
		{"databricks: a part's string signed negative is minus that string", "select interval '1' day -'2' hours as a", Databricks,
			"SELECT (INTERVAL '1' DAY + INTERVAL -'2' HOURS) AS a"},
		{"databricks: generator columns, types with named fields", "select posexplode(arr) as (i, v), cast(s as struct<a: int, b: array<string>>) as s2, cast(d as interval day to hour) as d2 from t", Databricks,
			"SELECT POSEXPLODE(arr) AS (i, v), CAST(s AS STRUCT<A: INT, B: ARRAY<STRING>>) AS s2, CAST(d AS INTERVAL DAY TO HOUR) AS d2 FROM t"},
		{"databricks identifier() in FROM is the table it names", "select a from identifier('Cat.`My Sch`.t') as x", Databricks,
			`SELECT a FROM cat."my sch".t AS x`},
		{"a CTE without AS", "with t (select 1 as c), u (c) as (select 2) select c from t union all select c from u", Snowflake,
			"WITH t AS (SELECT 1 AS c), u(c) AS (SELECT 2) SELECT c FROM t UNION ALL SELECT c FROM u"},
		{"databricks partition clauses", "select a from t cluster by a, b distribute by c sort by d desc limit 3", Databricks,
			"SELECT a FROM t CLUSTER BY a, b DISTRIBUTE BY c SORT BY d DESC LIMIT 3"},
		{"# is postgres's exclusive or", "select a # 1 from t", Postgres,
			"SELECT a # 1 FROM t"},
		{"comments and quoted names", "select \"Order Id\" /* c */ as id -- x\nfrom \"S\".\"T\"", Postgres,
			`SELECT "order id" AS id FROM s.t`},
	}
	for _, tc := range tests {
		q, err := Parse(tc.sql, tc.dialect)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := FormatQuery(q); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		checkRoundTrip(t, tc.name, q, tc.dialect)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, sql string
		line, col int
		msg       string
		dialect   Dialect
	}{
		{"jinja", "select a from t where {% if x %} b {% endif %}", 1, 23, "unrendered Jinja", Postgres},
		{"unterminated string", "select 'abc from t", 1, 8, "unterminated '-quoted text", Postgres},
		{"unterminated identifier", "select \"abc from t", 1, 8, `unterminated "-quoted text`, Postgres},
		{"unterminated comment", "select 1 /* x", 1, 10, "unterminated /* comment", Postgres},
		{"two statements", "select 1; select 2", 1, 11, `unexpected "select" after the end of the statement`, Postgres},
		{"dml", "delete from t", 1, 1, "DELETE statements are not queries", Postgres},
		{"dangling operator", "select a + from t", 1, 12, "expected an expression", Postgres},
		{"a percent limit outside duckdb", "select a from t limit 10%", 1, 26, "expected an expression", Postgres},
		{"duckdb's # takes a whole number", "select #a from t", 1, 8, "expected an expression", DuckDB},
		{"a map literal's key needs its value", "select map {a} from t", 1, 14, `expected ":"`, DuckDB},
		{"an interval of several units outside databricks", "select interval 1 day 2 hours", 1, 23, "unexpected number 2 after the end of the statement", DuckDB},
		{"empty", "  -- nothing\n", 2, 1, "empty statement", Postgres},
		{"join of a table without on", "select a from t join u", 1, 23, "ON or USING", Postgres},
		{"right join of a lateral function without on", "select a from t right join lateral unnest(t.l) x", 1, 49, "ON or USING", Postgres},
		{"empty type parameters", "select x::array< > from t", 1, 18, "expected a type or field name", Postgres},
		{"nested angle brackets first", "select x::array< <int> > from t", 1, 18, "expected a type or field name", Postgres},
		{"an operator in type parameters", "select x::map<a = b> from t", 1, 17, `"=" is not allowed in a type's parameters`, Postgres},
		{"a column definition list typing some columns", "select * from f(x) as r(a int, b)", 1, 33, "gives every column a type, or none", Postgres},
		{"filter without where outside duckdb", "select sum(x) filter (x = 1) from t", 1, 23, "expected WHERE", Postgres},
		{"asof match condition with using", "select a from t asof join u match_condition (t.ts >= u.ts) using (id)", 1, 60, "is not read", Postgres},
		{"backticks outside bigquery", "select `a` from t", 1, 8, "back-quoted identifiers are not postgres syntax", Postgres},
		{"time travel with no point in time", "select a from t for system_time as of", 1, 38, "expected an expression", Postgres},
		{"an unclosed time travel", "select a from t at (offset => 1", 1, 32, `expected ")"`, Postgres},
		{"changes without parentheses", "select a from t changes", 1, 17, `unexpected "changes"`, Postgres},
		{"pivot of a column, not an aggregate", "select * from t pivot (a for b in (1))", 1, 24, "aggregates with a function call", Postgres},
		{"pivot of a window call", "select * from t pivot (sum(a) over () for b in (1))", 1, 24, "aggregates with a function call", Postgres},
		{"pivot without for", "select * from t pivot (sum(a) as s)", 1, 35, "expected FOR", Postgres},
		{"pivot reading an IN as its aggregate", "select * from t pivot (sum(a) in (1))", 1, 24, "aggregates with a function call", Postgres},
		{"pivot without values", "select * from t pivot (sum(a) for b in ())", 1, 41, "expected an expression", Postgres},
		{"pivot on an expression", "select * from t pivot (sum(a) for b + 1 in (1))", 1, 37, "expected IN", Postgres},
		{"unpivot with a column short", "select * from t unpivot ((a, b) for k in ((c, d), (e)))", 1, 52, "as many columns in each IN entry", Postgres},
		{"pivot without parentheses", "select * from t pivot", 1, 22, `expected "("`, Postgres},
		{"a pivot statement outside duckdb", "pivot t on k", 1, 1, "expected SELECT", Postgres},
		{"a duckdb list comprehension with an index and IF", "select [x for x, i in l if x > 0] from t", 1, 25, "an index and IF is not read", DuckDB},
		{"a duckdb list comprehension of three names", "select [x for x, i, j in l] from t", 1, 21, "at most its index", DuckDB},
		{"duckdb columns of a list that is not of names", "select columns([1]) from t", 1, 8, "a list of names as strings", DuckDB},
		{"duckdb columns of a lambda that is not a test of the name", "select columns(c -> length(c) > 2) from t", 1, 8, "a COLUMNS lambda other than", DuckDB},
		{"duckdb columns of no regular expression", "select columns('(') from t", 1, 8, "COLUMNS pattern", DuckDB},
		{"duckdb columns of a star replacing", "select columns(* replace (1 as a)) from t", 1, 16, "COLUMNS(* REPLACE", DuckDB},
		{"duckdb columns of a lambda matching a pattern that is no string", "select columns(c -> c like []) from t", 1, 8, "a COLUMNS lambda other than", DuckDB},
		{"duckdb columns of an expression", "select columns(a + 1) from t", 1, 16, "COLUMNS selects with", DuckDB},
		{"a star's pattern that is no regular expression", "select * similar to 'a(' from t", 1, 21, "SIMILAR TO pattern", Postgres},
		{"a star's pattern that is no glob", "select * glob '[' from t", 1, 15, "GLOB pattern", Postgres},
		{"a duckdb pivot statement on several columns with IN lists", "pivot t on a in (1), b in (2)", 1, 22, "several columns with an IN list", DuckDB},
		{"a duckdb pivot statement on several columns, one with an IN list", "pivot t on a, b in (2)", 1, 15, "several columns with an IN list", DuckDB},
		{"a duckdb pivot statement without ON", "pivot t using sum(x)", 1, 9, "expected ON", DuckDB},
		{"a duckdb pivot statement's aggregate that is no call", "pivot t on a using x", 1, 20, "aggregates with a function call", DuckDB},
		{"a duckdb unpivot statement of COLUMNS(…)", "unpivot t on columns(* exclude (id)) into name k value v", 1, 21, "expected", DuckDB},
		{"a duckdb unpivot statement with an entry short of a value", "unpivot t on (a, b), c into name k value v, w", 1, 22, "as many columns in each IN entry", DuckDB},
		{"a duckdb unpivot statement's INTO without VALUE", "unpivot t on a into name k", 1, 27, "expected VALUE", DuckDB},
	}
	for _, tc := range tests {
		_, err := Parse(tc.sql, tc.dialect)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want an *Error", tc.name, err)
			continue
		}
		if pe.Line != tc.line || pe.Column != tc.col || !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("%s: got %v, want line %d column %d with %q", tc.name, pe, tc.line, tc.col, tc.msg)
		}
	}
}

// TestHostileInput: deep nesting is refused and long flat input is read;
// testctx.Within bounds a hang. How long the long input takes is
// BenchmarkHostileInput's to say, and that its work grows linearly
// TestHostileInputIsLinear's: a clock in a test measures the machine's
// load as much as the parser.
func TestHostileInput(t *testing.T) {
	deep := strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	nestedSelect := strings.Repeat("select * from (", 5000) + "select 1" + strings.Repeat(")", 5000)
	for _, tc := range []struct {
		name, sql string
		ok        bool
		dialect   *Dialect // DuckDB when nil
	}{
		{"deep parentheses", "select " + deep, false, nil},
		{"deep subqueries", nestedSelect, false, nil},
		{"deep unary", "select " + strings.Repeat("- ", 100000) + "1", false, nil},
		{"deep NOT", "select 1 where " + strings.Repeat("not ", 100000) + "true", false, nil},
		{"huge IN list", hugeIn(200000), true, nil},
		{"long operator chain", longChain(100000), true, nil},
		{"unterminated dollar quote", "select $$abc", false, nil},
		{"deep map literals", "select " + strings.Repeat("map {1: ", 100000) + "1" + strings.Repeat("}", 100000), false, nil},
		{"huge map literal", "select map {" + strings.Repeat("1: 2, ", 100000) + "1: 2}", true, nil},
		{"many lateral views", "select 1 from t" + strings.Repeat(" lateral view explode(a) v as x", 50000), true, &Databricks},
		{"many generator names", "select stack(1, 1) as (" + strings.Repeat("a, ", 100000) + "a) from t", true, &Databricks},
		{"deep json paths", "select x" + strings.Repeat(":a", 100000) + " from t", true, &Databricks},
		{"an interval of many units", "select interval 1 day" + strings.Repeat(" 2 hours", 100000) + " from t", true, &Databricks},
	} {
		d := DuckDB
		if tc.dialect != nil {
			d = *tc.dialect
		}
		testctx.Within(t, tc.name, func() {
			if _, err := Parse(tc.sql, d); (err == nil) != tc.ok {
				t.Errorf("%s: err %v, want ok=%v", tc.name, err, tc.ok)
			}
		})
	}
}

func hugeIn(n int) string { return "select a from t where a in (" + strings.Repeat("1, ", n) + "1)" }

func longChain(n int) string { return "select " + strings.Repeat("a + ", n) + "a from t" }

// TestHostileInputIsLinear: twice the list or chain allocates about twice
// the bytes, not four times: nothing is read or copied again per element.
func TestHostileInputIsLinear(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  func(n int) string
	}{
		{"IN list", hugeIn},
		{"operator chain", longChain},
	} {
		allocated := func(n int) uint64 {
			sql := tc.sql(n)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Parse(sql, DuckDB); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		if a, b := allocated(20000), allocated(40000); float64(b) > 2.5*float64(a) {
			t.Errorf("%s: %d bytes allocated for 20 000 elements, %d for 40 000", tc.name, a, b)
		} else {
			t.Logf("%s: %d bytes allocated for 20 000 elements, %d for 40 000", tc.name, a, b)
		}
	}
}

// BenchmarkHostileInput reads the long flat statements TestHostileInput
// does; ns/element is the time an element.
func BenchmarkHostileInput(b *testing.B) {
	for _, tc := range []struct {
		name string
		sql  string
		n    int
	}{
		{"huge-IN-list", hugeIn(200000), 200000},
		{"long-operator-chain", longChain(100000), 100000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(tc.sql, DuckDB); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tc.n), "ns/element")
		})
	}
}

// BenchmarkParseCorpus parses every statement of the lineage corpus;
// ns/stmt is the time per statement.
func BenchmarkParseCorpus(b *testing.B) {
	cases := testcorpus.LineageSQL(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cases {
			d, _ := DialectFor(c.Dialect)
			Parse(c.SQL, d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(cases)), "ns/stmt")
}

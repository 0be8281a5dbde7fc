package sqlparse

import (
	"strconv"
	"strings"
)

// Dialect is the SQL flavour a statement is read in. It only changes
// lexical rules and a few extensions; the tree is the same for all. Its
// methods say how the warehouse reads what the tree leaves open (the names
// of a pivot's columns, what $n or FROM t, t.items stands for), for
// lineage to ask rather than test a dialect's name.
type Dialect struct {
	name string
	// doubleQuotedStrings: "..." is a string literal, not an identifier
	// (BigQuery).
	doubleQuotedStrings bool
	// backticks: `...` quotes an identifier (BigQuery, Databricks, and
	// the generic dialect, which accepts what any of the others would).
	backticks bool
	// backtickPaths: `a.b.c` quotes a whole path, three names (BigQuery;
	// in Databricks it is one name holding dots).
	backtickPaths bool
	// hashComments: # starts a comment to end of line (BigQuery).
	hashComments bool
	// colonPaths: expr:path reads a semi-structured field (Snowflake).
	colonPaths bool
	// nestedComments: /* /* */ */ nests (PostgreSQL, DuckDB).
	nestedComments bool
	// dashedNames: a table name's first part may hold dashes unquoted,
	// as BigQuery's project ids do (my-project.dataset.table).
	dashedNames bool
	// fileTables: a string in FROM names a file to read (DuckDB).
	fileTables bool
	// bareFilter: an aggregate's FILTER (cond) may leave out WHERE
	// (DuckDB).
	bareFilter bool
	// questionOps: ?, ?| and ?& are JSONB's key operators, not
	// parameters (PostgreSQL: dbt compiles no parameters into a model).
	questionOps bool
	// How a PIVOT names its columns (PivotColumns): the aggregate's name
	// before the value's (BigQuery: total_q1, not q1_total); a value's
	// name as written, quotes and all (Snowflake: 'Q1'); an aggregate
	// without a name named by its call when there are several (DuckDB:
	// q1_sum(sales)).
	pivotAggFirst, pivotWrittenValues, pivotCallNames bool
	// unpivotValuesFirst: an UNPIVOT's value columns come before its name
	// column (BigQuery), not after.
	unpivotValuesFirst bool
	// bareInnerJoins: an INNER JOIN may leave out ON, and is then a CROSS
	// JOIN, the condition written in WHERE (Snowflake).
	bareInnerJoins bool
	// pivotStatements: PIVOT … ON … and UNPIVOT … ON … are queries
	// (DuckDB).
	pivotStatements bool
	// columnsExprs: COLUMNS(…) is an expression over several columns, not
	// a call (DuckDB).
	columnsExprs bool
	// connectBy: a SELECT may walk a hierarchy, START WITH … CONNECT BY
	// [NOCYCLE] … with PRIOR and CONNECT_BY_ROOT (Snowflake).
	connectBy bool
	// duckNames: DuckDB's names for the columns of a VALUES list (col0, …)
	// and of a table function returning one value (the function's, not
	// the alias's).
	duckNames bool
	// positionalPrefix: $n (Snowflake) or #n (DuckDB) is the n-th column
	// of the FROM items, not a parameter; 0 for none.
	positionalPrefix byte
	// percentLimits: LIMIT n% and LIMIT n PERCENT keep that share of the
	// rows (DuckDB).
	percentLimits bool
	// arrayPaths: a FROM item named through an earlier one (FROM t,
	// t.items) is that item's array column unnested (BigQuery, Redshift).
	arrayPaths bool
	// rowFunctions: which functions called in a select list return a row
	// for each value they yield (SetReturning).
	rowFunctions rowFunctions
	// lambdas: x -> expr and (x, y) -> expr are functions passed to a
	// call (DuckDB, Snowflake, Databricks), not JSON operators.
	lambdas bool
	// lateralViews: LATERAL VIEW [OUTER] f(…) t AS c after the FROM
	// items joins each row with the rows a generator makes of it
	// (Databricks, as Hive).
	lateralViews bool
	// partitionClauses: CLUSTER BY, DISTRIBUTE BY and SORT BY may follow
	// a query's ORDER BY (Databricks).
	partitionClauses bool
	// generatorAliases: a select item may name several columns, a
	// generator's, posexplode(x) AS (i, v) (Databricks).
	generatorAliases bool
	// identifierQuote: IDENTIFIER('db.schema.t') in FROM is the table the
	// string names, its parts quoted with this (Snowflake ", Databricks
	// `); 0 where IDENTIFIER is a function like any other.
	identifierQuote byte
	// sparkValues: a VALUES list's columns are col1, col2, …
	// (Databricks).
	sparkValues bool
	// multiUnitIntervals: INTERVAL 1 DAY 2 HOURS is one literal of
	// several units, their sum (Databricks).
	multiUnitIntervals bool
}

// rowFunctions names a warehouse's set of select-list set-returning
// functions.
type rowFunctions uint8

const (
	noRowFunctions       rowFunctions = iota
	postgresRowFunctions              // PostgreSQL's (the generic dialect's too)
	duckRowFunctions                  // DuckDB's unnest and generate_subscripts
	sparkRowFunctions                 // Databricks' generators: explode, posexplode, inline, stack
)

// The dialects this package reads. Generic is what a statement without a
// known warehouse is read as: PostgreSQL's rules plus the unambiguous
// extensions of the others.
var (
	Generic   = Dialect{name: "generic", backticks: true, backtickPaths: true, nestedComments: true, pivotStatements: true, columnsExprs: true, rowFunctions: postgresRowFunctions}
	Postgres  = Dialect{name: "postgres", nestedComments: true, questionOps: true, rowFunctions: postgresRowFunctions}
	Redshift  = Dialect{name: "redshift", arrayPaths: true}
	DuckDB    = Dialect{name: "duckdb", nestedComments: true, bareFilter: true, fileTables: true, pivotCallNames: true, pivotStatements: true, columnsExprs: true, duckNames: true, rowFunctions: duckRowFunctions, positionalPrefix: '#', percentLimits: true, lambdas: true}
	Snowflake = Dialect{name: "snowflake", colonPaths: true, pivotWrittenValues: true, bareInnerJoins: true, connectBy: true, positionalPrefix: '$', lambdas: true, identifierQuote: '"'}
	BigQuery  = Dialect{name: "bigquery", doubleQuotedStrings: true, backticks: true, backtickPaths: true, hashComments: true, dashedNames: true, pivotAggFirst: true, unpivotValuesFirst: true, arrayPaths: true}
	// Databricks reads Spark SQL as Databricks runs it: "…" and '…' are
	// strings with backslash escapes, `…` quotes a name, x:a.b reads a
	// JSON string's field.
	Databricks = Dialect{name: "databricks", doubleQuotedStrings: true, backticks: true, colonPaths: true, lambdas: true, lateralViews: true, generatorAliases: true, partitionClauses: true, rowFunctions: sparkRowFunctions, sparkValues: true, identifierQuote: '`', multiUnitIntervals: true}
)

// Name is the dialect's name as dbt's adapter_type spells it ("generic" for
// Generic).
func (d Dialect) Name() string {
	if d.name == "" {
		return "generic"
	}
	return d.name
}

// DialectFor maps a dbt adapter_type to the dialect this package reads it in.
// ok is false for an adapter whose SQL this package does not know (for
// example trino, sqlserver, clickhouse): its models must not be read
// as if they were another warehouse's SQL. An empty adapter type is Generic.
func DialectFor(adapterType string) (d Dialect, ok bool) {
	switch strings.ToLower(strings.TrimSpace(adapterType)) {
	case "":
		return Generic, true
	case "postgres", "postgresql":
		return Postgres, true
	case "redshift":
		return Redshift, true
	case "duckdb", "motherduck":
		return DuckDB, true
	case "snowflake":
		return Snowflake, true
	case "bigquery":
		return BigQuery, true
	case "databricks", "spark":
		return Databricks, true
	}
	return Dialect{}, false
}

// Dialects lists the adapter types DialectFor accepts, for messages.
func Dialects() []string {
	return []string{"bigquery", "databricks", "duckdb", "postgres", "redshift", "snowflake", "spark"}
}

// PivotColumns are the names of the columns p makes, as the warehouse
// names them (lowercased, as every name here is): for each value of its IN
// list in order, a column for each aggregate, named by the value (its
// alias, else the value: a string's text, or in Snowflake the value as
// written, 'Q1') joined by "_" with the aggregate's alias when it has one.
// These are the names sqlglot 26.9 gives them (and DuckDB 1.5 does, its
// statements' too), but that a Snowflake value with an alias is named by
// the alias. ok is false for a pivot over the
// values the data holds (IN (ANY), IN (SELECT …)), whose columns are known
// only when it runs.
func (d Dialect) PivotColumns(p *Pivot) (names []string, ok bool) {
	if p.Any || p.InQuery != nil {
		return nil, false
	}
	aggs := make([]string, len(p.Aggs))
	for i, a := range p.Aggs {
		switch {
		case a.Alias != nil:
			aggs[i] = a.Alias.Name
		case d.pivotCallNames && len(p.Aggs) > 1:
			aggs[i] = callName(a.Func)
		}
	}
	for _, v := range p.In {
		value := d.pivotValueName(v)
		for _, agg := range aggs {
			switch {
			case agg == "":
				names = append(names, value)
			case d.pivotAggFirst:
				names = append(names, agg+"_"+value)
			default:
				names = append(names, value+"_"+agg)
			}
		}
	}
	return names, true
}

// callName is the name DuckDB gives a pivot's column by an aggregate
// without an alias: the call as it prints it, count(*) as count_star().
// Its printer parenthesises operations inside a call (avg((a + 1))),
// which this does not: such a column is best given an alias.
func callName(f *Func) string {
	if f.Star && len(f.Name) == 1 && strings.EqualFold(f.Name[0].Name, "count") && !f.Distinct && f.Filter == nil {
		return "count_star()"
	}
	return strings.ToLower(Format(f))
}

// pivotValueName is the part of a pivot column's name its value gives.
func (d Dialect) pivotValueName(v *PivotValue) string {
	if v.Alias != nil {
		return v.Alias.Name
	}
	if l, ok := v.Value.(*Literal); ok && !d.pivotWrittenValues && (l.Kind != LitString || l.IsText()) {
		return strings.ToLower(l.Text)
	}
	if c, ok := v.Value.(*ColumnRef); ok {
		return c.Parts[len(c.Parts)-1].Name
	}
	return strings.ToLower(Format(v.Value))
}

// UnpivotColumns are the columns u adds after the columns of its source it
// does not read: its name column and its value columns, in the order the
// warehouse puts them (BigQuery: the values first).
func (d Dialect) UnpivotColumns(u *Unpivot) []Ident {
	out := make([]Ident, 0, 1+len(u.Values))
	if d.unpivotValuesFirst {
		return append(append(out, u.Values...), u.Name)
	}
	return append(append(out, u.Name), u.Values...)
}

// PositionalColumn is n when param is $n and the dialect reads it as the
// n-th column of the FROM items (Snowflake); ok is false otherwise.
func (d Dialect) PositionalColumn(param *Param) (n int, ok bool) {
	if d.positionalPrefix == 0 || len(param.Text) < 2 || param.Text[0] != d.positionalPrefix {
		return 0, false
	}
	n, err := strconv.Atoi(param.Text[1:])
	return n, err == nil && n >= 1
}

// ArrayPaths reports whether a FROM item named through an earlier one
// (FROM t, t.items) is that item's array column unnested, as BigQuery and
// Redshift read it; elsewhere t.items is a table in a schema t.
func (d Dialect) ArrayPaths() bool { return d.arrayPaths }

// SetReturning reports whether a call of the function named name (one
// part, any case) in a select list is a set-returning one: it yields any
// number of values, a row each, so that what it reads decides how many
// rows there are, as a table function in FROM does. PostgreSQL's are
// unnest, generate_series, the JSON array and object expanders
// (jsonb_array_elements, json_each, jsonb_object_keys, jsonb_path_query,
// json_to_recordset, …), regexp_matches, regexp_split_to_table,
// string_to_table and generate_subscripts; DuckDB's are unnest and
// generate_subscripts (its generate_series and range return a list
// there); Databricks' are its generators (explode, posexplode, inline,
// stack and their _outer forms); the generic dialect reads PostgreSQL's.
// The other warehouses call such functions only in FROM.
func (d Dialect) SetReturning(name string) bool {
	name = strings.ToLower(name)
	switch d.rowFunctions {
	case duckRowFunctions:
		return name == "unnest" || name == "generate_subscripts"
	case sparkRowFunctions:
		switch name {
		case "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "stack":
			return true
		}
	case postgresRowFunctions:
		return postgresSetReturning[name]
	}
	return false
}

// GeneratorColumns are the names Databricks gives the columns of a
// generator called without names for them (explode(arr), a LATERAL VIEW
// without AS): explode's col, posexplode's pos and col. These are an
// array's; over a map the columns are key and value, which the SQL alone
// does not tell. nil for any other function or dialect.
func (d Dialect) GeneratorColumns(name string) []string {
	if d.rowFunctions != sparkRowFunctions {
		return nil
	}
	switch strings.ToLower(name) {
	case "explode", "explode_outer":
		return []string{"col"}
	case "posexplode", "posexplode_outer":
		return []string{"pos", "col"}
	}
	return nil
}

var postgresSetReturning = map[string]bool{
	"unnest": true, "generate_series": true, "generate_subscripts": true,
	"json_array_elements": true, "json_array_elements_text": true, "jsonb_array_elements": true, "jsonb_array_elements_text": true,
	"json_each": true, "json_each_text": true, "jsonb_each": true, "jsonb_each_text": true,
	"json_object_keys": true, "jsonb_object_keys": true, "jsonb_path_query": true,
	"json_populate_recordset": true, "jsonb_populate_recordset": true, "json_to_recordset": true, "jsonb_to_recordset": true,
	"regexp_matches": true, "regexp_split_to_table": true, "string_to_table": true,
}

// DistinctColumnNames reports whether a query's columns get names of their
// own when it is read as a relation, as DuckDB renames a second a to a_1.
func (d Dialect) DistinctColumnNames() bool { return d.duckNames }

// ValuesColumn is the name of the i-th column (from 0) of a VALUES list
// given no names: column1, column2, … as PostgreSQL, Snowflake and Redshift
// name them; col0, col1, … in DuckDB; col1, col2, … in Databricks.
func (d Dialect) ValuesColumn(i int) string {
	if d.sparkValues {
		return "col" + strconv.Itoa(i+1)
	}
	if d.duckNames {
		return "col" + strconv.Itoa(i)
	}
	return "column" + strconv.Itoa(i+1)
}

// FunctionColumn is the name of the one column of a table function that
// returns a value for each row (range(3), unnest(l)) given a table alias
// and no column names: the alias in PostgreSQL and BigQuery (UNNEST(l) AS
// x), the function's name in DuckDB, which names the table by the alias.
func (d Dialect) FunctionColumn(function, alias string) string {
	if d.duckNames || alias == "" {
		return function
	}
	return alias
}

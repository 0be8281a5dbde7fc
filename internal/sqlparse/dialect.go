package sqlparse

import "strings"

// Dialect is the SQL flavour a statement is read in. It only changes
// lexical rules and a few extensions; the tree is the same for all.
type Dialect struct {
	name string
	// doubleQuotedStrings: "..." is a string literal, not an identifier
	// (BigQuery).
	doubleQuotedStrings bool
	// backticks: `...` quotes an identifier (BigQuery, and the generic
	// dialect, which accepts what any of the others would).
	backticks bool
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
}

// The dialects this package reads. Generic is what a statement without a
// known warehouse is read as: PostgreSQL's rules plus the unambiguous
// extensions of the others.
var (
	Generic   = Dialect{name: "generic", backticks: true, nestedComments: true}
	Postgres  = Dialect{name: "postgres", nestedComments: true, questionOps: true}
	Redshift  = Dialect{name: "redshift"}
	DuckDB    = Dialect{name: "duckdb", nestedComments: true, bareFilter: true, fileTables: true}
	Snowflake = Dialect{name: "snowflake", colonPaths: true}
	BigQuery  = Dialect{name: "bigquery", doubleQuotedStrings: true, backticks: true, hashComments: true, dashedNames: true}
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
// example databricks, spark, trino, sqlserver): its models must not be read
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
	}
	return Dialect{}, false
}

// Dialects lists the adapter types DialectFor accepts, for messages.
func Dialects() []string {
	return []string{"bigquery", "duckdb", "postgres", "redshift", "snowflake"}
}

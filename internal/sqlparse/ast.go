package sqlparse

import "github.com/celine-eu/governanced/internal/textpos"

// Pos is the 1-based line and column a node starts at.
type Pos = textpos.Pos

// Ident is an identifier. Name is its lookup form: lowercased, whether it
// was quoted or not, because dbt catalogs and the warehouses dbt targets
// compare most names case-insensitively; Quoted tells it was written in
// quotes.
type Ident struct {
	Name   string
	Quoted bool
	Pos
}

// Query is a query expression: an optional WITH list, a body, and the
// ORDER BY / LIMIT / OFFSET that apply to the body's result.
type Query struct {
	With      []*CTE
	Recursive bool
	Body      SetExpr
	OrderBy   []*OrderItem
	// OrderByAll is DuckDB's ORDER BY ALL, by every output column: "ASC"
	// or "DESC" ("" when not written).
	OrderByAll string
	// Databricks' CLUSTER BY, DISTRIBUTE BY and SORT BY: how the rows are
	// spread over partitions and sorted within each (CLUSTER BY x is
	// DISTRIBUTE BY x SORT BY x).
	ClusterBy, DistributeBy []Expr
	SortBy                  []*OrderItem
	Limit                   Expr // LIMIT n, FETCH FIRST n
	// LimitPercent: Limit is a share of the rows, LIMIT n% or LIMIT n
	// PERCENT (DuckDB).
	LimitPercent bool
	WithTies     bool // FETCH FIRST n ROWS WITH TIES: and the rows tied with the last
	Offset       Expr
	Pos
}

// CTE is one WITH entry.
type CTE struct {
	Name    Ident
	Columns []Ident
	Query   *Query
}

// SetExpr is a query body: *Select, *SetOp, *Query (parenthesised),
// *Values, or DuckDB's PIVOT and UNPIVOT statements (*Pivot, *Unpivot).
type SetExpr interface {
	Node
	setExpr()
}

// SetOp is UNION, INTERSECT or EXCEPT (MINUS is read as EXCEPT).
type SetOp struct {
	Op          string // "UNION", "INTERSECT", "EXCEPT"
	All         bool
	ByName      bool // DuckDB UNION [ALL] BY NAME
	Left, Right SetExpr
	Pos
}

// Values is a VALUES list used as a query body or a FROM item.
type Values struct {
	Rows [][]Expr
	Pos
}

// Select is one SELECT (or DuckDB FROM-first) block.
type Select struct {
	Top        Expr // TOP n (Snowflake, Redshift): the first n rows, as LIMIT n
	Distinct   bool
	DistinctOn []Expr
	Items      []*SelectItem
	From       []TableExpr // comma-separated FROM items (each may be a join tree)
	Where      Expr
	// StartWith and ConnectBy walk a hierarchy (Snowflake): the rows
	// StartWith holds, then the rows ConnectBy joins to a row already
	// walked (PRIOR naming its columns), level by level.
	StartWith, ConnectBy Expr
	NoCycle              bool
	GroupBy              []Expr // ordinals stay *Literal numbers
	GroupByAll           bool
	Having               Expr
	Qualify              Expr
	Windows              []*NamedWindow
	Pos
}

// NamedWindow is WINDOW name AS (spec).
type NamedWindow struct {
	Name Ident
	Spec *Window
}

// SelectItem is one entry of a select list: an expression with an optional
// alias, or a star (`*`, `t.*`) with its modifiers.
type SelectItem struct {
	Star      bool
	Qualifier []Ident // t.* → [t]; nil for a bare *
	Exclude   []Ident // * EXCLUDE (a, b) / * EXCEPT (a, b)
	Replace   []*SelectItem
	Rename    [][2]Ident // Snowflake * RENAME (a AS b)
	Match     *StarMatch // * ILIKE '%id%' and the like: the columns whose names match
	Expr      Expr
	Alias     *Ident
	// Aliases name the columns of Databricks' generator written with
	// several, posexplode(x) AS (pos, value); Alias is then nil.
	Aliases []Ident
	Pos
}

// StarMatch keeps the columns of a `*` whose names match Pattern:
// * [NOT] LIKE | ILIKE | GLOB | SIMILAR TO 'pattern' (DuckDB; Snowflake's
// ILIKE). Matcher tells which names it keeps.
type StarMatch struct {
	Op      string // "LIKE", "ILIKE", "GLOB" or "SIMILAR TO"
	Not     bool
	Pattern string
	Pos
}

// TableExpr is a FROM item: *Table, *DerivedTable, *TableFunc, *Join,
// *ValuesTable, *Pivot or *Unpivot.
type TableExpr interface {
	Node
	tableExpr()
}

// Alias names a FROM item and, optionally, its columns.
type Alias struct {
	Name    Ident
	Columns []Ident
	// Types are the columns' types when the list defines them, as a
	// function returning records is given them (PostgreSQL's
	// jsonb_to_recordset(x) AS r(a INT, b TEXT)); nil otherwise.
	Types []TypeName
}

// Table is a named relation: [[database.]schema.]name.
type Table struct {
	Name  []Ident
	Alias *Alias
	// Chosen is what else was written to choose its rows (samples and time
	// travel, grammar.md) as its tokens, words in upper case: not printed,
	// and for the row signatures of lineage only.
	Chosen string
	Pos
}

// DerivedTable is a subquery in FROM.
type DerivedTable struct {
	Query   *Query
	Lateral bool
	Alias   *Alias
	Chosen  string // as Table's
	Pos
}

// TableFunc is a function in FROM: UNNEST(...), FLATTEN(input => ...),
// range(...), generate_series(...), read_csv(...).
type TableFunc struct {
	Func           *Func
	Lateral        bool
	WithOrdinality bool
	WithOffset     *Ident // BigQuery UNNEST(...) WITH OFFSET [AS] name
	Alias          *Alias
	// View: Databricks' LATERAL VIEW [OUTER] f(…) t AS c, d after the FROM
	// items, a lateral function joined with every item before it (Outer:
	// a row of nulls where it makes none).
	View, Outer bool
	Pos
}

// ValuesTable is (VALUES ...) AS t(a, b) in FROM.
type ValuesTable struct {
	Values *Values
	Alias  *Alias
	Pos
}

// Pivot is a FROM item turned by PIVOT: Source's rows grouped by the
// columns neither the aggregates nor For read, with a column for each of
// In's values and each aggregate: the aggregate over the group's rows whose
// For columns hold that value. Which names the columns get is the
// warehouse's (Dialect.PivotColumns). As a query body it is DuckDB's PIVOT
// statement, PIVOT source ON for [IN (…)] USING aggs [GROUP BY …], whose
// GroupBy, when written, are the columns its rows are grouped by.
type Pivot struct {
	Source  TableExpr
	Aggs    []*PivotAgg
	For     []Expr        // FOR col, or FOR (a, b); DuckDB's ON expr
	In      []*PivotValue // IN (value [AS name], …); empty for Any and InQuery
	GroupBy []Expr        // the statement's GROUP BY
	// Any is IN (ANY [ORDER BY …]) and InQuery IN (SELECT …): Snowflake's
	// pivots on the values the data holds, whose columns are known only
	// when the query runs.
	Any      bool
	AnyOrder []*OrderItem
	InQuery  *Query
	Default  Expr // DEFAULT ON NULL (expr): Snowflake's value for a group without rows
	Alias    *Alias
	Chosen   string // as Table's
	Pos
}

// PivotAgg is one aggregate of a PIVOT, with the name its columns take.
type PivotAgg struct {
	Func  *Func
	Alias *Ident
}

// PivotValue is one value of a PIVOT's IN list (a Row for FOR (a, b)),
// with the name its column takes.
type PivotValue struct {
	Value Expr
	Alias *Ident
}

// Unpivot is a FROM item turned by UNPIVOT: each of Source's rows becomes
// a row for each of In's column groups, the group's name in the column
// Name and its columns' values in Values. As a query body it is DuckDB's
// UNPIVOT statement, UNPIVOT source ON columns [INTO NAME n VALUE v, …].
type Unpivot struct {
	Source TableExpr
	// Nulls is "INCLUDE NULLS", "EXCLUDE NULLS" (the default: a row whose
	// values are all null is left out) or "" as not written.
	Nulls  string
	Values []Ident // the value column, or (a, b) (BigQuery)
	Name   Ident
	In     []*UnpivotColumns
	Alias  *Alias
	Chosen string // as Table's
	Pos
}

// UnpivotColumns is one entry of an UNPIVOT's IN list: a column, or as many
// as there are value columns, and what its rows hold in the name column:
// Label (a string or number, BigQuery and Snowflake), Alias (a name), or
// the columns' names.
type UnpivotColumns struct {
	Columns []Ident
	Alias   *Ident
	Label   *Literal
}

// Join joins two FROM items. Kind is "INNER", "LEFT", "RIGHT", "FULL",
// "CROSS", "SEMI", "ANTI", "ASOF" or "POSITIONAL". Comma-separated FROM
// items are Select.From entries, not joins.
type Join struct {
	Kind        string
	Natural     bool
	Left, Right TableExpr
	On          Expr
	Using       []Ident
	Pos
}

// OrderItem is one ORDER BY entry.
type OrderItem struct {
	Expr       Expr
	Desc       bool
	NullsFirst *bool
}

// Window is an OVER (...) specification.
type Window struct {
	Ref         *Ident // OVER w, or OVER (w ...)
	PartitionBy []Expr
	OrderBy     []*OrderItem
	Frame       string // the frame clause, normalised text ("" when absent)
	FrameExprs  []Expr // offsets used in the frame
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// ColumnRef is a column reference: name, t.name, s.t.name, …
type ColumnRef struct {
	Parts []Ident
	Pos
}

// LiteralKind tells what a Literal is.
type LiteralKind uint8

// Literal kinds.
const (
	LitNumber LiteralKind = iota
	LitString
	LitBool
	LitNull
	// LitKeyword is a bare unit word where a function takes one
	// (DATEADD(day, …), DATE_TRUNC(month, …)); Text is upper case.
	LitKeyword
)

// Literal is a constant. Text is the number as written, the string's
// content, or "TRUE"/"FALSE"/"NULL".
type Literal struct {
	Kind   LiteralKind
	Text   string
	Prefix string // string prefix: E, B, X, N, R …
	Pos
}

// IsText reports whether l is a string of text: unprefixed, or E'…', N'…'
// or R'…'; not a string of bits or bytes (B'…', X'…', RB'…'), nor a number
// or a keyword.
func (l *Literal) IsText() bool {
	if l.Kind != LitString {
		return false
	}
	switch l.Prefix {
	case "", "E", "N", "R":
		return true
	}
	return false
}

// TypedLiteral is TYPE 'text' (DATE '2020-01-01', TIMESTAMP '…', JSON '…').
type TypedLiteral struct {
	Type  string
	Value string
	Pos
}

// Interval is INTERVAL value [unit [TO unit]].
type Interval struct {
	Value Expr
	Unit  string
	Pos
}

// Param is a bind parameter: ?, $1, :name, @name.
type Param struct {
	Text string
	Pos
}

// Unary is a prefix operator: -x, +x, NOT x, ~x.
type Unary struct {
	Op string
	X  Expr
	Pos
}

// Binary is an infix operator, including AND and OR.
type Binary struct {
	Op   string
	L, R Expr
	Pos
}

// Paren is a parenthesised expression.
type Paren struct {
	X Expr
	Pos
}

// Func is a function call, aggregate or window function.
type Func struct {
	Name        []Ident // schema.fn → two parts
	Args        []Expr
	Star        bool // count(*)
	Distinct    bool
	OrderBy     []*OrderItem // string_agg(x, ',' ORDER BY y)
	WithinGroup []*OrderItem
	Filter      Expr
	NullsMode   string // "IGNORE NULLS" / "RESPECT NULLS"
	Limit       Expr   // array_agg(x ORDER BY y LIMIT n) (BigQuery)
	Separator   Expr   // group_concat(x SEPARATOR s)
	Over        *Window
	Pos
}

// NamedArg is name => value (or name := value) inside a call.
type NamedArg struct {
	Name  Ident
	Value Expr
}

// TypeName is a type as written in a cast, normalised to upper case with
// single spaces ("DOUBLE PRECISION", "VARCHAR(32)", "INT[]").
type TypeName struct {
	Text string
}

// Cast is CAST(x AS t), x::t, TRY_CAST / SAFE_CAST.
type Cast struct {
	X    Expr
	Type TypeName
	Kind string // "CAST", "TRY_CAST", "SAFE_CAST"
	// Format and Zone are BigQuery's FORMAT f [AT TIME ZONE z]: how a
	// string is read or written; nil when not written.
	Format, Zone Expr
	Pos
}

// Case is CASE [operand] WHEN … THEN … [ELSE …] END.
type Case struct {
	Operand Expr
	Whens   []When
	Else    Expr
	Pos
}

// When is one WHEN … THEN … arm.
type When struct{ Cond, Result Expr }

// Subquery is a scalar subquery: (SELECT …).
type Subquery struct {
	Query *Query
	Pos
}

// Exists is EXISTS (SELECT …).
type Exists struct {
	Query *Query
	Pos
}

// In is x [NOT] IN (list) or x [NOT] IN (SELECT …).
type In struct {
	X     Expr
	Not   bool
	List  []Expr
	Query *Query
	Pos
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	X, Lo, Hi Expr
	Not       bool
	Symmetric bool // BETWEEN SYMMETRIC: the bounds in either order
	Pos
}

// Like is x [NOT] LIKE/ILIKE/SIMILAR TO/RLIKE/REGEXP/GLOB pattern,
// optionally quantified (LIKE ANY (…)).
type Like struct {
	X, Pattern Expr
	Escape     Expr
	Op         string
	Not        bool
	Quantifier string
	Pos
}

// Is is x IS [NOT] NULL/TRUE/FALSE/UNKNOWN, or x IS [NOT] DISTINCT FROM y.
type Is struct {
	X            Expr
	Not          bool
	What         string // "NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT FROM"
	DistinctFrom Expr
	Pos
}

// Quantified is x op ANY/ALL/SOME (subquery or array).
type Quantified struct {
	X     Expr
	Op    string
	Quant string
	Query *Query
	Array Expr
	Pos
}

// Array is ARRAY[…], [… ] or ARRAY(SELECT …).
type Array struct {
	Elems []Expr
	Query *Query
	Pos
}

// Struct is a DuckDB {'k': v} literal, or a BigQuery STRUCT(…)/(…).
type Struct struct {
	Keys   []string
	Values []Expr
	Pos
}

// Map is DuckDB's MAP {k: v, …} literal, whose keys are expressions.
type Map struct {
	Keys, Values []Expr
	Pos
}

// Row is a row constructor: (a, b) or ROW(a, b).
type Row struct {
	Elems []Expr
	// Names are the fields' names of BigQuery's STRUCT(x AS name, …), one
	// for each of Elems (nil for a field without one); nil when no field
	// is named.
	Names []*Ident
	Pos
}

// Subscript is x[i] or x[lo:hi].
type Subscript struct {
	X     Expr
	Index Expr
	Upper Expr
	Slice bool
	Pos
}

// Field is a field read: (x).f, x.f on a non-column, Snowflake x:f.
type Field struct {
	X     Expr
	Name  string
	Colon bool // Snowflake semi-structured path
	Pos
}

// Extract is EXTRACT(field FROM x).
type Extract struct {
	Field string
	X     Expr
	Pos
}

// Lambda is a DuckDB/Snowflake lambda: x -> expr, (x, y) -> expr.
type Lambda struct {
	Params []Ident
	Body   Expr
	Pos
}

// Columns is DuckDB's COLUMNS(selector): the expression it stands in, once
// for each column of the FROM items the selector picks (Matcher), by a
// regular expression found in the name (Pattern), a list of names (Names),
// a lambda over the name (Lambda), or a star with its modifiers (Star).
// Exactly one selector is set.
type Columns struct {
	Pattern *Literal
	Names   *Array
	Lambda  *Lambda
	Star    *SelectItem
	Pos
}

// Collate is x COLLATE name.
type Collate struct {
	X Expr
	// Collation is as SQL: a name, or a quoted name or a string (Snowflake's
	// 'und:ci') with its quotes, so that it prints as it reads.
	Collation string
	Pos
}

// AtTimeZone is x AT TIME ZONE zone.
type AtTimeZone struct {
	X, Zone Expr
	Pos
}

// Special is a niladic SQL keyword function: CURRENT_DATE, CURRENT_TIMESTAMP,
// CURRENT_USER, LOCALTIME …
type Special struct {
	Name string
	Pos
}

// Star is the * of count(*) or f(t.*) kept in a general position (never a
// select item: those are SelectItem.Star).
type Star struct {
	Qualifier []Ident // t.* → [t]
	Pos
}

func (*Select) setExpr()  {}
func (*SetOp) setExpr()   {}
func (*Query) setExpr()   {}
func (*Values) setExpr()  {}
func (*Pivot) setExpr()   {}
func (*Unpivot) setExpr() {}

func (*Table) tableExpr()        {}
func (*DerivedTable) tableExpr() {}
func (*TableFunc) tableExpr()    {}
func (*Join) tableExpr()         {}
func (*ValuesTable) tableExpr()  {}
func (*Pivot) tableExpr()        {}
func (*Unpivot) tableExpr()      {}

func (*ColumnRef) exprNode()    {}
func (*Literal) exprNode()      {}
func (*TypedLiteral) exprNode() {}
func (*Interval) exprNode()     {}
func (*Param) exprNode()        {}
func (*Unary) exprNode()        {}
func (*Binary) exprNode()       {}
func (*Paren) exprNode()        {}
func (*Func) exprNode()         {}
func (*NamedArg) exprNode()     {}
func (*Cast) exprNode()         {}
func (*Case) exprNode()         {}
func (*Subquery) exprNode()     {}
func (*Exists) exprNode()       {}
func (*In) exprNode()           {}
func (*Between) exprNode()      {}
func (*Like) exprNode()         {}
func (*Is) exprNode()           {}
func (*Quantified) exprNode()   {}
func (*Array) exprNode()        {}
func (*Struct) exprNode()       {}
func (*Map) exprNode()          {}
func (*Row) exprNode()          {}
func (*Subscript) exprNode()    {}
func (*Field) exprNode()        {}
func (*Extract) exprNode()      {}
func (*Lambda) exprNode()       {}
func (*Collate) exprNode()      {}
func (*Columns) exprNode()      {}
func (*AtTimeZone) exprNode()   {}
func (*Special) exprNode()      {}
func (*Star) exprNode()         {}

func (*CTE) node()          {}
func (*SelectItem) node()   {}
func (*NamedWindow) node()  {}
func (*Window) node()       {}
func (*OrderItem) node()    {}
func (*Select) node()       {}
func (*SetOp) node()        {}
func (*Query) node()        {}
func (*Values) node()       {}
func (*Table) node()        {}
func (*DerivedTable) node() {}
func (*TableFunc) node()    {}
func (*Join) node()         {}
func (*ValuesTable) node()  {}
func (*Pivot) node()        {}
func (*Unpivot) node()      {}
func (*ColumnRef) node()    {}
func (*Literal) node()      {}
func (*TypedLiteral) node() {}
func (*Interval) node()     {}
func (*Param) node()        {}
func (*Unary) node()        {}
func (*Binary) node()       {}
func (*Paren) node()        {}
func (*Func) node()         {}
func (*NamedArg) node()     {}
func (*Cast) node()         {}
func (*Case) node()         {}
func (*Subquery) node()     {}
func (*Exists) node()       {}
func (*In) node()           {}
func (*Between) node()      {}
func (*Like) node()         {}
func (*Is) node()           {}
func (*Quantified) node()   {}
func (*Array) node()        {}
func (*Struct) node()       {}
func (*Map) node()          {}
func (*Row) node()          {}
func (*Subscript) node()    {}
func (*Field) node()        {}
func (*Extract) node()      {}
func (*Lambda) node()       {}
func (*Collate) node()      {}
func (*Columns) node()      {}
func (*AtTimeZone) node()   {}
func (*Special) node()      {}
func (*Star) node()         {}

package sqlparse

import (
	"strconv"
	"strings"
)

// ---- queries ----

func (p *parser) query() (*Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	q := &Query{Pos: p.pos()}
	var err error
	if p.acceptKw("WITH") {
		q.Recursive = p.acceptKw("RECURSIVE")
		if q.With, err = list(p, p.cte); err != nil {
			return nil, err
		}
	}
	if q.Body, err = p.setExpr(); err != nil {
		return nil, err
	}
	if err := p.queryTail(q); err != nil {
		return nil, err
	}
	return q, nil
}

// queryTail reads ORDER BY, LIMIT, OFFSET and FETCH after a query body.
func (p *parser) queryTail(q *Query) error {
	if p.acceptKws("ORDER", "BY") {
		if p.acceptKw("ALL") { // DuckDB ORDER BY ALL: by every output column
			q.OrderByAll = "ASC"
			if p.acceptKw("DESC") {
				q.OrderByAll = "DESC"
			} else {
				p.acceptKw("ASC")
			}
		} else {
			items, err := p.orderItems()
			if err != nil {
				return err
			}
			q.OrderBy = items
		}
	}
	if p.d.partitionClauses {
		if err := p.partitionClauses(q); err != nil {
			return err
		}
	}
	for {
		var err error
		switch {
		case p.acceptKw("LIMIT"):
			err = p.limit(q)
		case p.acceptKw("OFFSET"):
			if q.Offset, err = p.expr(); err == nil && !p.acceptKw("ROWS") {
				p.acceptKw("ROW")
			}
		case p.acceptKw("FETCH"):
			err = p.fetch(q)
		default:
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// partitionAhead reports whether CLUSTER BY, DISTRIBUTE BY or SORT BY
// starts at the cursor where the dialect reads them, not an alias.
func (p *parser) partitionAhead() bool {
	return p.d.partitionClauses && p.isAnyKw("CLUSTER", "DISTRIBUTE", "SORT") && p.isKwAt(1, "BY")
}

// partitionClauses reads Databricks' [CLUSTER BY …] [DISTRIBUTE BY …]
// [SORT BY …], in that order.
func (p *parser) partitionClauses(q *Query) error {
	var err error
	if p.acceptKws("CLUSTER", "BY") {
		if q.ClusterBy, err = p.exprList(); err != nil {
			return err
		}
	}
	if p.acceptKws("DISTRIBUTE", "BY") {
		if q.DistributeBy, err = p.exprList(); err != nil {
			return err
		}
	}
	if p.acceptKws("SORT", "BY") {
		q.SortBy, err = p.orderItems()
	}
	return err
}

// limit reads what follows LIMIT: ALL, n, or offset, n.
func (p *parser) limit(q *Query) error {
	if p.acceptKw("ALL") {
		return nil
	}
	e, err := p.expr()
	if err != nil {
		return err
	}
	if p.acceptOp(",") { // LIMIT offset, count
		q.Offset = e
		if e, err = p.expr(); err != nil {
			return err
		}
	}
	q.Limit = e
	if p.d.percentLimits && (p.acceptOp("%") || p.acceptKw("PERCENT")) {
		q.LimitPercent = true
	}
	return nil
}

// fetch reads what follows FETCH: FIRST|NEXT [n] ROW|ROWS ONLY|WITH TIES.
func (p *parser) fetch(q *Query) error {
	if !p.acceptKw("FIRST") && !p.acceptKw("NEXT") {
		return p.unexpected("FIRST or NEXT")
	}
	var e Expr = &Literal{Kind: LitNumber, Text: "1", Pos: p.pos()}
	if !p.isAnyKw("ROW", "ROWS") {
		var err error
		if e, err = p.expr(); err != nil {
			return err
		}
	}
	if !p.acceptKw("ROWS") && !p.acceptKw("ROW") {
		return p.unexpected("ROWS")
	}
	if !p.acceptKw("ONLY") {
		if err := p.expectKw("WITH", "TIES"); err != nil {
			return err
		}
		q.WithTies = true
	}
	q.Limit = e
	return nil
}

func (p *parser) cte() (*CTE, error) {
	name, err := p.ident("a CTE name")
	if err != nil {
		return nil, err
	}
	c := &CTE{Name: name}
	if p.isOp("(") && p.queryAt(1) {
		// WITH t (SELECT …): Snowflake and Databricks leave out AS.
		if c.Query, err = inParens(p, p.query); err != nil {
			return nil, err
		}
		return c, nil
	}
	if p.isOp("(") {
		if c.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if p.acceptKw("NOT") && !p.isKw("MATERIALIZED") {
		return nil, p.unexpected("MATERIALIZED")
	}
	p.acceptKw("MATERIALIZED")
	if c.Query, err = inParens(p, p.query); err != nil {
		return nil, err
	}
	return c, nil
}

// setExpr: terms joined by UNION / EXCEPT (left-associative); INTERSECT
// binds tighter.
func (p *parser) setExpr() (SetExpr, error) {
	return p.setChain(p.setTerm, func() string {
		switch {
		case p.acceptKw("UNION"):
			return "UNION"
		case p.acceptKw("EXCEPT"), p.acceptKw("MINUS"):
			return "EXCEPT"
		}
		return ""
	})
}

func (p *parser) setTerm() (SetExpr, error) {
	return p.setChain(p.setPrimary, func() string {
		if p.acceptKw("INTERSECT") {
			return "INTERSECT"
		}
		return ""
	})
}

// setChain reads operands joined left-associatively by the set operators
// op takes ("" when none is next).
func (p *parser) setChain(operand func() (SetExpr, error), op func() string) (SetExpr, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		o := op()
		if o == "" {
			return left, nil
		}
		s := &SetOp{Op: o, Left: left, Pos: pos}
		p.setQuantifier(s)
		if s.Right, err = operand(); err != nil {
			return nil, err
		}
		left = s
	}
}

func (p *parser) setQuantifier(s *SetOp) {
	if s.All = p.acceptKw("ALL"); !s.All {
		p.acceptKw("DISTINCT")
	}
	s.ByName = p.acceptKws("BY", "NAME")
	// BigQuery: UNION ALL CORRESPONDING is not supported (falls to an error
	// at the next token).
}

func (p *parser) setPrimary() (SetExpr, error) {
	switch {
	case p.isAnyKw("SELECT", "FROM"):
		return p.selectCore()
	case p.isKw("VALUES"):
		return p.values()
	case p.isOp("("):
		q, err := inParens(p, p.query)
		if err != nil {
			return nil, err
		}
		return q, nil
	case p.isKw("WITH"):
		return p.query()
	case p.d.pivotStatements && p.isAnyKw("PIVOT", "PIVOT_WIDER"):
		return p.pivotStatement()
	case p.d.pivotStatements && p.isAnyKw("UNPIVOT", "PIVOT_LONGER"):
		return p.unpivotStatement()
	}
	if t := p.at(); t.kind == tWord {
		switch t.up {
		case "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "GRANT", "BEGIN", "CALL", "COPY", "SET", "USE", "EXECUTE", "DECLARE":
			return nil, p.errorf("%s statements are not queries: only a SELECT can be analysed", t.up)
		}
	}
	return nil, p.unexpected("SELECT")
}

func (p *parser) values() (*Values, error) {
	v := &Values{Pos: p.pos()}
	if err := p.expectKw("VALUES"); err != nil {
		return nil, err
	}
	rows, err := list(p, func() ([]Expr, error) { return inParens(p, p.exprList) })
	if err != nil {
		return nil, err
	}
	v.Rows = rows
	return v, nil
}

// ---- SELECT ----

func (p *parser) selectCore() (*Select, error) {
	s := &Select{Pos: p.pos()}
	var err error
	fromFirst := p.acceptKw("FROM")
	if fromFirst { // DuckDB: FROM t [SELECT …]
		if s.From, err = p.fromList(); err != nil {
			return nil, err
		}
		if !p.isKw("SELECT") {
			s.Items = []*SelectItem{{Star: true, Pos: s.Pos}}
		}
	}
	if p.acceptKw("SELECT") {
		if err := p.selectList(s); err != nil {
			return nil, err
		}
	}
	if p.isKw("INTO") {
		return nil, p.errorf("SELECT … INTO is not a query")
	}
	if !fromFirst && p.acceptKw("FROM") {
		if s.From, err = p.fromList(); err != nil {
			return nil, err
		}
	}
	if err := p.selectClauses(s); err != nil {
		return nil, err
	}
	return s, nil
}

// selectList reads what follows SELECT: TOP n, DISTINCT [ON (…)] or ALL,
// and the items.
func (p *parser) selectList(s *Select) error {
	var err error
	if p.acceptKw("TOP") {
		if s.Top, err = p.primary(); err != nil {
			return err
		}
	}
	if s.Distinct = p.acceptKw("DISTINCT"); !s.Distinct {
		p.acceptKw("ALL")
	} else if p.acceptKw("ON") {
		if s.DistinctOn, err = inParens(p, p.exprList); err != nil {
			return err
		}
	}
	if p.isKw("AS") && (p.isKwAt(1, "STRUCT") || p.isKwAt(1, "VALUE")) { // BigQuery
		p.i += 2
	}
	s.Items, err = p.selectItems()
	return err
}

// selectClauses reads WHERE, GROUP BY, HAVING, QUALIFY and WINDOW, each at
// most once, in any order.
func (p *parser) selectClauses(s *Select) error {
	for {
		var err error
		switch {
		case s.Where == nil && p.acceptKw("WHERE"):
			s.Where, err = p.expr()
		case s.StartWith == nil && p.d.connectBy && p.acceptKws("START", "WITH"):
			s.StartWith, err = p.expr()
		case s.ConnectBy == nil && p.d.connectBy && p.acceptKws("CONNECT", "BY"):
			s.NoCycle = p.acceptKw("NOCYCLE")
			p.inConnectBy = true
			s.ConnectBy, err = p.expr()
			p.inConnectBy = false
		case s.GroupBy == nil && !s.GroupByAll && p.acceptKws("GROUP", "BY"):
			if s.GroupByAll = p.acceptKw("ALL"); !s.GroupByAll {
				s.GroupBy, err = p.groupItems()
			}
		case s.Having == nil && p.acceptKw("HAVING"):
			s.Having, err = p.expr()
		case s.Qualify == nil && p.acceptKw("QUALIFY"):
			s.Qualify, err = p.expr()
		case s.Windows == nil && p.acceptKw("WINDOW"):
			s.Windows, err = list(p, p.namedWindow)
		default:
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *parser) namedWindow() (*NamedWindow, error) {
	name, err := p.ident("a window name")
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	w, err := p.windowSpec()
	if err != nil {
		return nil, err
	}
	return &NamedWindow{Name: name, Spec: w}, nil
}

func (p *parser) groupItems() ([]Expr, error) { return list(p, p.groupItem) }

// groupItem is an expression, ROLLUP/CUBE (…), GROUPING SETS (…) or the
// empty grouping set ().
func (p *parser) groupItem() (Expr, error) {
	pos := p.pos()
	switch {
	case p.isAnyKw("ROLLUP", "CUBE"):
		name := p.advance()
		args, err := inParens(p, p.exprList)
		if err != nil {
			return nil, err
		}
		return &Func{Name: []Ident{{Name: strings.ToLower(name.text)}}, Args: args, Pos: pos}, nil
	case p.acceptKws("GROUPING", "SETS"):
		args, err := inParens(p, func() ([]Expr, error) {
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			return p.groupItems()
		})
		if err != nil {
			return nil, err
		}
		return &Func{Name: []Ident{{Name: "grouping sets"}}, Args: args, Pos: pos}, nil
	case p.isOp("(") && p.isOpAt(1, ")"):
		p.i += 2
		return &Row{Pos: pos}, nil
	}
	return p.expr()
}

func (p *parser) selectItems() ([]*SelectItem, error) {
	var items []*SelectItem
	for {
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.acceptOp(",") {
			return items, nil
		}
		if p.isKw("FROM") || p.at().kind == tEOF || p.isOp(")") { // trailing comma
			return items, nil
		}
	}
}

// starAhead reports whether the tokens at the cursor are `*` or a
// qualified `a.b.*`, and how many tokens the qualifier takes.
func (p *parser) starAhead() (bool, int) {
	if p.isOp("*") {
		return true, 0
	}
	for n := 0; identToken(p.peek(n)) && p.isOpAt(n+1, "."); n += 2 {
		if p.isOpAt(n+2, "*") {
			return true, n/2 + 1
		}
	}
	return false, 0
}

func (p *parser) selectItem() (*SelectItem, error) {
	it := &SelectItem{Pos: p.pos()}
	if star, quals := p.starAhead(); star {
		for k := 0; k < quals; k++ {
			id, _ := p.anyIdent("a name")
			it.Qualifier = append(it.Qualifier, id)
			p.i++ // the dot
		}
		p.i++ // the star
		it.Star = true
		return it, p.starModifiers(it)
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	it.Expr = e
	if p.d.generatorAliases && p.isKw("AS") && p.isOpAt(1, "(") {
		p.i++
		it.Aliases, err = p.identList()
		return it, err
	}
	if it.Alias, err = p.optAlias(); err != nil {
		return nil, err
	}
	return it, nil
}

func (p *parser) optAlias() (*Ident, error) {
	if p.acceptKw("AS") {
		t := p.at()
		if t.kind == tString { // AS 'name' (BigQuery, Snowflake, DuckDB accept it)
			if t.text == "" {
				return nil, p.errorf("zero-length alias")
			}
			p.i++
			return &Ident{Name: strings.ToLower(t.text), Quoted: true, Pos: t.pos()}, nil
		}
	} else if !nameToken(p.at()) || p.partitionAhead() {
		return nil, nil
	}
	id, err := p.anyIdent("an alias")
	return &id, err
}

// ---- FROM ----

func (p *parser) fromList() ([]TableExpr, error) {
	items, err := list(p, p.fromItem)
	for err == nil && p.d.lateralViews && p.isKw("LATERAL") && p.isKwAt(1, "VIEW") {
		var view *TableFunc
		if view, err = p.lateralView(); err == nil {
			items = append(items, view)
		}
	}
	return items, err
}

// lateralView reads Databricks' LATERAL VIEW [OUTER] f(…) [t] [AS c {, c}]:
// a table name, column names, or both (Spark's grammar wants the table
// name, its documentation the columns).
func (p *parser) lateralView() (*TableFunc, error) {
	pos := p.pos()
	p.i += 2 // LATERAL VIEW
	v := &TableFunc{Lateral: true, View: true, Outer: p.acceptKw("OUTER"), Pos: pos}
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	if !p.isOp("(") {
		return nil, p.unexpected(`"(" after the generator's name`)
	}
	if v.Func, err = p.call(name, pos); err != nil {
		return nil, err
	}
	v.Alias = &Alias{}
	if !p.isKw("AS") {
		if v.Alias.Name, err = p.ident("the lateral view's table name or AS"); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("AS") || nameToken(p.at()) && !tableNoise[p.at().up] {
		if v.Alias.Columns, err = list(p, p.columnName); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (p *parser) fromItem() (TableExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.tablePrimary()
	if err != nil {
		return nil, err
	}
	for {
		j, ok, err := p.joinHead()
		if err != nil {
			return nil, err
		}
		if !ok {
			return left, nil
		}
		j.Left = left
		if j.Right, err = p.tablePrimary(); err != nil {
			return nil, err
		}
		if err := p.joinConstraint(j); err != nil {
			return nil, err
		}
		left = j
	}
}

// joinConstraint reads a join's ON or USING, where its kind has one.
func (p *parser) joinConstraint(j *Join) error {
	if j.Kind == "CROSS" || j.Kind == "POSITIONAL" || j.Natural {
		return nil
	}
	var match Expr
	if j.Kind == "ASOF" && p.isKw("MATCH_CONDITION") && p.isOpAt(1, "(") {
		// Snowflake's ASOF JOIN t MATCH_CONDITION (…) [ON …]: both choose
		// the rows joined, read as one ON, (match) AND (on).
		at := p.pos()
		p.i++
		cond, err := inParens(p, p.expr)
		if err != nil {
			return err
		}
		match = &Paren{X: cond, Pos: at}
		switch {
		case p.isKw("USING"):
			return p.errorf("ASOF JOIN … MATCH_CONDITION (…) USING (…) is not read; write the USING columns as ON conditions")
		case !p.isKw("ON"):
			j.On = match
			return nil
		}
	}
	var err error
	switch {
	case p.acceptKw("ON"):
		at := p.pos()
		j.On, err = p.expr()
		if err == nil && match != nil {
			j.On = &Binary{Op: "AND", L: match, R: &Paren{X: j.On, Pos: at}, Pos: at}
		}
	case p.acceptKw("USING"):
		j.Using, err = p.identList()
	case joinFree(j):
	case p.d.bareInnerJoins && j.Kind == "INNER" && match == nil:
		j.Kind = "CROSS" // what it is: every row of one side with every row of the other
	default:
		err = p.unexpected("ON or USING")
	}
	return err
}

// joinFree reports whether a join may go without ON or USING: an inner or
// left join of a lateral item (Snowflake's JOIN LATERAL FLATTEN(input => …),
// DuckDB's JOIN LATERAL (…)) or of Snowflake's TABLE(FLATTEN(…)), which the
// warehouses read as a join on every row the item makes for its row.
func joinFree(j *Join) bool {
	if j.Kind != "INNER" && j.Kind != "LEFT" {
		return false
	}
	switch r := j.Right.(type) {
	case *TableFunc:
		return true
	case *DerivedTable:
		return r.Lateral
	}
	return false
}

func (p *parser) joinHead() (*Join, bool, error) {
	j := &Join{Pos: p.pos()}
	start := p.i
	j.Natural = p.acceptKw("NATURAL")
	switch {
	case p.acceptKw("INNER"):
		j.Kind = "INNER"
	case p.acceptKw("LEFT"), p.acceptKw("RIGHT"), p.acceptKw("FULL"):
		j.Kind = p.toks[p.i-1].up
		switch {
		case p.acceptKw("OUTER"):
		case p.acceptKw("SEMI"):
			j.Kind = "SEMI"
		case p.acceptKw("ANTI"):
			j.Kind = "ANTI"
		}
	case p.acceptKw("CROSS"):
		j.Kind = "CROSS"
	case p.acceptKw("SEMI"), p.acceptKw("ANTI"), p.acceptKw("POSITIONAL"):
		j.Kind = p.toks[p.i-1].up
	case p.acceptKw("ASOF"):
		j.Kind = "ASOF"
		if p.acceptKw("LEFT") {
			p.acceptKw("OUTER")
		}
	}
	if !p.acceptKw("JOIN") {
		if p.i != start {
			return nil, false, p.unexpected("JOIN")
		}
		return nil, false, nil
	}
	if j.Kind == "" {
		j.Kind = "INNER"
	}
	return j, true, nil
}

// tableNoise are words that may follow a FROM item and are not an alias.
var tableNoise = map[string]bool{"TABLESAMPLE": true, "SAMPLE": true, "AT": true, "BEFORE": true, "CHANGES": true, "FINAL": true, "MATCH_CONDITION": true}

// hierarchyAhead reports whether START WITH or CONNECT BY starts at the
// cursor where the dialect reads them, not an alias.
func (p *parser) hierarchyAhead() bool {
	return p.d.connectBy && (p.isKw("START") && p.isKwAt(1, "WITH") || p.isKw("CONNECT") && p.isKwAt(1, "BY"))
}

func (p *parser) tableAlias() (*Alias, error) {
	explicit := p.acceptKw("AS")
	if t := p.at(); !explicit && (!nameToken(t) || tableNoise[t.up] || p.hierarchyAhead() || p.partitionAhead()) {
		return nil, nil
	}
	var id Ident
	var err error
	if explicit {
		id, err = p.anyIdent("an alias")
	} else {
		id, err = p.ident("an alias")
	}
	if err != nil {
		return nil, err
	}
	a := &Alias{Name: id}
	if p.isOp("(") {
		if err := p.aliasColumns(a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// aliasColumns reads a table alias's column list, ( name {, name} ), or
// the column definition list ( name type {, name type} ).
func (p *parser) aliasColumns(a *Alias) error {
	_, err := inParens(p, func() (struct{}, error) {
		for {
			c, err := p.columnName()
			if err != nil {
				return struct{}{}, err
			}
			a.Columns = append(a.Columns, c)
			defines := !p.isOp(",") && !p.isOp(")")
			switch {
			case defines && len(a.Columns) == 1:
				a.Types = []TypeName{}
			case defines != (a.Types != nil):
				return struct{}{}, p.errorf("a column definition list gives every column a type, or none")
			}
			if defines {
				ty, err := p.typeName()
				if err != nil {
					return struct{}{}, err
				}
				a.Types = append(a.Types, ty)
			}
			if !p.acceptOp(",") {
				return struct{}{}, nil
			}
		}
	})
	return err
}

// tableItem reads a FROM item up to the PIVOTs and UNPIVOTs that may turn
// it (tablePrimary).
func (p *parser) tableItem() (TableExpr, error) {
	pos := p.pos()
	lateral := p.acceptKw("LATERAL")
	switch {
	case p.isOp("("):
		return p.parenTable(lateral, pos)
	case p.isKw("VALUES"):
		v, err := p.values()
		if err != nil {
			return nil, err
		}
		return p.valuesTable(v, pos)
	case p.isKw("TABLE") && p.isOpAt(1, "("):
		return p.tableOfFunc(lateral, pos)
	case p.d.fileTables && !lateral && p.at().kind == tString:
		// DuckDB reads a file named as a string: FROM 'events.parquet',
		// as dbt-duckdb writes an external source. It is a relation of
		// that name, kept as a quoted one.
		if p.at().text == "" {
			return nil, p.errorf("a file to read has a name, not ''")
		}
		t := p.advance()
		return p.table([]Ident{{Name: strings.ToLower(t.text), Quoted: true, Pos: t.pos()}}, pos)
	}
	name, err := p.tableName()
	if err != nil {
		return nil, err
	}
	if p.isOp("(") {
		fn, err := p.call(name, pos)
		if err != nil {
			return nil, err
		}
		if table, ok := p.identifierTable(fn); ok && !lateral {
			return p.table(table, pos)
		}
		return p.tableFuncTail(fn, lateral, pos)
	}
	if lateral {
		return nil, p.errorf("LATERAL must be followed by a subquery or a function")
	}
	return p.table(name, pos)
}

// parenTable reads a FROM item in parentheses: a subquery, VALUES, or a
// join.
func (p *parser) parenTable(lateral bool, pos Pos) (TableExpr, error) {
	switch {
	case p.queryAt(1) || p.isKwAt(1, "FROM") || p.isOpAt(1, "(") && p.parenQueryAhead():
		q, err := inParens(p, p.query)
		if err != nil {
			return nil, err
		}
		alias, chosen, err := p.sampledAlias()
		if err != nil {
			return nil, err
		}
		return &DerivedTable{Query: q, Lateral: lateral, Alias: alias, Chosen: chosen, Pos: pos}, nil
	case p.isKwAt(1, "VALUES"):
		v, err := inParens(p, p.values)
		if err != nil {
			return nil, err
		}
		return p.valuesTable(v, pos)
	}
	inner, err := inParens(p, p.fromItem)
	if err != nil {
		return nil, err
	}
	if alias, err := p.tableAlias(); err != nil {
		return nil, err
	} else if alias != nil {
		return nil, p.errorf("an alias on a parenthesised join is not supported")
	}
	return inner, nil
}

func (p *parser) valuesTable(v *Values, pos Pos) (TableExpr, error) {
	alias, err := p.tableAlias()
	if err != nil {
		return nil, err
	}
	return &ValuesTable{Values: v, Alias: alias, Pos: pos}, nil
}

// tableName reads [[database.]schema.]name; the first part must not be a
// reserved word.
func (p *parser) tableName() ([]Ident, error) {
	first, err := p.ident("a table name")
	if err != nil {
		return nil, err
	}
	dotTaken := false
	if p.d.dashedNames && !first.Quoted {
		first, dotTaken = p.dashedName(first)
	}
	name := []Ident{first}
	for dotTaken || p.acceptOp(".") {
		dotTaken = false
		id, err := p.anyIdent("a table name")
		if err != nil {
			return nil, err
		}
		name = append(name, id)
	}
	return name, nil
}

// dashedName extends first, a table name's first part just read, with the
// dashes and words or numbers written against it, with no space between:
// BigQuery's project ids hold dashes and need no quotes in a table name
// (my-project-123.dataset.table), where a - between names would mean
// nothing else. The name is then kept as quoted, which it prints as.
// dotTaken is true when the last number took the dot after it (the
// lexer reads 123. as a number): the name goes on after it.
func (p *parser) dashedName(first Ident) (_ Ident, dotTaken bool) {
	prev := p.toks[p.i-1]
	for p.isOp("-") && adjacent(prev, p.at()) {
		next := p.peek(1)
		text := next.text
		if next.kind == tNumber {
			text = strings.TrimSuffix(text, ".")
			if strings.ContainsAny(text, ".eExX_") {
				break
			}
		}
		if next.kind != tWord && next.kind != tNumber || !adjacent(p.at(), next) {
			break
		}
		first.Name += "-" + strings.ToLower(text)
		first.Quoted = true
		p.i += 2
		prev = next
		if next.kind == tNumber && text != next.text {
			return first, true
		}
	}
	return first, false
}

// adjacent reports whether b is written right after a, with no space:
// a is a word, number or operator written as its text.
func adjacent(a, b token) bool {
	return a.line == b.line && a.col+len(a.text) == b.col
}

// table reads what may follow a named table: sampling clauses and an alias.
func (p *parser) table(name []Ident, pos Pos) (TableExpr, error) {
	alias, chosen, err := p.sampledAlias()
	if err != nil {
		return nil, err
	}
	start := p.i
	if err := p.skipUsingSample(); err != nil {
		return nil, err
	}
	return &Table{Name: name, Alias: alias, Chosen: chosen + p.tokenText(start), Pos: pos}, nil
}

// sampledAlias reads a FROM item's alias with the samples and time travel
// written before or after it (skipTableModifiers), and returns those as
// their tokens' text (tokenText).
func (p *parser) sampledAlias() (*Alias, string, error) {
	start := p.i
	if err := p.skipTableModifiers(); err != nil {
		return nil, "", err
	}
	chosen := p.tokenText(start)
	alias, err := p.tableAlias()
	if err != nil {
		return nil, "", err
	}
	start = p.i
	if err := p.skipTableModifiers(); err != nil {
		return nil, "", err
	}
	return alias, chosen + p.tokenText(start), nil
}

// tokenText is the text of the tokens from start to the cursor, each its
// kind, its string prefix and its text (a word in upper case) after its
// length, so that neither layout nor a keyword's case counts and no two
// runs of tokens have the same text.
func (p *parser) tokenText(start int) string {
	var b strings.Builder
	for _, t := range p.toks[start:p.i] {
		text := t.text
		if t.kind == tWord {
			text = t.up
		}
		b.WriteByte('0' + byte(t.kind))
		b.WriteString(t.prefix)
		b.WriteString(strconv.Itoa(len(text)))
		b.WriteByte(':')
		b.WriteString(text)
	}
	return b.String()
}

// parenQueryAhead reports whether the "(" at the cursor opens a query
// wrapped in more parentheses: ((select …) union …).
func (p *parser) parenQueryAhead() bool {
	n := 0
	for p.isOpAt(n, "(") {
		n++
	}
	return p.queryAt(n)
}

// ---- ORDER BY, windows ----

func (p *parser) orderItems() ([]*OrderItem, error) { return list(p, p.orderItem) }

func (p *parser) orderItem() (*OrderItem, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	it := &OrderItem{Expr: e}
	if it.Desc = p.acceptKw("DESC"); !it.Desc {
		p.acceptKw("ASC")
	}
	if p.acceptKw("NULLS") {
		first := p.acceptKw("FIRST")
		if !first {
			if err := p.expectKw("LAST"); err != nil {
				return nil, err
			}
		}
		it.NullsFirst = &first
	}
	return it, nil
}

func (p *parser) windowSpec() (*Window, error) { return inParens(p, p.windowBody) }

// windowBody reads what a window's parentheses hold: [name] [PARTITION BY
// …] [ORDER BY …] [frame].
func (p *parser) windowBody() (*Window, error) {
	w := &Window{}
	if nameToken(p.at()) && !p.isAnyKw("PARTITION", "ROWS", "RANGE", "GROUPS") {
		id, _ := p.anyIdent("a window name")
		w.Ref = &id
	}
	var err error
	if p.acceptKws("PARTITION", "BY") {
		if w.PartitionBy, err = p.exprList(); err != nil {
			return nil, err
		}
	}
	if p.acceptKws("ORDER", "BY") {
		if w.OrderBy, err = p.orderItems(); err != nil {
			return nil, err
		}
	}
	if p.isAnyKw("ROWS", "RANGE", "GROUPS") {
		if w.Frame, err = p.windowFrame(w); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// windowFrame reads ROWS|RANGE|GROUPS [BETWEEN bound AND] bound [EXCLUDE
// …] as normalised text, a "?" standing for each offset, whose expressions
// go to w.FrameExprs.
func (p *parser) windowFrame(w *Window) (string, error) {
	parts := []string{p.advance().up}
	var err error
	if p.acceptKw("BETWEEN") {
		if parts, err = p.frameBound(w, append(parts, "BETWEEN")); err != nil {
			return "", err
		}
		if err := p.expectKw("AND"); err != nil {
			return "", err
		}
		parts = append(parts, "AND")
	}
	if parts, err = p.frameBound(w, parts); err != nil {
		return "", err
	}
	if p.acceptKw("EXCLUDE") {
		parts = append(parts, "EXCLUDE")
		for p.at().kind == tWord && !p.isOp(")") {
			parts = append(parts, p.advance().up)
		}
	}
	return strings.Join(parts, " "), nil
}

// frameBound reads UNBOUNDED|offset PRECEDING|FOLLOWING or CURRENT ROW
// onto parts.
func (p *parser) frameBound(w *Window, parts []string) ([]string, error) {
	switch {
	case p.acceptKw("UNBOUNDED"):
		parts = append(parts, "UNBOUNDED")
	case p.acceptKw("CURRENT"):
		return append(parts, "CURRENT ROW"), p.expectKw("ROW")
	default:
		e, err := p.additive()
		if err != nil {
			return nil, err
		}
		w.FrameExprs = append(w.FrameExprs, e)
		parts = append(parts, "?")
	}
	for _, dir := range []string{"PRECEDING", "FOLLOWING"} {
		if p.acceptKw(dir) {
			return append(parts, dir), nil
		}
	}
	return nil, p.unexpected("PRECEDING or FOLLOWING")
}

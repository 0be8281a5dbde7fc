package sqlparse

// PIVOT and UNPIVOT (Snowflake, BigQuery, DuckDB, Redshift): each turns the
// FROM item before it, and another may turn the result.

// tablePrimary reads a FROM item with the PIVOTs and UNPIVOTs that turn it,
// each with its own alias.
func (p *parser) tablePrimary() (TableExpr, error) {
	t, err := p.tableItem()
	depth := p.depth
	defer func() { p.depth = depth }()
	for err == nil && (p.isKw("PIVOT") || p.isKw("UNPIVOT")) {
		if err = p.enter(); err != nil { // each turns the one before: a chain nests
			break
		}
		if p.isKw("PIVOT") {
			t, err = p.pivot(t)
		} else {
			t, err = p.unpivot(t)
		}
	}
	return t, err
}

// pivot reads PIVOT ( agg [[AS] name] {, …} FOR column IN ( values )
// [DEFAULT ON NULL ( expr )] ) [alias] after source.
func (p *parser) pivot(source TableExpr) (TableExpr, error) {
	pv := &Pivot{Source: source, Pos: p.pos()}
	p.i++ // PIVOT
	_, err := inParens(p, func() (struct{}, error) {
		var err error
		if pv.Aggs, err = list(p, p.pivotAgg); err != nil {
			return struct{}{}, err
		}
		if err := p.expectKw("FOR"); err != nil {
			return struct{}{}, err
		}
		if pv.For, err = p.pivotColumns(); err != nil {
			return struct{}{}, err
		}
		if err := p.expectKw("IN"); err != nil {
			return struct{}{}, err
		}
		if _, err := inParens(p, func() (struct{}, error) { return struct{}{}, p.pivotIn(pv) }); err != nil {
			return struct{}{}, err
		}
		if p.acceptKws("DEFAULT", "ON", "NULL") {
			if pv.Default, err = inParens(p, p.expr); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		return nil, err
	}
	if pv.Alias, pv.Chosen, err = p.sampledAlias(); err != nil {
		return nil, err
	}
	return pv, nil
}

// pivotAgg reads one aggregate of a PIVOT and the name its columns take.
func (p *parser) pivotAgg() (*PivotAgg, error) {
	pos := p.pos()
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	f, ok := e.(*Func)
	if !ok || f.Over != nil {
		return nil, &Error{Pos: pos, Msg: "a PIVOT aggregates with a function call, as SUM(amount)"}
	}
	alias, err := p.optAlias()
	if err != nil {
		return nil, err
	}
	return &PivotAgg{Func: f, Alias: alias}, nil
}

// pivotColumns reads the column a PIVOT spreads, or a parenthesised list
// of them.
func (p *parser) pivotColumns() ([]Expr, error) {
	column := func() (Expr, error) {
		pos := p.pos()
		var parts []Ident
		for {
			id, err := p.columnName()
			if err != nil {
				return nil, err
			}
			parts = append(parts, id)
			if !p.acceptOp(".") {
				return &ColumnRef{Parts: parts, Pos: pos}, nil
			}
		}
	}
	if p.isOp("(") {
		return inParens(p, func() ([]Expr, error) { return list(p, column) })
	}
	c, err := column()
	if err != nil {
		return nil, err
	}
	return []Expr{c}, nil
}

// pivotIn reads what is inside a PIVOT's IN ( … ): ANY [ORDER BY …], a
// query, or values each with an optional name.
func (p *parser) pivotIn(pv *Pivot) error {
	var err error
	switch {
	case p.acceptKw("ANY"):
		pv.Any = true
		if p.acceptKws("ORDER", "BY") {
			pv.AnyOrder, err = p.orderItems()
		}
	case p.queryAt(0):
		pv.InQuery, err = p.query()
	default:
		pv.In, err = list(p, func() (*PivotValue, error) {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			alias, err := p.optAlias()
			return &PivotValue{Value: e, Alias: alias}, err
		})
	}
	return err
}

// unpivot reads UNPIVOT [INCLUDE NULLS | EXCLUDE NULLS] ( values FOR name
// IN ( columns [[AS] label] {, …} ) ) [alias] after source.
func (p *parser) unpivot(source TableExpr) (TableExpr, error) {
	up := &Unpivot{Source: source, Pos: p.pos()}
	p.i++ // UNPIVOT
	up.Nulls = p.unpivotNulls()
	_, err := inParens(p, func() (struct{}, error) {
		var err error
		if up.Values, err = p.namesOrList(); err != nil {
			return struct{}{}, err
		}
		if err := p.expectKw("FOR"); err != nil {
			return struct{}{}, err
		}
		if up.Name, err = p.columnName(); err != nil {
			return struct{}{}, err
		}
		if err := p.expectKw("IN"); err != nil {
			return struct{}{}, err
		}
		up.In, err = inParens(p, func() ([]*UnpivotColumns, error) { return list(p, p.unpivotColumns) })
		return struct{}{}, err
	})
	if err != nil {
		return nil, err
	}
	if err := up.check(); err != nil {
		return nil, err
	}
	if up.Alias, up.Chosen, err = p.sampledAlias(); err != nil {
		return nil, err
	}
	return up, nil
}

// unpivotNulls reads INCLUDE NULLS or EXCLUDE NULLS after UNPIVOT.
func (p *parser) unpivotNulls() string {
	for _, nulls := range [...]string{"INCLUDE", "EXCLUDE"} {
		if p.acceptKws(nulls, "NULLS") {
			return nulls + " NULLS"
		}
	}
	return ""
}

// check refuses an UNPIVOT whose entries do not each read as many columns
// as it has value columns.
func (up *Unpivot) check() error {
	for _, in := range up.In {
		if len(in.Columns) != len(up.Values) {
			return &Error{Pos: in.Columns[0].Pos, Msg: "an UNPIVOT reads as many columns in each IN entry as it has value columns"}
		}
	}
	return nil
}

// unpivotColumns reads one entry of an UNPIVOT's IN list.
func (p *parser) unpivotColumns() (*UnpivotColumns, error) {
	cols, err := p.namesOrList()
	if err != nil {
		return nil, err
	}
	u := &UnpivotColumns{Columns: cols}
	explicit := p.acceptKw("AS")
	switch t := p.at(); {
	case t.kind == tString || t.kind == tNumber:
		p.i++
		kind := LitString
		if t.kind == tNumber {
			kind = LitNumber
		}
		u.Label = &Literal{Kind: kind, Text: t.text, Pos: t.pos()}
	case explicit || nameToken(t):
		id, err := p.anyIdent("a name")
		if err != nil {
			return nil, err
		}
		u.Alias = &id
	}
	return u, nil
}

// namesOrList reads a column name, or a parenthesised list of them.
func (p *parser) namesOrList() ([]Ident, error) {
	if p.isOp("(") {
		return p.identList()
	}
	id, err := p.columnName()
	if err != nil {
		return nil, err
	}
	return []Ident{id}, nil
}

// pivotStatement reads DuckDB's PIVOT statement: PIVOT source ON expr
// [IN ( values )] {, expr} [USING agg [[AS] alias] {, …}] [GROUP BY expr
// {, …}]. Without IN its columns are the values the data holds (Any);
// without USING it counts rows.
func (p *parser) pivotStatement() (SetExpr, error) {
	pv := &Pivot{Pos: p.pos()}
	p.i++ // PIVOT or PIVOT_WIDER
	var err error
	if pv.Source, err = p.tableItem(); err != nil {
		return nil, err
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	// Each ON is an expression of the operators that bind tighter than
	// IN, so that its IN list, whose values may have aliases, is the
	// pivot's.
	in, n := false, 0
	var second Pos // where the second ON starts
	pv.For, err = list(p, func() (Expr, error) {
		if n++; n == 2 {
			second = p.pos()
		}
		e, err := p.other()
		if err == nil && p.acceptKw("IN") {
			in = true
			_, err = inParens(p, func() (struct{}, error) { return struct{}{}, p.pivotIn(pv) })
		}
		return e, err
	})
	if err != nil {
		return nil, err
	}
	if in && len(pv.For) > 1 {
		return nil, &Error{Pos: second, Msg: "a PIVOT on several columns with an IN list is not read; pivot on one"}
	}
	pv.Any = pv.Any || !in
	if p.acceptKw("USING") {
		if pv.Aggs, err = list(p, p.pivotAgg); err != nil {
			return nil, err
		}
	} else {
		pv.Aggs = []*PivotAgg{{Func: &Func{Name: []Ident{{Name: "count"}}, Star: true, Pos: pv.Pos}}}
	}
	if p.acceptKws("GROUP", "BY") {
		if pv.GroupBy, err = p.exprList(); err != nil {
			return nil, err
		}
	}
	return pv, nil
}

// unpivotStatement reads DuckDB's UNPIVOT statement: UNPIVOT [INCLUDE
// NULLS | EXCLUDE NULLS] source ON columns [[AS] label] {, …} [INTO NAME
// name VALUE value {, value}]; the name and value columns are "name" and
// "value" when INTO is not written.
func (p *parser) unpivotStatement() (SetExpr, error) {
	up := &Unpivot{Pos: p.pos()}
	p.i++ // UNPIVOT or PIVOT_LONGER
	up.Nulls = p.unpivotNulls()
	var err error
	if up.Source, err = p.tableItem(); err != nil {
		return nil, err
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	if up.In, err = list(p, p.unpivotColumns); err != nil {
		return nil, err
	}
	up.Name, up.Values = Ident{Name: "name", Pos: up.Pos}, []Ident{{Name: "value", Pos: up.Pos}}
	if p.acceptKw("INTO") {
		if err := p.expectKw("NAME"); err != nil {
			return nil, err
		}
		if up.Name, err = p.columnName(); err != nil {
			return nil, err
		}
		if err := p.expectKw("VALUE"); err != nil {
			return nil, err
		}
		if up.Values, err = list(p, p.columnName); err != nil {
			return nil, err
		}
	}
	if err := up.check(); err != nil {
		return nil, err
	}
	return up, nil
}

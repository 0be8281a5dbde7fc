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
func (p *parser) pivotColumns() ([]*ColumnRef, error) {
	column := func() (*ColumnRef, error) {
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
		return inParens(p, func() ([]*ColumnRef, error) { return list(p, column) })
	}
	c, err := column()
	if err != nil {
		return nil, err
	}
	return []*ColumnRef{c}, nil
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
	for _, nulls := range [...]string{"INCLUDE", "EXCLUDE"} {
		if p.acceptKws(nulls, "NULLS") {
			up.Nulls = nulls + " NULLS"
		}
	}
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
	for _, in := range up.In {
		if len(in.Columns) != len(up.Values) {
			return nil, &Error{Pos: in.Columns[0].Pos, Msg: "an UNPIVOT reads as many columns in each IN entry as it has value columns"}
		}
	}
	if up.Alias, up.Chosen, err = p.sampledAlias(); err != nil {
		return nil, err
	}
	return up, nil
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

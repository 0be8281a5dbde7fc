package sqlparse

import (
	"fmt"
	"strings"
)

// MaxDepth bounds the nesting of subqueries and expressions. Real models
// stay far below it; deeper input is refused instead of growing the stack.
const MaxDepth = 200

// Parse reads one SELECT statement (a query expression, optionally ending
// in ';') in dialect d. Anything else — several statements, DDL/DML,
// unrendered Jinja, syntax this package does not know — is an *Error.
func Parse(sql string, d Dialect) (*Query, error) {
	toks, err := lex(sql, d)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, d: d}
	if p.at().kind == tEOF {
		return nil, p.errorf("empty statement")
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	for p.acceptOp(";") {
	}
	if t := p.at(); t.kind != tEOF {
		return nil, p.errorf("unexpected %s after the end of the statement", describe(t))
	}
	return q, nil
}

type parser struct {
	toks  []token
	i     int
	d     Dialect
	depth int
}

func (p *parser) at() token { return p.toks[p.i] }

func (p *parser) peek(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) pos() Pos { t := p.at(); return Pos{t.line, t.col} }

func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tWord:
		return fmt.Sprintf("%q", t.text)
	case tQuoted:
		return fmt.Sprintf("quoted identifier %q", t.text)
	case tString:
		return "string literal"
	case tNumber:
		return "number " + t.text
	case tParam:
		return "parameter " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) errorf(format string, args ...any) error {
	t := p.at()
	return &Error{Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) unexpected(want string) error {
	return p.errorf("expected %s, found %s", want, describe(p.at()))
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorf("nesting deeper than %d levels", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) isKw(kw string) bool { t := p.at(); return t.kind == tWord && t.up == kw }

func (p *parser) isKwAt(n int, kw string) bool {
	t := p.peek(n)
	return t.kind == tWord && t.up == kw
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) error {
	if !p.acceptKw(kw) {
		return p.unexpected(kw)
	}
	return nil
}

func (p *parser) isOp(op string) bool { t := p.at(); return t.kind == tOp && t.text == op }

func (p *parser) isOpAt(n int, op string) bool {
	t := p.peek(n)
	return t.kind == tOp && t.text == op
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.unexpected(fmt.Sprintf("%q", op))
	}
	return nil
}

// reserved words end an expression or a FROM item: they are never read as
// an implicit alias or a bare column name.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ALL AND ANTI ANY APPLY AS ASC ASOF BETWEEN BY CASE CROSS DESC DISTINCT ELSE END
		ESCAPE EXCEPT FETCH FOR FROM FULL GLOB GROUP HAVING ILIKE IN INNER INTERSECT INTO IS ISNULL JOIN
		LATERAL LEFT LIKE LIMIT MINUS NATURAL NOT NOTNULL NULLS OFFSET ON OR ORDER OUTER OVER PIVOT POSITIONAL
		QUALIFY REGEXP RETURNING RIGHT RLIKE SAMPLE SELECT SEMI SIMILAR TABLESAMPLE THEN UNION UNPIVOT
		USING VALUES WHEN WHERE WINDOW WITH COLLATE`) {
		reserved[w] = true
	}
}

// ident reads an identifier (a non-reserved word or a quoted name).
func (p *parser) ident(what string) (Ident, error) {
	t := p.at()
	switch {
	case t.kind == tQuoted:
		p.i++
		return Ident{Name: strings.ToLower(t.text), Quoted: true, Pos: Pos{t.line, t.col}}, nil
	case t.kind == tWord && !reserved[t.up]:
		p.i++
		return Ident{Name: strings.ToLower(t.text), Pos: Pos{t.line, t.col}}, nil
	}
	return Ident{}, p.unexpected(what)
}

// anyIdent reads an identifier after a dot, where reserved words are names.
func (p *parser) anyIdent(what string) (Ident, error) {
	t := p.at()
	if t.kind == tWord || t.kind == tQuoted {
		p.i++
		return Ident{Name: strings.ToLower(t.text), Quoted: t.kind == tQuoted, Pos: Pos{t.line, t.col}}, nil
	}
	return Ident{}, p.unexpected(what)
}

func (p *parser) identList() ([]Ident, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []Ident
	for {
		id, err := p.anyIdent("a column name")
		if err != nil {
			return nil, err
		}
		out = append(out, id)
		if !p.acceptOp(",") {
			break
		}
	}
	return out, p.expectOp(")")
}

// ---- queries ----

func (p *parser) query() (*Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	q := &Query{Pos: p.pos()}
	if p.acceptKw("WITH") {
		q.Recursive = p.acceptKw("RECURSIVE")
		for {
			cte, err := p.cte()
			if err != nil {
				return nil, err
			}
			q.With = append(q.With, cte)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	body, err := p.setExpr()
	if err != nil {
		return nil, err
	}
	q.Body = body
	if err := p.queryTail(q); err != nil {
		return nil, err
	}
	return q, nil
}

// queryTail reads ORDER BY, LIMIT, OFFSET and FETCH after a query body.
func (p *parser) queryTail(q *Query) error {
	if p.isKw("ORDER") && p.isKwAt(1, "BY") {
		p.i += 2
		if p.isKw("ALL") { // DuckDB ORDER BY ALL: by every output column
			p.i++
			if !p.acceptKw("DESC") {
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
	for {
		switch {
		case p.acceptKw("LIMIT"):
			if p.acceptKw("ALL") {
				continue
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
		case p.acceptKw("OFFSET"):
			e, err := p.expr()
			if err != nil {
				return err
			}
			q.Offset = e
			if !p.acceptKw("ROWS") {
				p.acceptKw("ROW")
			}
		case p.acceptKw("FETCH"):
			if !p.acceptKw("FIRST") && !p.acceptKw("NEXT") {
				return p.unexpected("FIRST or NEXT")
			}
			var e Expr = &Literal{Kind: LitNumber, Text: "1", Pos: p.pos()}
			if !p.isKw("ROW") && !p.isKw("ROWS") {
				var err error
				if e, err = p.expr(); err != nil {
					return err
				}
			}
			if !p.acceptKw("ROWS") && !p.acceptKw("ROW") {
				return p.unexpected("ROWS")
			}
			if !p.acceptKw("ONLY") {
				if err := p.expectKw("WITH"); err != nil {
					return err
				}
				if err := p.expectKw("TIES"); err != nil {
					return err
				}
			}
			q.Limit = e
		default:
			return nil
		}
	}
}

func (p *parser) cte() (*CTE, error) {
	name, err := p.ident("a CTE name")
	if err != nil {
		return nil, err
	}
	c := &CTE{Name: name}
	if p.isOp("(") {
		if c.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if p.acceptKw("NOT") {
		if err := p.expectKw("MATERIALIZED"); err != nil {
			return nil, err
		}
	} else {
		p.acceptKw("MATERIALIZED")
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	if c.Query, err = p.query(); err != nil {
		return nil, err
	}
	return c, p.expectOp(")")
}

// setExpr: terms joined by UNION / EXCEPT (left-associative); INTERSECT
// binds tighter.
func (p *parser) setExpr() (SetExpr, error) {
	left, err := p.setTerm()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		var op string
		switch {
		case p.acceptKw("UNION"):
			op = "UNION"
		case p.acceptKw("EXCEPT"), p.acceptKw("MINUS"):
			op = "EXCEPT"
		default:
			return left, nil
		}
		s := &SetOp{Op: op, Left: left, Pos: pos}
		p.setQuantifier(s)
		if s.Right, err = p.setTerm(); err != nil {
			return nil, err
		}
		left = s
	}
}

func (p *parser) setQuantifier(s *SetOp) {
	if p.acceptKw("ALL") {
		s.All = true
	} else {
		p.acceptKw("DISTINCT")
	}
	if p.isKw("BY") && p.isKwAt(1, "NAME") {
		p.i += 2
		s.ByName = true
	}
	// BigQuery: UNION ALL CORRESPONDING is not supported (falls to an error
	// at the next token).
}

func (p *parser) setTerm() (SetExpr, error) {
	left, err := p.setPrimary()
	if err != nil {
		return nil, err
	}
	for p.isKw("INTERSECT") {
		pos := p.pos()
		p.i++
		s := &SetOp{Op: "INTERSECT", Left: left, Pos: pos}
		p.setQuantifier(s)
		if s.Right, err = p.setPrimary(); err != nil {
			return nil, err
		}
		left = s
	}
	return left, nil
}

func (p *parser) setPrimary() (SetExpr, error) {
	switch {
	case p.isKw("SELECT"), p.isKw("FROM"):
		return p.selectCore()
	case p.isKw("VALUES"):
		return p.values()
	case p.isOp("("):
		p.i++
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		return q, p.expectOp(")")
	case p.isKw("WITH"):
		return p.query()
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
	for {
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		row, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		v.Rows = append(v.Rows, row)
		if !p.acceptOp(",") {
			return v, nil
		}
	}
}

func (p *parser) selectCore() (*Select, error) {
	s := &Select{Pos: p.pos()}
	fromFirst := false
	if p.isKw("FROM") { // DuckDB: FROM t [SELECT …]
		p.i++
		from, err := p.fromList()
		if err != nil {
			return nil, err
		}
		s.From = from
		fromFirst = true
		if !p.isKw("SELECT") {
			s.Items = []*SelectItem{{Star: true, Pos: s.Pos}}
		}
	}
	if p.acceptKw("SELECT") {
		if p.acceptKw("TOP") {
			if _, err := p.primary(); err != nil {
				return nil, err
			}
		}
		if p.acceptKw("DISTINCT") {
			s.Distinct = true
			if p.acceptKw("ON") {
				if err := p.expectOp("("); err != nil {
					return nil, err
				}
				on, err := p.exprList()
				if err != nil {
					return nil, err
				}
				s.DistinctOn = on
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
			}
		} else {
			p.acceptKw("ALL")
		}
		if p.isKw("AS") && (p.isKwAt(1, "STRUCT") || p.isKwAt(1, "VALUE")) { // BigQuery
			p.i += 2
		}
		items, err := p.selectItems()
		if err != nil {
			return nil, err
		}
		s.Items = items
	}
	if p.isKw("INTO") {
		return nil, p.errorf("SELECT … INTO is not a query")
	}
	if !fromFirst && p.acceptKw("FROM") {
		from, err := p.fromList()
		if err != nil {
			return nil, err
		}
		s.From = from
	}
	for {
		var err error
		switch {
		case s.Where == nil && p.acceptKw("WHERE"):
			s.Where, err = p.expr()
		case s.GroupBy == nil && !s.GroupByAll && p.isKw("GROUP") && p.isKwAt(1, "BY"):
			p.i += 2
			if p.acceptKw("ALL") {
				s.GroupByAll = true
			} else {
				s.GroupBy, err = p.groupItems()
			}
		case s.Having == nil && p.acceptKw("HAVING"):
			s.Having, err = p.expr()
		case s.Qualify == nil && p.acceptKw("QUALIFY"):
			s.Qualify, err = p.expr()
		case s.Windows == nil && p.acceptKw("WINDOW"):
			for {
				name, e := p.ident("a window name")
				if e != nil {
					return nil, e
				}
				if e := p.expectKw("AS"); e != nil {
					return nil, e
				}
				w, e := p.windowSpec()
				if e != nil {
					return nil, e
				}
				s.Windows = append(s.Windows, &NamedWindow{Name: name, Spec: w})
				if !p.acceptOp(",") {
					break
				}
			}
		default:
			return s, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) groupItems() ([]Expr, error) {
	var out []Expr
	for {
		var e Expr
		var err error
		switch {
		case p.isKw("ROLLUP") || p.isKw("CUBE"):
			pos := p.pos()
			name := p.advance()
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			args, err := p.exprList()
			if err != nil {
				return nil, err
			}
			e = &Func{Name: []Ident{{Name: strings.ToLower(name.text)}}, Args: args, Pos: pos}
			err = p.expectOp(")")
			if err != nil {
				return nil, err
			}
		case p.isKw("GROUPING") && p.isKwAt(1, "SETS"):
			pos := p.pos()
			p.i += 2
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if err := p.enter(); err != nil {
				return nil, err
			}
			args, err := p.groupItems()
			p.leave()
			if err != nil {
				return nil, err
			}
			e = &Func{Name: []Ident{{Name: "grouping sets"}}, Args: args, Pos: pos}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
		case p.isOp("(") && p.isOpAt(1, ")"):
			pos := p.pos()
			p.i += 2
			e = &Row{Pos: pos}
		default:
			e, err = p.expr()
			if err != nil {
				return nil, err
			}
		}
		out = append(out, e)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
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
	n := 0
	for {
		t := p.peek(n)
		if t.kind != tWord && t.kind != tQuoted {
			return false, 0
		}
		if !p.isOpAt(n+1, ".") {
			return false, 0
		}
		if p.isOpAt(n+2, "*") {
			return true, n/2 + 1
		}
		n += 2
	}
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
	alias, err := p.optAlias()
	if err != nil {
		return nil, err
	}
	it.Alias = alias
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
			return &Ident{Name: strings.ToLower(t.text), Quoted: true, Pos: Pos{t.line, t.col}}, nil
		}
		id, err := p.anyIdent("an alias")
		return &id, err
	}
	t := p.at()
	if t.kind == tQuoted || (t.kind == tWord && !reserved[t.up]) {
		id, err := p.anyIdent("an alias")
		return &id, err
	}
	return nil, nil
}

func (p *parser) starModifiers(it *SelectItem) error {
	for {
		switch {
		case p.isKw("EXCLUDE") || (p.isKw("EXCEPT") && p.isOpAt(1, "(")):
			p.i++
			if p.isOp("(") {
				ids, err := p.identList()
				if err != nil {
					return err
				}
				it.Exclude = append(it.Exclude, ids...)
			} else {
				id, err := p.anyIdent("a column name")
				if err != nil {
					return err
				}
				it.Exclude = append(it.Exclude, id)
			}
		case p.isKw("REPLACE") && p.isOpAt(1, "("):
			p.i += 2
			for {
				e, err := p.expr()
				if err != nil {
					return err
				}
				if err := p.expectKw("AS"); err != nil {
					return err
				}
				id, err := p.anyIdent("a column name")
				if err != nil {
					return err
				}
				it.Replace = append(it.Replace, &SelectItem{Expr: e, Alias: &id, Pos: id.Pos})
				if !p.acceptOp(",") {
					break
				}
			}
			if err := p.expectOp(")"); err != nil {
				return err
			}
		case p.isKw("RENAME"):
			p.i++
			paren := p.acceptOp("(")
			for {
				from, err := p.anyIdent("a column name")
				if err != nil {
					return err
				}
				if err := p.expectKw("AS"); err != nil {
					return err
				}
				to, err := p.anyIdent("a column name")
				if err != nil {
					return err
				}
				it.Rename = append(it.Rename, [2]Ident{from, to})
				if !paren || !p.acceptOp(",") {
					break
				}
			}
			if paren {
				if err := p.expectOp(")"); err != nil {
					return err
				}
			}
		case p.isKw("ILIKE") && p.peek(1).kind == tString:
			return p.errorf("SELECT * ILIKE is not supported")
		default:
			return nil
		}
	}
}

// ---- FROM ----

func (p *parser) fromList() ([]TableExpr, error) {
	var out []TableExpr
	for {
		t, err := p.fromItem()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
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
		if j.Kind != "CROSS" && j.Kind != "POSITIONAL" && !j.Natural {
			switch {
			case p.acceptKw("ON"):
				if j.On, err = p.expr(); err != nil {
					return nil, err
				}
			case p.isKw("USING"):
				p.i++
				if j.Using, err = p.identList(); err != nil {
					return nil, err
				}
			default:
				if !joinFree(j) {
					return nil, p.unexpected("ON or USING")
				}
			}
		}
		left = j
	}
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
	if p.acceptKw("NATURAL") {
		j.Natural = true
	}
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

func (p *parser) tableAlias() (*Alias, error) {
	t := p.at()
	explicit := p.acceptKw("AS")
	t = p.at()
	if !explicit && !(t.kind == tQuoted || (t.kind == tWord && !reserved[t.up] && !tableNoise[t.up])) {
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
		if a.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// tableNoise are words that may follow a FROM item and are not an alias.
var tableNoise = map[string]bool{"TABLESAMPLE": true, "SAMPLE": true, "AT": true, "BEFORE": true, "CHANGES": true, "FINAL": true}

func (p *parser) tablePrimary() (TableExpr, error) {
	pos := p.pos()
	lateral := p.acceptKw("LATERAL")
	switch {
	case p.isOp("("):
		// ( query ), ( VALUES … ), or a parenthesised join.
		if p.isKwAt(1, "SELECT") || p.isKwAt(1, "WITH") || p.isKwAt(1, "FROM") || p.isOpAt(1, "(") && p.parenQueryAhead() {
			p.i++
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			alias, err := p.tableAlias()
			if err != nil {
				return nil, err
			}
			return &DerivedTable{Query: q, Lateral: lateral, Alias: alias, Pos: pos}, nil
		}
		if p.isKwAt(1, "VALUES") {
			p.i++
			v, err := p.values()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			alias, err := p.tableAlias()
			if err != nil {
				return nil, err
			}
			return &ValuesTable{Values: v, Alias: alias, Pos: pos}, nil
		}
		p.i++
		inner, err := p.fromItem()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if alias, err := p.tableAlias(); err != nil {
			return nil, err
		} else if alias != nil {
			return nil, p.errorf("an alias on a parenthesised join is not supported")
		}
		return inner, nil
	case p.isKw("VALUES"):
		v, err := p.values()
		if err != nil {
			return nil, err
		}
		alias, err := p.tableAlias()
		if err != nil {
			return nil, err
		}
		return &ValuesTable{Values: v, Alias: alias, Pos: pos}, nil
	case p.isKw("TABLE") && p.isOpAt(1, "("): // Snowflake TABLE(FLATTEN(…))
		p.i += 2
		f, err := p.primary()
		if err != nil {
			return nil, err
		}
		fn, ok := f.(*Func)
		if !ok {
			return nil, p.errorf("TABLE(…) must wrap a function call")
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return p.tableFuncTail(fn, lateral, pos)
	}
	var name []Ident
	for {
		id, err := p.anyIdentOrKeywordName(len(name) == 0)
		if err != nil {
			return nil, err
		}
		name = append(name, id)
		if !p.acceptOp(".") {
			break
		}
	}
	if p.isOp("(") {
		fn, err := p.call(name, pos)
		if err != nil {
			return nil, err
		}
		return p.tableFuncTail(fn, lateral, pos)
	}
	if lateral {
		return nil, p.errorf("LATERAL must be followed by a subquery or a function")
	}
	t := &Table{Name: name, Pos: pos}
	if err := p.skipTableModifiers(); err != nil {
		return nil, err
	}
	alias, err := p.tableAlias()
	if err != nil {
		return nil, err
	}
	t.Alias = alias
	if err := p.skipTableModifiers(); err != nil {
		return nil, err
	}
	if p.isKw("USING") && p.isKwAt(1, "SAMPLE") { // DuckDB
		p.i += 2
		for !p.isOp(")") && !p.isOp(",") && !p.isOp(";") && p.at().kind != tEOF && !(p.at().kind == tWord && reserved[p.at().up]) {
			if p.isOp("(") {
				if err := p.skipParens(); err != nil {
					return nil, err
				}
				continue
			}
			p.i++
		}
	}
	return t, nil
}

// parenQueryAhead reports whether the "(" at the cursor opens a query
// wrapped in more parentheses: ((select …) union …).
func (p *parser) parenQueryAhead() bool {
	n := 0
	for p.isOpAt(n, "(") {
		n++
	}
	return p.isKwAt(n, "SELECT") || p.isKwAt(n, "WITH")
}

// anyIdentOrKeywordName reads a table name part; the first part must not be
// a reserved word.
func (p *parser) anyIdentOrKeywordName(first bool) (Ident, error) {
	if first {
		return p.ident("a table name")
	}
	return p.anyIdent("a table name")
}

// skipTableModifiers skips TABLESAMPLE/SAMPLE (…) clauses, which change no
// column.
func (p *parser) skipTableModifiers() error {
	for p.isKw("TABLESAMPLE") || (p.isKw("SAMPLE") && (p.isOpAt(1, "(") || p.peek(1).kind == tNumber)) {
		p.i++
		for p.at().kind == tWord && !p.isOp("(") && !reserved[p.at().up] {
			p.i++
		}
		if p.isOp("(") {
			if err := p.skipParens(); err != nil {
				return err
			}
		} else if p.at().kind == tNumber {
			p.i++
			p.acceptKw("ROWS")
			p.acceptOp("%")
		}
		if p.acceptKw("REPEATABLE") || p.acceptKw("SEED") {
			if err := p.skipParens(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *parser) skipParens() error {
	if err := p.expectOp("("); err != nil {
		return err
	}
	depth := 1
	for depth > 0 {
		t := p.advance()
		switch {
		case t.kind == tEOF:
			return p.unexpected(`")"`)
		case t.kind == tOp && t.text == "(":
			depth++
		case t.kind == tOp && t.text == ")":
			depth--
		}
	}
	return nil
}

func (p *parser) tableFuncTail(fn *Func, lateral bool, pos Pos) (TableExpr, error) {
	tf := &TableFunc{Func: fn, Lateral: lateral, Pos: pos}
	if p.isKw("WITH") && p.isKwAt(1, "ORDINALITY") {
		p.i += 2
		tf.WithOrdinality = true
	}
	alias, err := p.tableAlias()
	if err != nil {
		return nil, err
	}
	tf.Alias = alias
	if p.isKw("WITH") && p.isKwAt(1, "OFFSET") {
		p.i += 2
		p.acceptKw("AS")
		id, err := p.ident("an offset alias")
		if err != nil {
			id = Ident{Name: "offset"}
		}
		tf.WithOffset = &id
	}
	return tf, nil
}

// ---- ORDER BY, windows ----

func (p *parser) orderItems() ([]*OrderItem, error) {
	var out []*OrderItem
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		it := &OrderItem{Expr: e}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
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
		out = append(out, it)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) windowSpec() (*Window, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	w := &Window{}
	if t := p.at(); (t.kind == tWord && !reserved[t.up] && t.up != "PARTITION" && t.up != "ROWS" && t.up != "RANGE" && t.up != "GROUPS") || t.kind == tQuoted {
		id, _ := p.anyIdent("a window name")
		w.Ref = &id
	}
	if p.isKw("PARTITION") && p.isKwAt(1, "BY") {
		p.i += 2
		list, err := p.exprList()
		if err != nil {
			return nil, err
		}
		w.PartitionBy = list
	}
	if p.isKw("ORDER") && p.isKwAt(1, "BY") {
		p.i += 2
		items, err := p.orderItems()
		if err != nil {
			return nil, err
		}
		w.OrderBy = items
	}
	if p.isKw("ROWS") || p.isKw("RANGE") || p.isKw("GROUPS") {
		var parts []string
		parts = append(parts, p.advance().up)
		bound := func() error {
			switch {
			case p.acceptKw("UNBOUNDED"):
				parts = append(parts, "UNBOUNDED")
			case p.acceptKw("CURRENT"):
				if err := p.expectKw("ROW"); err != nil {
					return err
				}
				parts = append(parts, "CURRENT ROW")
				return nil
			default:
				e, err := p.additive()
				if err != nil {
					return err
				}
				w.FrameExprs = append(w.FrameExprs, e)
				parts = append(parts, "?")
			}
			switch {
			case p.acceptKw("PRECEDING"):
				parts = append(parts, "PRECEDING")
			case p.acceptKw("FOLLOWING"):
				parts = append(parts, "FOLLOWING")
			default:
				return p.unexpected("PRECEDING or FOLLOWING")
			}
			return nil
		}
		if p.acceptKw("BETWEEN") {
			parts = append(parts, "BETWEEN")
			if err := bound(); err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			parts = append(parts, "AND")
		}
		if err := bound(); err != nil {
			return nil, err
		}
		if p.acceptKw("EXCLUDE") {
			parts = append(parts, "EXCLUDE")
			for p.at().kind == tWord && !p.isOp(")") {
				parts = append(parts, p.advance().up)
			}
		}
		w.Frame = strings.Join(parts, " ")
	}
	return w, p.expectOp(")")
}

// ---- expressions ----

func (p *parser) exprList() ([]Expr, error) {
	var out []Expr
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.or()
}

func (p *parser) or() (Expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isKw("OR") {
		pos := p.pos()
		p.i++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "OR", L: l, R: r, Pos: pos}
	}
	return l, nil
}

func (p *parser) and() (Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.isKw("AND") {
		pos := p.pos()
		p.i++
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "AND", L: l, R: r, Pos: pos}
	}
	return l, nil
}

func (p *parser) not() (Expr, error) {
	if p.isKw("NOT") {
		pos := p.pos()
		p.i++
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: "NOT", X: x, Pos: pos}, nil
	}
	return p.is()
}

func (p *parser) is() (Expr, error) {
	l, err := p.comparison()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		switch {
		case p.acceptKw("ISNULL"):
			l = &Is{X: l, What: "NULL", Pos: pos}
		case p.acceptKw("NOTNULL"):
			l = &Is{X: l, Not: true, What: "NULL", Pos: pos}
		case p.acceptKw("IS"):
			is := &Is{X: l, Pos: pos}
			is.Not = p.acceptKw("NOT")
			switch {
			case p.acceptKw("NULL"):
				is.What = "NULL"
			case p.acceptKw("TRUE"):
				is.What = "TRUE"
			case p.acceptKw("FALSE"):
				is.What = "FALSE"
			case p.acceptKw("UNKNOWN"):
				is.What = "UNKNOWN"
			case p.acceptKw("DISTINCT"):
				if err := p.expectKw("FROM"); err != nil {
					return nil, err
				}
				is.What = "DISTINCT FROM"
				if is.DistinctFrom, err = p.comparison(); err != nil {
					return nil, err
				}
			default:
				return nil, p.unexpected("NULL, TRUE, FALSE or DISTINCT FROM")
			}
			l = is
		default:
			return l, nil
		}
	}
}

var comparisonOps = map[string]bool{"=": true, "==": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true, "<=>": true}

func (p *parser) comparison() (Expr, error) {
	l, err := p.predicate()
	if err != nil {
		return nil, err
	}
	for {
		t := p.at()
		if t.kind != tOp || !comparisonOps[t.text] {
			return l, nil
		}
		pos := p.pos()
		p.i++
		if (p.isKw("ANY") || p.isKw("ALL") || p.isKw("SOME")) && p.isOpAt(1, "(") {
			q := &Quantified{X: l, Op: t.text, Quant: p.advance().up, Pos: pos}
			p.i++ // (
			if p.isKw("SELECT") || p.isKw("WITH") {
				if q.Query, err = p.query(); err != nil {
					return nil, err
				}
			} else if q.Array, err = p.expr(); err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			l = q
			continue
		}
		r, err := p.predicate()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: t.text, L: l, R: r, Pos: pos}
	}
}

var likeOps = map[string]bool{"LIKE": true, "ILIKE": true, "RLIKE": true, "REGEXP": true, "GLOB": true, "SIMILAR": true}

func (p *parser) predicate() (Expr, error) {
	l, err := p.other()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		not := false
		if p.isKw("NOT") && (p.isKwAt(1, "BETWEEN") || p.isKwAt(1, "IN") || likeOps[p.peek(1).up] && p.peek(1).kind == tWord) {
			p.i++
			not = true
		}
		t := p.at()
		switch {
		case t.kind == tWord && t.up == "BETWEEN":
			p.i++
			p.acceptKw("SYMMETRIC")
			b := &Between{X: l, Not: not, Pos: pos}
			if b.Lo, err = p.other(); err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			if b.Hi, err = p.other(); err != nil {
				return nil, err
			}
			l = b
		case t.kind == tWord && t.up == "IN":
			p.i++
			in := &In{X: l, Not: not, Pos: pos}
			if !p.isOp("(") {
				// BigQuery IN UNNEST(array), DuckDB IN list_expr.
				e, err := p.other()
				if err != nil {
					return nil, err
				}
				in.List = []Expr{e}
				l = in
				continue
			}
			p.i++
			if p.isKw("SELECT") || p.isKw("WITH") || p.isKw("FROM") {
				if in.Query, err = p.query(); err != nil {
					return nil, err
				}
			} else if !p.isOp(")") {
				if in.List, err = p.exprList(); err != nil {
					return nil, err
				}
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			l = in
		case t.kind == tWord && likeOps[t.up]:
			p.i++
			op := t.up
			if op == "SIMILAR" {
				if err := p.expectKw("TO"); err != nil {
					return nil, err
				}
				op = "SIMILAR TO"
			}
			lk := &Like{X: l, Op: op, Not: not, Pos: pos}
			if (p.isKw("ANY") || p.isKw("ALL") || p.isKw("SOME")) && p.isOpAt(1, "(") {
				lk.Quantifier = p.advance().up
			}
			if lk.Pattern, err = p.other(); err != nil {
				return nil, err
			}
			if p.acceptKw("ESCAPE") {
				if lk.Escape, err = p.other(); err != nil {
					return nil, err
				}
			}
			l = lk
		default:
			if not {
				return nil, p.unexpected("BETWEEN, IN or LIKE")
			}
			return l, nil
		}
	}
}

var otherOps = map[string]bool{"||": true, "->": true, "->>": true, "#>": true, "#>>": true, "@>": true, "<@": true,
	"~": true, "!~": true, "~*": true, "!~*": true, "~~": true, "&&": true, "<<": true, ">>": true, "&": true, "|": true, "#": true, "^@": true}

func (p *parser) other() (Expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	for {
		t := p.at()
		if t.kind != tOp || !otherOps[t.text] {
			return l, nil
		}
		pos := p.pos()
		p.i++
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: t.text, L: l, R: r, Pos: pos}
	}
}

func (p *parser) additive() (Expr, error) {
	l, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		pos := p.pos()
		op := p.advance().text
		r, err := p.multiplicative()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r, Pos: pos}
	}
	return l, nil
}

func (p *parser) multiplicative() (Expr, error) {
	l, err := p.exponent()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") || p.isOp("//") || p.isKw("DIV") || p.isKw("MOD") {
		pos := p.pos()
		t := p.advance()
		op := t.text
		if t.kind == tWord {
			op = t.up
		}
		r, err := p.exponent()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r, Pos: pos}
	}
	return l, nil
}

func (p *parser) exponent() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("^") || p.isOp("**") {
		pos := p.pos()
		op := p.advance().text
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r, Pos: pos}
	}
	return l, nil
}

func (p *parser) unary() (Expr, error) {
	if p.isOp("-") || p.isOp("+") || p.isOp("~") || p.isOp("|/") {
		pos := p.pos()
		op := p.advance().text
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: op, X: x, Pos: pos}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		switch {
		case p.acceptOp("::"):
			ty, err := p.typeName()
			if err != nil {
				return nil, err
			}
			x = &Cast{X: x, Type: ty, Kind: "CAST", Pos: pos}
		case p.isOp("["):
			p.i++
			s := &Subscript{X: x, Pos: pos}
			if !p.isOp(":") {
				if s.Index, err = p.expr(); err != nil {
					return nil, err
				}
			}
			if p.acceptOp(":") {
				s.Slice = true
				if !p.isOp("]") {
					if s.Upper, err = p.expr(); err != nil {
						return nil, err
					}
				}
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			x = s
		case p.isOp(".") && (p.peek(1).kind == tWord || p.peek(1).kind == tQuoted):
			p.i++
			id, _ := p.anyIdent("a field name")
			x = &Field{X: x, Name: id.Name, Pos: pos}
		case p.d.colonPaths && p.isOp(":") && (p.peek(1).kind == tWord || p.peek(1).kind == tQuoted || p.peek(1).kind == tString):
			p.i++
			name := p.advance().text
			if name == "" {
				return nil, p.errorf("zero-length path key")
			}
			x = &Field{X: x, Name: strings.ToLower(name), Colon: true, Pos: pos}
		case p.isKw("COLLATE"):
			p.i++
			t := p.advance()
			if t.kind != tWord && t.kind != tQuoted && t.kind != tString {
				return nil, p.unexpected("a collation")
			}
			x = &Collate{X: x, Collation: t.text, Pos: pos}
		case p.isKw("AT") && p.isKwAt(1, "TIME") && p.isKwAt(2, "ZONE"):
			p.i += 3
			zone, err := p.unary()
			if err != nil {
				return nil, err
			}
			x = &AtTimeZone{X: x, Zone: zone, Pos: pos}
		default:
			return x, nil
		}
	}
}

// tokenSQL is a token as SQL text again, quoted as the printer quotes: a
// type's modifiers are kept as text, and a string or quoted name without its
// quotes would read back as something else.
func tokenSQL(t token) string {
	var b strings.Builder
	switch t.kind {
	case tString:
		writeString(&b, t.text)
	case tQuoted:
		writeQuoted(&b, t.text)
	default:
		return t.text
	}
	return b.String()
}

// typeName reads a type after :: or AS in a cast.
func (p *parser) typeName() (TypeName, error) {
	t := p.at()
	if t.kind != tWord && t.kind != tQuoted {
		return TypeName{}, p.unexpected("a type name")
	}
	// A type is kept as upper-case text, so a quoted name is taken only
	// when it reads the same unquoted ("int4"); any other is refused rather
	// than changed.
	if t.kind == tQuoted && !plainName(strings.ToLower(t.text)) {
		return TypeName{}, p.errorf("quoted type name %q is not supported", t.text)
	}
	var parts []string
	parts = append(parts, strings.ToUpper(p.advance().text))
	for p.acceptOp(".") { // pg_catalog.int4
		n, err := p.anyIdent("a type name")
		if err != nil {
			return TypeName{}, err
		}
		if n.Quoted && !plainName(strings.ToLower(n.Name)) {
			return TypeName{}, p.errorf("quoted type name %q is not supported", n.Name)
		}
		parts[len(parts)-1] += "." + strings.ToUpper(n.Name)
	}
	// Multi-word types.
	switch parts[0] {
	case "DOUBLE":
		if p.acceptKw("PRECISION") {
			parts = append(parts, "PRECISION")
		}
	case "CHARACTER", "CHAR", "NATIONAL", "BIT":
		if p.acceptKw("VARYING") {
			parts = append(parts, "VARYING")
		}
	case "TIMESTAMP", "TIME":
		if p.isKw("WITH") || p.isKw("WITHOUT") {
			if p.isKwAt(1, "TIME") && p.isKwAt(2, "ZONE") {
				parts = append(parts, p.advance().up, "TIME", "ZONE")
				p.i += 2
			}
		}
	case "INTERVAL":
		for p.at().kind == tWord && dateParts[strings.ToLower(p.at().text)] {
			parts = append(parts, p.advance().up)
		}
	}
	text := strings.Join(parts, " ")
	if syn, ok := typeSynonyms[text]; ok {
		text = syn
	}
	if p.isOp("(") {
		p.i++
		var args []string
		for !p.isOp(")") {
			t := p.advance()
			switch t.kind {
			case tEOF:
				return TypeName{}, p.unexpected(`")"`)
			case tWord:
				args = append(args, t.up)
			case tOp:
				if t.text != "," {
					args = append(args, t.text)
				} else {
					args = append(args, ",")
				}
			default:
				args = append(args, tokenSQL(t))
			}
		}
		p.i++
		text += "(" + strings.ReplaceAll(strings.Join(args, " "), " , ", ", ") + ")"
	}
	if p.isOp("<") { // BigQuery ARRAY<…>, STRUCT<…>
		depth := 0
		var b strings.Builder
		for {
			t := p.advance()
			if t.kind == tEOF {
				return TypeName{}, p.unexpected(`">"`)
			}
			if t.kind == tOp && t.text == "<" {
				depth++
			}
			if t.kind == tOp && (t.text == ">" || t.text == ">>") {
				depth -= len(t.text)
			}
			if b.Len() > 0 && t.text != ">" && t.text != "," && t.text != "<" && !strings.HasSuffix(b.String(), "<") {
				b.WriteByte(' ')
			}
			if t.kind == tWord {
				b.WriteString(t.up)
			} else {
				b.WriteString(tokenSQL(t))
			}
			if depth <= 0 {
				break
			}
		}
		text += b.String()
	}
	for p.isOp("[") && p.isOpAt(1, "]") {
		p.i += 2
		text += "[]"
	}
	return TypeName{Text: text}, nil
}

// typeSynonyms are type names that mean the same type in every dialect
// read, mapped to one spelling so that `x::int` and CAST(x AS INTEGER)
// print alike. FLOAT is left alone: it is 8 bytes in PostgreSQL and 4 in
// DuckDB.
var typeSynonyms = map[string]string{
	"INTEGER": "INT", "INT4": "INT", "INT8": "BIGINT", "INT2": "SMALLINT", "FLOAT8": "DOUBLE",
	"DOUBLE PRECISION": "DOUBLE", "BOOL": "BOOLEAN", "CHARACTER VARYING": "VARCHAR", "NUMERIC": "DECIMAL",
	"TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ",
	"TIME WITHOUT TIME ZONE": "TIME", "INT64": "BIGINT", "FLOAT64": "DOUBLE",
}

// dateParts are the unit words of INTERVAL and of date functions' first
// argument (DATEADD(day, …), DATE_TRUNC(month, …)).
var dateParts = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`year years yr yrs y yy yyy yyyy quarter quarters qtr qtrs q month months mon mons mm
		week weeks wk wks w isoweek day days d dd dayofweek dow dayofweekiso dayofyear doy hour hours h hh hr hrs
		minute minutes m mi min mins second seconds s sec secs ss millisecond milliseconds ms msec microsecond
		microseconds us usec nanosecond nanoseconds ns nsec epoch century centuries decade decades millennium
		millennia isoyear isodow yearofweek weekofyear weekday date time datetime timezone_hour timezone_minute`) {
		dateParts[w] = true
	}
}

// datePartFuncs take a bare unit word among their arguments.
var datePartFuncs = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`dateadd date_add datediff date_diff date_sub date_trunc datetrunc datetime_add
		datetime_sub datetime_diff datetime_trunc timestamp_add timestamp_sub timestamp_diff timestamp_trunc
		time_add time_sub time_diff time_trunc timestampadd timestampdiff timeadd timediff timestamp_bucket
		last_day date_part datepart date_bucket time_slice`) {
		datePartFuncs[w] = true
	}
}

var typedLiteralTypes = map[string]bool{"DATE": true, "TIME": true, "TIMESTAMP": true, "TIMESTAMPTZ": true, "TIMESTAMP_NTZ": true,
	"TIMESTAMP_LTZ": true, "TIMESTAMP_TZ": true, "DATETIME": true, "JSON": true, "NUMERIC": true, "DECIMAL": true, "BIGNUMERIC": true,
	"UUID": true, "BYTEA": true, "BLOB": true, "INET": true}

var specialNiladic = map[string]bool{"CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true, "LOCALTIME": true,
	"LOCALTIMESTAMP": true, "CURRENT_USER": true, "SESSION_USER": true, "CURRENT_ROLE": true, "CURRENT_SCHEMA": true,
	"CURRENT_CATALOG": true, "CURRENT_DATABASE": true, "SYSDATE": true, "SYSTIMESTAMP": true, "CURRENT_REGION": true,
	"CURRENT_ACCOUNT": true, "CURRENT_WAREHOUSE": true}

func (p *parser) primary() (Expr, error) {
	t := p.at()
	pos := Pos{t.line, t.col}
	switch t.kind {
	case tNumber:
		p.i++
		return &Literal{Kind: LitNumber, Text: t.text, Pos: pos}, nil
	case tString:
		p.i++
		s := &Literal{Kind: LitString, Text: t.text, Prefix: t.prefix, Pos: pos}
		for p.at().kind == tString { // 'a' 'b' is one string
			s.Text += p.advance().text
		}
		return s, nil
	case tParam:
		p.i++
		return &Param{Text: t.text, Pos: pos}, nil
	case tQuoted:
		return p.nameOrCall()
	case tOp:
		return p.primaryOp(t, pos)
	case tEOF:
		return nil, p.unexpected("an expression")
	}
	// tWord
	switch t.up {
	case "NULL":
		p.i++
		return &Literal{Kind: LitNull, Text: "NULL", Pos: pos}, nil
	case "TRUE", "FALSE":
		p.i++
		return &Literal{Kind: LitBool, Text: t.up, Pos: pos}, nil
	case "CASE":
		return p.caseExpr()
	case "CAST", "TRY_CAST", "SAFE_CAST":
		if p.isOpAt(1, "(") {
			p.i += 2
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expectKw("AS"); err != nil {
				return nil, err
			}
			ty, err := p.typeName()
			if err != nil {
				return nil, err
			}
			if p.acceptKw("FORMAT") { // BigQuery CAST(x AS STRING FORMAT 'YYYY')
				if _, err := p.primary(); err != nil {
					return nil, err
				}
			}
			return &Cast{X: x, Type: ty, Kind: t.up, Pos: pos}, p.expectOp(")")
		}
	case "EXISTS":
		if p.isOpAt(1, "(") {
			p.i += 2
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			return &Exists{Query: q, Pos: pos}, p.expectOp(")")
		}
	case "INTERVAL":
		return p.interval()
	case "ARRAY":
		if p.isOpAt(1, "[") {
			p.i++
			return p.primary()
		}
		if p.isOpAt(1, "(") && (p.isKwAt(2, "SELECT") || p.isKwAt(2, "WITH")) {
			p.i += 2
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			return &Array{Query: q, Pos: pos}, p.expectOp(")")
		}
	case "EXTRACT":
		if p.isOpAt(1, "(") {
			p.i += 2
			ft := p.advance()
			if ft.kind != tWord && ft.kind != tString {
				return nil, p.unexpected("a date part")
			}
			if err := p.expectKw("FROM"); err != nil {
				return nil, err
			}
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			return &Extract{Field: strings.ToUpper(ft.text), X: x, Pos: pos}, p.expectOp(")")
		}
	case "POSITION":
		if p.isOpAt(1, "(") {
			save := p.i
			p.i += 2
			a, err := p.other()
			if err == nil && p.acceptKw("IN") {
				b, err := p.expr()
				if err != nil {
					return nil, err
				}
				return &Func{Name: []Ident{{Name: "position"}}, Args: []Expr{a, b}, Pos: pos}, p.expectOp(")")
			}
			p.i = save
		}
	case "SUBSTRING", "SUBSTR":
		if p.isOpAt(1, "(") {
			save := p.i
			p.i += 2
			x, err := p.expr()
			if err == nil && (p.isKw("FROM") || p.isKw("FOR")) {
				args := []Expr{x}
				if p.acceptKw("FROM") {
					a, err := p.expr()
					if err != nil {
						return nil, err
					}
					args = append(args, a)
				}
				if p.acceptKw("FOR") {
					b, err := p.expr()
					if err != nil {
						return nil, err
					}
					args = append(args, b)
				}
				return &Func{Name: []Ident{{Name: "substring"}}, Args: args, Pos: pos}, p.expectOp(")")
			}
			p.i = save
		}
	case "TRIM":
		if p.isOpAt(1, "(") {
			save := p.i
			p.i += 2
			mode := ""
			if p.isKw("BOTH") || p.isKw("LEADING") || p.isKw("TRAILING") {
				mode = p.advance().up
			}
			var chars Expr
			if !p.isKw("FROM") {
				c, err := p.expr()
				if err != nil {
					p.i = save
					break
				}
				chars = c
			}
			if p.acceptKw("FROM") {
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				args := []Expr{x}
				if chars != nil {
					args = append(args, chars)
				}
				name := "trim"
				switch mode {
				case "LEADING":
					name = "ltrim"
				case "TRAILING":
					name = "rtrim"
				}
				return &Func{Name: []Ident{{Name: name}}, Args: args, Pos: pos}, p.expectOp(")")
			}
			p.i = save
		}
	case "ROW", "STRUCT":
		if p.isOpAt(1, "(") {
			p.i += 2
			r := &Row{Pos: pos}
			if !p.isOp(")") {
				for {
					e, err := p.expr()
					if err != nil {
						return nil, err
					}
					if _, err := p.optAlias(); err != nil { // STRUCT(x AS name)
						return nil, err
					}
					r.Elems = append(r.Elems, e)
					if !p.acceptOp(",") {
						break
					}
				}
			}
			return r, p.expectOp(")")
		}
	}
	if typedLiteralTypes[t.up] && p.peek(1).kind == tString {
		p.i += 2
		return &TypedLiteral{Type: t.up, Value: p.toks[p.i-1].text, Pos: pos}, nil
	}
	if specialNiladic[t.up] && !p.isOpAt(1, "(") {
		p.i++
		return &Special{Name: t.up, Pos: pos}, nil
	}
	if reserved[t.up] && !(p.isOpAt(1, "(") && (t.up == "LEFT" || t.up == "RIGHT" || t.up == "REPLACE" || t.up == "IF")) {
		return nil, p.unexpected("an expression")
	}
	return p.nameOrCall()
}

func (p *parser) primaryOp(t token, pos Pos) (Expr, error) {
	switch t.text {
	case "(":
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		if p.isKwAt(1, "SELECT") || p.isKwAt(1, "WITH") || (p.isOpAt(1, "(") && p.parenQueryAhead() && p.subqueryAhead()) {
			p.i++
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			return &Subquery{Query: q, Pos: pos}, p.expectOp(")")
		}
		if l, ok, err := p.lambdaAhead(); ok || err != nil {
			return l, err
		}
		p.i++
		list, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if len(list) == 1 {
			return &Paren{X: list[0], Pos: pos}, nil
		}
		return &Row{Elems: list, Pos: pos}, nil
	case "[":
		p.i++
		a := &Array{Pos: pos}
		if !p.isOp("]") {
			list, err := p.exprList()
			if err != nil {
				return nil, err
			}
			a.Elems = list
		}
		return a, p.expectOp("]")
	case "{":
		p.i++
		s := &Struct{Pos: pos}
		for !p.isOp("}") {
			k := p.advance()
			if k.kind != tString && k.kind != tWord && k.kind != tQuoted {
				return nil, p.unexpected("a struct key")
			}
			if err := p.expectOp(":"); err != nil {
				return nil, err
			}
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			s.Keys = append(s.Keys, strings.ToLower(k.text))
			s.Values = append(s.Values, v)
			if !p.acceptOp(",") {
				break
			}
		}
		return s, p.expectOp("}")
	case "*":
		p.i++
		return &Star{Pos: pos}, nil
	case ":":
		if w := p.peek(1); w.kind == tWord { // :name bind parameter
			p.i += 2
			return &Param{Text: ":" + w.text, Pos: pos}, nil
		}
	}
	return nil, p.unexpected("an expression")
}

// subqueryAhead: "((select …) union (select …))" — the first parenthesised
// query is followed by a set operator, so the whole is one subquery.
func (p *parser) subqueryAhead() bool {
	depth := 0
	for n := 1; ; n++ {
		t := p.peek(n)
		if t.kind == tEOF {
			return false
		}
		if t.kind == tOp && t.text == "(" {
			depth++
		}
		if t.kind == tOp && t.text == ")" {
			depth--
			if depth == 0 {
				nx := p.peek(n + 1)
				return nx.kind == tWord && (nx.up == "UNION" || nx.up == "EXCEPT" || nx.up == "INTERSECT" || nx.up == "MINUS" || nx.up == "ORDER" || nx.up == "LIMIT")
			}
		}
	}
}

// lambdaAhead reads (x, y) -> body at a "(".
func (p *parser) lambdaAhead() (Expr, bool, error) {
	if p.d != DuckDB && p.d != Snowflake && p.d != Generic {
		return nil, false, nil
	}
	n := 1
	for {
		t := p.peek(n)
		if t.kind != tWord && t.kind != tQuoted {
			return nil, false, nil
		}
		if p.isOpAt(n+1, ",") {
			n += 2
			continue
		}
		if !p.isOpAt(n+1, ")") || !p.isOpAt(n+2, "->") {
			return nil, false, nil
		}
		break
	}
	pos := p.pos()
	p.i++
	var params []Ident
	for !p.isOp(")") {
		id, _ := p.anyIdent("a parameter")
		params = append(params, id)
		p.acceptOp(",")
	}
	p.i += 2
	body, err := p.expr()
	if err != nil {
		return nil, true, err
	}
	return &Lambda{Params: params, Body: body, Pos: pos}, true, nil
}

func (p *parser) interval() (Expr, error) {
	pos := p.pos()
	p.i++ // INTERVAL
	iv := &Interval{Pos: pos}
	t := p.at()
	switch {
	case t.kind == tString || t.kind == tNumber || t.kind == tParam:
		p.i++
		if t.kind == tString {
			iv.Value = &Literal{Kind: LitString, Text: t.text, Pos: Pos{t.line, t.col}}
		} else if t.kind == tNumber {
			iv.Value = &Literal{Kind: LitNumber, Text: t.text, Pos: Pos{t.line, t.col}}
		} else {
			iv.Value = &Param{Text: t.text, Pos: Pos{t.line, t.col}}
		}
	case p.isOp("-") && p.peek(1).kind == tNumber:
		p.i += 2
		iv.Value = &Literal{Kind: LitNumber, Text: "-" + p.toks[p.i-1].text, Pos: Pos{t.line, t.col}}
	case p.isOp("("):
		p.i++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		iv.Value = e
	default:
		e, err := p.postfix() // INTERVAL x DAY with a column (BigQuery)
		if err != nil {
			return nil, err
		}
		iv.Value = e
	}
	if u := p.at(); u.kind == tWord && dateParts[strings.ToLower(u.text)] {
		p.i++
		iv.Unit = u.up
		if p.acceptKw("TO") {
			u2 := p.advance()
			iv.Unit += " TO " + u2.up
		}
	}
	return iv, nil
}

func (p *parser) caseExpr() (Expr, error) {
	c := &Case{Pos: p.pos()}
	p.i++ // CASE
	var err error
	if !p.isKw("WHEN") {
		if c.Operand, err = p.expr(); err != nil {
			return nil, err
		}
	}
	for p.acceptKw("WHEN") {
		var w When
		if w.Cond, err = p.expr(); err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		if w.Result, err = p.expr(); err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		return nil, p.unexpected("WHEN")
	}
	if p.acceptKw("ELSE") {
		if c.Else, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return c, p.expectKw("END")
}

// nameOrCall reads a (qualified) name: a column reference, a function call,
// or a lambda parameter `x -> body`.
func (p *parser) nameOrCall() (Expr, error) {
	pos := p.pos()
	first, err := p.anyIdent("a name")
	if err != nil {
		return nil, err
	}
	parts := []Ident{first}
	for p.isOp(".") {
		nt := p.peek(1)
		if nt.kind == tWord || nt.kind == tQuoted {
			p.i++
			id, _ := p.anyIdent("a name")
			parts = append(parts, id)
			continue
		}
		if nt.kind == tOp && nt.text == "*" { // count(t.*)
			p.i += 2
			return &Star{Pos: pos}, nil
		}
		break
	}
	if p.isOp("(") {
		return p.call(parts, pos)
	}
	if len(parts) == 1 && p.isOp("->") && (p.d == DuckDB || p.d == Snowflake) {
		if nt := p.peek(1); nt.kind != tString && nt.kind != tNumber {
			p.i++
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			body, err := p.expr()
			if err != nil {
				return nil, err
			}
			return &Lambda{Params: parts, Body: body, Pos: pos}, nil
		}
	}
	return &ColumnRef{Parts: parts, Pos: pos}, nil
}

// call reads the argument list and the trailing clauses of a function call.
func (p *parser) call(name []Ident, pos Pos) (*Func, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	f := &Func{Name: name, Pos: pos}
	p.i++ // (
	fname := name[len(name)-1].Name
	switch {
	case p.isOp("*") && p.isOpAt(1, ")"):
		p.i++
		f.Star = true
	case p.isOp(")"):
	default:
		if p.acceptKw("DISTINCT") {
			f.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		for {
			arg, err := p.callArg()
			if err != nil {
				return nil, err
			}
			if cr, ok := arg.(*ColumnRef); ok && len(cr.Parts) == 1 && !cr.Parts[0].Quoted && datePartFuncs[fname] && dateParts[cr.Parts[0].Name] {
				arg = &Literal{Kind: LitKeyword, Text: strings.ToUpper(cr.Parts[0].Name), Pos: cr.Pos}
			}
			f.Args = append(f.Args, arg)
			if p.acceptOp(",") {
				continue
			}
			if p.isKw("IGNORE") || p.isKw("RESPECT") {
				f.NullsMode = p.advance().up + " NULLS"
				if err := p.expectKw("NULLS"); err != nil {
					return nil, err
				}
			}
			if p.isKw("ORDER") && p.isKwAt(1, "BY") {
				p.i += 2
				items, err := p.orderItems()
				if err != nil {
					return nil, err
				}
				f.OrderBy = items
			}
			if p.acceptKw("LIMIT") {
				if _, err := p.expr(); err != nil {
					return nil, err
				}
			}
			if p.acceptKw("SEPARATOR") {
				if _, err := p.primary(); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.isKw("WITHIN") && p.isKwAt(1, "GROUP") {
		p.i += 2
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		if err := p.expectKw("ORDER"); err != nil {
			return nil, err
		}
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		items, err := p.orderItems()
		if err != nil {
			return nil, err
		}
		f.WithinGroup = items
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.isKw("FILTER") && p.isOpAt(1, "(") {
		p.i += 2
		if err := p.expectKw("WHERE"); err != nil {
			return nil, err
		}
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		f.Filter = cond
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.isKw("IGNORE") || p.isKw("RESPECT") {
		if p.isKwAt(1, "NULLS") {
			f.NullsMode = p.advance().up + " NULLS"
			p.i++
		}
	}
	if p.acceptKw("OVER") {
		if p.isOp("(") {
			w, err := p.windowSpec()
			if err != nil {
				return nil, err
			}
			f.Over = w
		} else {
			id, err := p.ident("a window name")
			if err != nil {
				return nil, err
			}
			f.Over = &Window{Ref: &id}
		}
	}
	return f, nil
}

func (p *parser) callArg() (Expr, error) {
	// name => value, name := value
	if t := p.at(); (t.kind == tWord || t.kind == tQuoted) && (p.isOpAt(1, "=>") || p.isOpAt(1, ":=")) {
		id, _ := p.anyIdent("an argument name")
		p.i++
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &NamedArg{Name: id, Value: v}, nil
	}
	if p.isKw("SEPARATOR") {
		return nil, p.unexpected("an argument")
	}
	return p.expr()
}

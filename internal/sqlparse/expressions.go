package sqlparse

import (
	"strconv"
	"strings"
)

// Expressions are read by precedence, loosest first: OR, AND, NOT, IS,
// comparison, BETWEEN/IN/LIKE, the other infix operators (||, JSON and
// bit operators), + -, * / % DIV MOD, ^ **, prefix - + ~, then postfix
// casts, subscripts and fields on a primary.

var (
	comparisonOps     = map[string]bool{"=": true, "==": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true, "<=>": true}
	likeOps           = map[string]bool{"LIKE": true, "ILIKE": true, "RLIKE": true, "REGEXP": true, "GLOB": true, "SIMILAR": true}
	additiveOps       = map[string]bool{"+": true, "-": true}
	multiplicativeOps = map[string]bool{"*": true, "/": true, "%": true, "//": true}
	exponentOps       = map[string]bool{"^": true, "**": true}
	prefixOps         = map[string]bool{"-": true, "+": true, "~": true, "|/": true}
	otherOps          = map[string]bool{"||": true, "->": true, "->>": true, "#>": true, "#>>": true, "@>": true, "<@": true,
		"~": true, "!~": true, "~*": true, "!~*": true, "~~": true, "&&": true, "<<": true, ">>": true, "&": true, "|": true, "#": true, "^@": true,
		"?": true, "?|": true, "?&": true}
)

func (p *parser) exprList() ([]Expr, error) { return list(p, p.expr) }

func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.or()
}

func (p *parser) or() (Expr, error)  { return p.binary(p.and, p.wordOp("OR")) }
func (p *parser) and() (Expr, error) { return p.binary(p.not, p.wordOp("AND")) }

func (p *parser) other() (Expr, error)    { return p.binary(p.additive, p.opIn(otherOps)) }
func (p *parser) additive() (Expr, error) { return p.binary(p.multiplicative, p.opIn(additiveOps)) }
func (p *parser) exponent() (Expr, error) { return p.binary(p.unary, p.opIn(exponentOps)) }

func (p *parser) multiplicative() (Expr, error) {
	return p.binary(p.exponent, func() (string, bool) {
		if p.percentSign() {
			return "", false
		}
		if op, ok := p.acceptOpIn(multiplicativeOps); ok {
			return op, true
		}
		if p.isAnyKw("DIV", "MOD") {
			return p.advance().up, true
		}
		return "", false
	})
}

// percentSign reports whether the % ahead ends a LIMIT n% (DuckDB) rather
// than being a modulo: no operand follows it.
func (p *parser) percentSign() bool {
	if !p.d.percentLimits || !p.isOp("%") {
		return false
	}
	return p.peek(1).kind == tEOF || p.isOpAt(1, ")") || p.isOpAt(1, ";") || p.isKwAt(1, "OFFSET")
}

// binary reads operands joined left-associatively by the operators op
// takes.
func (p *parser) binary(operand func() (Expr, error), op func() (string, bool)) (Expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		o, ok := op()
		if !ok {
			return l, nil
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: o, L: l, R: r, Pos: pos}
	}
}

// wordOp takes the keyword operator kw.
func (p *parser) wordOp(kw string) func() (string, bool) {
	return func() (string, bool) { return kw, p.acceptKw(kw) }
}

// opIn takes an operator of ops.
func (p *parser) opIn(ops map[string]bool) func() (string, bool) {
	return func() (string, bool) { return p.acceptOpIn(ops) }
}

func (p *parser) not() (Expr, error) {
	if p.isKw("NOT") {
		return p.prefix(p.not)
	}
	return p.is()
}

func (p *parser) unary() (Expr, error) {
	if t := p.at(); t.kind == tOp && prefixOps[t.text] || p.hierarchyOp() {
		return p.prefix(p.unary)
	}
	return p.postfix()
}

// hierarchyOp reports whether a hierarchy's prefix operator is at the
// cursor: PRIOR in a CONNECT BY condition, CONNECT_BY_ROOT anywhere
// (Snowflake), each before a name or a parenthesis.
func (p *parser) hierarchyOp() bool {
	t := p.at()
	if !p.d.connectBy || t.kind != tWord || !(t.up == "PRIOR" && p.inConnectBy || t.up == "CONNECT_BY_ROOT") {
		return false
	}
	next := p.peek(1)
	return nameToken(next) || next.kind == tOp && next.text == "("
}

// prefix reads a prefix operator and its operand, one level deeper.
func (p *parser) prefix(operand func() (Expr, error)) (Expr, error) {
	pos := p.pos()
	t := p.advance()
	op := t.text
	if t.kind == tWord {
		op = t.up
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := operand()
	if err != nil {
		return nil, err
	}
	return &Unary{Op: op, X: x, Pos: pos}, nil
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
			if l, err = p.isTest(l, pos); err != nil {
				return nil, err
			}
		default:
			return l, nil
		}
	}
}

// isTest reads what follows IS: [NOT] NULL, TRUE, FALSE, UNKNOWN or
// DISTINCT FROM y.
func (p *parser) isTest(x Expr, pos Pos) (Expr, error) {
	is := &Is{X: x, Not: p.acceptKw("NOT"), Pos: pos}
	for _, what := range []string{"NULL", "TRUE", "FALSE", "UNKNOWN"} {
		if p.acceptKw(what) {
			is.What = what
			return is, nil
		}
	}
	if !p.acceptKw("DISTINCT") {
		return nil, p.unexpected("NULL, TRUE, FALSE or DISTINCT FROM")
	}
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	is.What = "DISTINCT FROM"
	var err error
	if is.DistinctFrom, err = p.comparison(); err != nil {
		return nil, err
	}
	return is, nil
}

func (p *parser) comparison() (Expr, error) {
	l, err := p.predicate()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.pos()
		op, ok := p.acceptOpIn(comparisonOps)
		if !ok {
			return l, nil
		}
		if p.quantifierAhead() {
			l, err = p.quantified(l, op, pos)
		} else {
			var r Expr
			r, err = p.predicate()
			l = &Binary{Op: op, L: l, R: r, Pos: pos}
		}
		if err != nil {
			return nil, err
		}
	}
}

// quantifierAhead reports whether ANY, ALL or SOME and "(" are next.
func (p *parser) quantifierAhead() bool {
	return p.isAnyKw("ANY", "ALL", "SOME") && p.isOpAt(1, "(")
}

// quantified reads ANY|ALL|SOME (subquery or array) after x op.
func (p *parser) quantified(x Expr, op string, pos Pos) (Expr, error) {
	q := &Quantified{X: x, Op: op, Quant: p.advance().up, Pos: pos}
	p.i++ // (
	var err error
	if p.subqueryAt(0) {
		q.Query, err = p.query()
	} else {
		q.Array, err = p.expr()
	}
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return q, nil
}

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
		case p.acceptKw("BETWEEN"):
			l, err = p.between(l, not, pos)
		case p.acceptKw("IN"):
			l, err = p.in(l, not, pos)
		case t.kind == tWord && likeOps[t.up]:
			p.i++
			l, err = p.like(l, t.up, not, pos)
		case not:
			return nil, p.unexpected("BETWEEN, IN or LIKE")
		default:
			return l, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) between(x Expr, not bool, pos Pos) (Expr, error) {
	b := &Between{X: x, Not: not, Symmetric: p.acceptKw("SYMMETRIC"), Pos: pos}
	var err error
	if b.Lo, err = p.other(); err != nil {
		return nil, err
	}
	if err := p.expectKw("AND"); err != nil {
		return nil, err
	}
	if b.Hi, err = p.other(); err != nil {
		return nil, err
	}
	return b, nil
}

func (p *parser) in(x Expr, not bool, pos Pos) (Expr, error) {
	in := &In{X: x, Not: not, Pos: pos}
	var err error
	if !p.acceptOp("(") {
		// BigQuery IN UNNEST(array), DuckDB IN list_expr.
		e, err := p.other()
		if err != nil {
			return nil, err
		}
		in.List = []Expr{e}
		return in, nil
	}
	switch {
	case p.subqueryAt(0) || p.isKw("FROM"):
		in.Query, err = p.query()
	case !p.isOp(")"):
		in.List, err = p.exprList()
	}
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return in, nil
}

// like reads the pattern of LIKE, ILIKE, SIMILAR TO, RLIKE, REGEXP or GLOB
// (op, taken), optionally quantified, and its ESCAPE.
func (p *parser) like(x Expr, op string, not bool, pos Pos) (Expr, error) {
	if op == "SIMILAR" {
		if err := p.expectKw("TO"); err != nil {
			return nil, err
		}
		op = "SIMILAR TO"
	}
	lk := &Like{X: x, Op: op, Not: not, Pos: pos}
	if p.quantifierAhead() {
		lk.Quantifier = p.advance().up
	}
	var err error
	if lk.Pattern, err = p.other(); err != nil {
		return nil, err
	}
	if p.acceptKw("ESCAPE") {
		if lk.Escape, err = p.other(); err != nil {
			return nil, err
		}
	}
	return lk, nil
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
			var ty TypeName
			ty, err = p.typeName()
			x = &Cast{X: x, Type: ty, Kind: "CAST", Pos: pos}
		case p.acceptOp("["):
			x, err = p.subscript(x, pos)
		case p.isOp(".") && identToken(p.peek(1)):
			p.i++
			id, _ := p.anyIdent("a field name")
			x = &Field{X: x, Name: id.Name, Pos: pos}
		case p.d.colonPaths && p.isOp(":") && (identToken(p.peek(1)) || p.peek(1).kind == tString || p.isOpAt(1, "[") && p.peek(2).kind == tString):
			x, err = p.colonPath(x, pos)
		case p.acceptKw("COLLATE"):
			t := p.advance()
			if t.kind != tWord && t.kind != tQuoted && t.kind != tString {
				return nil, p.unexpected("a collation")
			}
			x = &Collate{X: x, Collation: tokenSQL(t), Pos: pos}
		case p.acceptKws("AT", "TIME", "ZONE"):
			var zone Expr
			zone, err = p.unary()
			x = &AtTimeZone{X: x, Zone: zone, Pos: pos}
		default:
			return x, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// subscript reads what follows x[: an index, or a slice lo:hi.
func (p *parser) subscript(x Expr, pos Pos) (Expr, error) {
	s := &Subscript{X: x, Pos: pos}
	var err error
	switch {
	case p.isKw("OFFSET") && p.isOpAt(1, "("):
		// BigQuery's a[OFFSET(0)], a call where OFFSET is otherwise a
		// clause's keyword.
		if s.Index, err = p.nameOrCall(); err != nil {
			return nil, err
		}
	case !p.isOp(":"):
		if s.Index, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if s.Slice = p.acceptOp(":"); s.Slice && !p.isOp("]") {
		if s.Upper, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp("]"); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) primary() (Expr, error) {
	t := p.at()
	pos := t.pos()
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
	return p.primaryWord(t, pos)
}

// primaryWord reads an expression that starts with a word: a keyword
// literal or form, a typed literal, a niladic function, a name or a call.
func (p *parser) primaryWord(t token, pos Pos) (Expr, error) {
	switch t.up {
	case "NULL":
		p.i++
		return &Literal{Kind: LitNull, Text: "NULL", Pos: pos}, nil
	case "TRUE", "FALSE":
		p.i++
		return &Literal{Kind: LitBool, Text: t.up, Pos: pos}, nil
	case "CASE":
		return p.caseExpr()
	case "INTERVAL":
		return p.interval()
	case "ARRAY":
		if p.isOpAt(1, "[") {
			p.i++
			return p.primary()
		}
		if p.isOpAt(1, "<") {
			return p.typedConstructor(t.up, pos)
		}
	case "STRUCT":
		if p.isOpAt(1, "<") {
			return p.typedConstructor(t.up, pos)
		}
	case "MAP":
		if p.isOpAt(1, "{") {
			p.i++
			return p.mapLiteral(pos)
		}
	case "ANY":
		// Where an expression starts, ANY ( … ) is Databricks' aggregate
		// (bool_or); after a comparison it is a quantifier (quantified).
		if p.isOpAt(1, "(") {
			p.i++
			f, err := p.call([]Ident{{Name: "any", Pos: pos}}, pos)
			if err != nil {
				return nil, err
			}
			return f, nil
		}
	case "APPROXIMATE":
		// Redshift's APPROXIMATE COUNT(DISTINCT x), a count of its own:
		// read as the call approximate_count(DISTINCT x).
		if p.isKwAt(1, "COUNT") && p.isOpAt(2, "(") {
			p.i++
			e, err := p.nameOrCall()
			if f, ok := e.(*Func); ok && err == nil {
				f.Name = []Ident{{Name: "approximate_count"}}
				f.Pos = pos
			}
			return e, err
		}
	}
	if p.isOpAt(1, "(") {
		if e, ok, err := p.specialForm(t, pos); ok || err != nil {
			return e, err
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
	if reserved[t.up] && !(p.isOpAt(1, "(") && reservedCalls[t.up]) {
		return nil, p.unexpected("an expression")
	}
	return p.nameOrCall()
}

// reservedCalls are the reserved words that are also functions: followed
// by "(" where an expression starts, they are calls (Snowflake's
// RLIKE(s, pattern) and COLLATE(s, spec)).
var reservedCalls = map[string]bool{"LEFT": true, "RIGHT": true, "REPLACE": true, "IF": true, "RLIKE": true, "COLLATE": true}

// typedConstructor reads BigQuery's ARRAY<T>[…] and STRUCT<T>(…), a value
// of the type written, as the cast of the untyped value to that type.
// Read as anything else, ARRAY<INT64>[1] would be two comparisons of
// columns named ARRAY and INT64.
func (p *parser) typedConstructor(kind string, pos Pos) (Expr, error) {
	p.i++ // ARRAY or STRUCT
	params, err := p.typeParameters()
	if err != nil {
		return nil, err
	}
	var x Expr
	switch {
	case kind == "ARRAY" && p.isOp("["):
		x, err = p.primary()
	case kind == "STRUCT" && p.isOp("("):
		at := p.pos()
		p.i++
		x, err = p.row(at)
	case kind == "ARRAY":
		return nil, p.unexpected(`"["`)
	default:
		return nil, p.unexpected(`"("`)
	}
	if err != nil {
		return nil, err
	}
	return &Cast{X: x, Type: TypeName{Text: kind + params}, Kind: "CAST", Pos: pos}, nil
}

// specialForm reads the forms that look like calls but have a grammar of
// their own: CAST(x AS t), EXISTS(q), ARRAY(q), EXTRACT(f FROM x),
// POSITION(a IN b), SUBSTRING(x FROM a FOR b), TRIM(… FROM x), ROW(…) and
// STRUCT(…). ok is false when the word at the cursor opens none of them,
// and then nothing is read.
func (p *parser) specialForm(t token, pos Pos) (e Expr, ok bool, err error) {
	switch t.up {
	case "CAST", "TRY_CAST", "SAFE_CAST":
		p.i += 2
		e, err = p.cast(t.up, pos)
	case "EXISTS":
		p.i++
		var q *Query
		if q, err = inParens(p, p.query); err == nil {
			e = &Exists{Query: q, Pos: pos}
		}
	case "ARRAY":
		if !p.queryAt(2) {
			return nil, false, nil
		}
		p.i++
		var q *Query
		if q, err = inParens(p, p.query); err == nil {
			e = &Array{Query: q, Pos: pos}
		}
	case "EXTRACT":
		p.i += 2
		e, err = p.extract(pos)
	case "POSITION", "SUBSTRING", "SUBSTR", "TRIM", "OVERLAY":
		return p.backtracking(t.up, pos)
	case "ROW", "STRUCT":
		p.i += 2
		e, err = p.row(pos)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return e, true, nil
}

// cast reads CAST(x AS t [FORMAT f [AT TIME ZONE z]]) after "CAST(".
func (p *parser) cast(kind string, pos Pos) (Expr, error) {
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
	c := &Cast{X: x, Type: ty, Kind: kind, Pos: pos}
	if p.acceptKw("FORMAT") { // BigQuery CAST(x AS STRING FORMAT 'YYYY')
		if c.Format, err = p.primary(); err != nil {
			return nil, err
		}
		if p.acceptKws("AT", "TIME", "ZONE") {
			if c.Zone, err = p.primary(); err != nil {
				return nil, err
			}
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return c, nil
}

// extract reads EXTRACT(field FROM x) after "EXTRACT(".
func (p *parser) extract(pos Pos) (Expr, error) {
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
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return &Extract{Field: strings.ToUpper(ft.text), X: x, Pos: pos}, nil
}

// backtracking reads POSITION(a IN b), SUBSTRING(x FROM a FOR b),
// TRIM([mode] [chars] FROM x), TRIM(mode x [, chars]) or
// OVERLAY(x PLACING y FROM s [FOR n]) as the function calls they mean.
// Each is also an ordinary call (position(a, b)): when the keyword form
// does not follow, the cursor goes back and ok is false.
func (p *parser) backtracking(word string, pos Pos) (e Expr, ok bool, err error) {
	save := p.i
	p.i += 2
	var name string
	var args []Expr
	switch word {
	case "POSITION":
		name, args, ok, err = p.positionArgs()
	case "SUBSTRING", "SUBSTR":
		name, args, ok, err = p.substringArgs()
	case "TRIM":
		name, args, ok, err = p.trimArgs()
	case "OVERLAY":
		name, args, ok, err = p.overlayArgs()
	}
	if err != nil {
		return nil, true, err
	}
	if !ok {
		p.i = save
		return nil, false, nil
	}
	if err := p.expectOp(")"); err != nil {
		return nil, true, err
	}
	return &Func{Name: []Ident{{Name: name}}, Args: args, Pos: pos}, true, nil
}

func (p *parser) positionArgs() (string, []Expr, bool, error) {
	a, err := p.other()
	if err != nil || !p.acceptKw("IN") {
		return "", nil, false, nil
	}
	b, err := p.expr()
	if err != nil {
		return "", nil, true, err
	}
	return "position", []Expr{a, b}, true, nil
}

// overlayArgs reads OVERLAY(x PLACING y FROM start [FOR n]) as
// overlay(x, y, start [, n]).
func (p *parser) overlayArgs() (string, []Expr, bool, error) {
	x, err := p.expr()
	if err != nil || !p.acceptKw("PLACING") {
		return "", nil, false, nil
	}
	y, err := p.expr()
	if err != nil {
		return "", nil, true, err
	}
	if !p.acceptKw("FROM") {
		return "", nil, true, p.unexpected("FROM")
	}
	start, err := p.expr()
	if err != nil {
		return "", nil, true, err
	}
	args := []Expr{x, y, start}
	if p.acceptKw("FOR") {
		n, err := p.expr()
		if err != nil {
			return "", nil, true, err
		}
		args = append(args, n)
	}
	return "overlay", args, true, nil
}

func (p *parser) substringArgs() (string, []Expr, bool, error) {
	x, err := p.expr()
	if err != nil || !p.isAnyKw("FROM", "FOR") {
		return "", nil, false, nil
	}
	args := []Expr{x}
	for _, kw := range []string{"FROM", "FOR"} {
		if p.acceptKw(kw) {
			a, err := p.expr()
			if err != nil {
				return "", nil, true, err
			}
			args = append(args, a)
		}
	}
	return "substring", args, true, nil
}

func (p *parser) trimArgs() (string, []Expr, bool, error) {
	name := "trim"
	mode := p.isAnyKw("BOTH", "LEADING", "TRAILING")
	if mode {
		switch p.advance().up {
		case "LEADING":
			name = "ltrim"
		case "TRAILING":
			name = "rtrim"
		}
	}
	var chars Expr
	if !p.isKw("FROM") {
		c, err := p.expr()
		if err != nil {
			return "", nil, false, nil
		}
		chars = c
	}
	if !p.acceptKw("FROM") {
		if !mode || chars == nil {
			return "", nil, false, nil
		}
		// PostgreSQL's other form, TRIM(BOTH x [, chars]): what came
		// first is the string.
		args := []Expr{chars}
		if p.acceptOp(",") {
			c, err := p.expr()
			if err != nil {
				return "", nil, true, err
			}
			args = append(args, c)
		}
		return name, args, true, nil
	}
	x, err := p.expr()
	if err != nil {
		return "", nil, true, err
	}
	args := []Expr{x}
	if chars != nil {
		args = append(args, chars)
	}
	return name, args, true, nil
}

// row reads ROW(…) or STRUCT(…) after the "(": expressions, each with an
// optional alias (STRUCT(x AS name)).
func (p *parser) row(pos Pos) (Expr, error) {
	r := &Row{Pos: pos}
	if !p.isOp(")") {
		var names []*Ident
		named := false
		elems, err := list(p, func() (Expr, error) {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			name, err := p.optAlias()
			names = append(names, name)
			named = named || name != nil
			return e, err
		})
		if err != nil {
			return nil, err
		}
		r.Elems = elems
		if named {
			r.Names = names
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return r, nil
}

func (p *parser) primaryOp(t token, pos Pos) (Expr, error) {
	switch t.text {
	case "(":
		return p.parenExpr(pos)
	case "[":
		p.i++
		a := &Array{Pos: pos}
		if !p.isOp("]") {
			first, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.d.columnsExprs && p.isKw("FOR") {
				return p.listComprehension(first, pos)
			}
			a.Elems = []Expr{first}
			if p.acceptOp(",") {
				rest, err := p.exprList()
				if err != nil {
					return nil, err
				}
				a.Elems = append(a.Elems, rest...)
			}
		}
		if err := p.expectOp("]"); err != nil {
			return nil, err
		}
		return a, nil
	case "{":
		return p.structLiteral(pos)
	case "*":
		p.i++
		return &Star{Pos: pos}, nil
	case ":":
		if w := p.peek(1); w.kind == tWord { // :name bind parameter
			p.i += 2
			return &Param{Text: ":" + w.text, Pos: pos}, nil
		}
	case "#":
		// DuckDB's #n, the n-th column of the FROM items (# 1 too).
		if n := p.peek(1); p.d.positionalPrefix == '#' && n.kind == tNumber && wholeNumber(n.text) {
			p.i += 2
			return &Param{Text: "#" + n.text, Pos: pos}, nil
		}
	}
	return nil, p.unexpected("an expression")
}

// parenExpr reads what starts with "(": a scalar subquery, a lambda, a
// parenthesised expression or a row.
func (p *parser) parenExpr(pos Pos) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.subqueryAt(1) || (p.isOpAt(1, "(") && p.parenQueryAhead() && p.subqueryAhead()) {
		q, err := inParens(p, p.query)
		if err != nil {
			return nil, err
		}
		return &Subquery{Query: q, Pos: pos}, nil
	}
	if l, ok, err := p.lambdaAhead(); ok || err != nil {
		return l, err
	}
	elems, err := inParens(p, p.exprList)
	if err != nil {
		return nil, err
	}
	if len(elems) == 1 {
		return &Paren{X: elems[0], Pos: pos}, nil
	}
	return &Row{Elems: elems, Pos: pos}, nil
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
	if err := p.expectKw("END"); err != nil {
		return nil, err
	}
	return c, nil
}

// nameOrCall reads a (qualified) name: a column reference, a function call,
// or a lambda parameter `x -> body`.
func (p *parser) nameOrCall() (Expr, error) {
	pos := p.pos()
	if p.d.columnsExprs && p.isKw("LAMBDA") && identToken(p.peek(1)) && (p.isOpAt(2, ":") || p.isOpAt(2, ",")) {
		return p.lambdaKeyword(pos)
	}
	first, err := p.anyIdent("a name")
	if err != nil {
		return nil, err
	}
	parts := []Ident{first}
	for p.isOp(".") {
		if nt := p.peek(1); identToken(nt) {
			p.i++
			id, _ := p.anyIdent("a name")
			parts = append(parts, id)
			continue
		}
		if p.isOpAt(1, "*") { // count(t.*), object_construct(t.*)
			p.i += 2
			return &Star{Qualifier: parts, Pos: pos}, nil
		}
		break
	}
	if p.isOp("(") {
		if p.d.columnsExprs && len(parts) == 1 && !parts[0].Quoted && parts[0].Name == "columns" {
			return p.columns(pos)
		}
		return p.call(parts, pos)
	}
	if len(parts) == 1 && p.isOp("->") && p.d.lambdas {
		if !jsonArrowTo(p.peek(1)) {
			p.i++ // ->
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			return p.lambda(parts, pos)
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
	switch {
	case p.isOp("*") && p.isOpAt(1, ")"):
		p.i++
		f.Star = true
	case p.isOp(")"):
	default:
		if err := p.callArgs(f); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if err := p.callTail(f); err != nil {
		return nil, err
	}
	return f, nil
}

// callArgs reads [DISTINCT|ALL] args [IGNORE|RESPECT NULLS] [ORDER BY …]
// [LIMIT n] [SEPARATOR s] inside a call's parentheses.
func (p *parser) callArgs(f *Func) error {
	if f.Distinct = p.acceptKw("DISTINCT"); !f.Distinct {
		p.acceptKw("ALL")
	}
	args, err := list(p, p.callArg)
	if err != nil {
		return err
	}
	fname := f.Name[len(f.Name)-1].Name
	for i, a := range args {
		args[i] = datePartArg(fname, a)
	}
	f.Args = args
	if p.isAnyKw("IGNORE", "RESPECT") {
		f.NullsMode = p.advance().up + " NULLS"
		if err := p.expectKw("NULLS"); err != nil {
			return err
		}
	}
	if p.acceptKws("ORDER", "BY") {
		if f.OrderBy, err = p.orderItems(); err != nil {
			return err
		}
	}
	if p.acceptKw("LIMIT") {
		if f.Limit, err = p.expr(); err != nil {
			return err
		}
	}
	if p.acceptKw("SEPARATOR") {
		if f.Separator, err = p.primary(); err != nil {
			return err
		}
	}
	return nil
}

// callTail reads what may follow a call's parentheses: WITHIN GROUP
// (ORDER BY …), FILTER (WHERE …), IGNORE|RESPECT NULLS, OVER.
func (p *parser) callTail(f *Func) error {
	var err error
	if p.acceptKws("WITHIN", "GROUP") {
		f.WithinGroup, err = inParens(p, func() ([]*OrderItem, error) {
			if err := p.expectKw("ORDER", "BY"); err != nil {
				return nil, err
			}
			return p.orderItems()
		})
		if err != nil {
			return err
		}
	}
	if p.isKw("FILTER") && p.isOpAt(1, "(") {
		p.i++
		f.Filter, err = inParens(p, func() (Expr, error) {
			if !p.acceptKw("WHERE") && !p.d.bareFilter {
				return nil, p.unexpected("WHERE")
			}
			return p.expr()
		})
		if err != nil {
			return err
		}
	}
	if p.isAnyKw("IGNORE", "RESPECT") && p.isKwAt(1, "NULLS") {
		f.NullsMode = p.advance().up + " NULLS"
		p.i++
	}
	if !p.acceptKw("OVER") {
		return nil
	}
	if p.isOp("(") {
		f.Over, err = p.windowSpec()
		return err
	}
	id, err := p.ident("a window name")
	if err != nil {
		return err
	}
	f.Over = &Window{Ref: &id}
	return nil
}

func (p *parser) callArg() (Expr, error) {
	// name => value, name := value
	if identToken(p.at()) && (p.isOpAt(1, "=>") || p.isOpAt(1, ":=")) {
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

// wholeNumber reports whether s is a whole number written in digits
// alone (not 1.5, 1e3, 0x1F or 1_000).
func wholeNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

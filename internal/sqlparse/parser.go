package sqlparse

import (
	"fmt"
	"strings"
)

// The parser is split by what it reads: this file holds the cursor over
// the tokens and the few combinators every rule uses (a comma list,
// something in parentheses, a keyword sequence); statements.go reads
// queries, set operations, SELECT and FROM; expressions.go the operators,
// calls and CASE; literals.go types, literals and intervals; extensions.go
// the dialects' additions to standard SQL.

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
	// inConnectBy is set while a CONNECT BY condition is read, where
	// PRIOR is an operator.
	inConnectBy bool
}

func (p *parser) at() token { return p.toks[p.i] }

func (p *parser) peek(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) pos() Pos { return p.at().pos() }

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
	return &Error{Pos: Pos{Line: t.line, Column: t.col}, Msg: fmt.Sprintf(format, args...)}
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

func (p *parser) isKw(kw string) bool { return p.isKwAt(0, kw) }

func (p *parser) isKwAt(n int, kw string) bool {
	t := p.peek(n)
	return t.kind == tWord && t.up == kw
}

// isAnyKw reports whether the word at the cursor is one of kws.
func (p *parser) isAnyKw(kws ...string) bool {
	t := p.at()
	if t.kind != tWord {
		return false
	}
	for _, kw := range kws {
		if t.up == kw {
			return true
		}
	}
	return false
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

// acceptKws takes the keywords kws if they are next, all of them or none.
func (p *parser) acceptKws(kws ...string) bool {
	for n, kw := range kws {
		if !p.isKwAt(n, kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

// expectKw takes each of kws in turn, or fails at the first missing one.
func (p *parser) expectKw(kws ...string) error {
	for _, kw := range kws {
		if !p.acceptKw(kw) {
			return p.unexpected(kw)
		}
	}
	return nil
}

func (p *parser) isOp(op string) bool { return p.isOpAt(0, op) }

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

// acceptOpIn takes the operator at the cursor when it is one of ops.
func (p *parser) acceptOpIn(ops map[string]bool) (string, bool) {
	if t := p.at(); t.kind == tOp && ops[t.text] {
		p.i++
		return t.text, true
	}
	return "", false
}

// queryAt reports whether a query starts n tokens ahead (SELECT, WITH, and
// in DuckDB a PIVOT or UNPIVOT statement; the DuckDB FROM-first form is
// allowed only where the caller says so).
func (p *parser) queryAt(n int) bool {
	return p.isKwAt(n, "SELECT") || p.isKwAt(n, "WITH") ||
		p.d.pivotStatements && (p.isKwAt(n, "PIVOT") || p.isKwAt(n, "UNPIVOT") || p.isKwAt(n, "PIVOT_WIDER") || p.isKwAt(n, "PIVOT_LONGER"))
}

// subqueryAt reports whether a query starts n tokens ahead inside an
// expression's parentheses: queryAt's, or a VALUES list (x IN (VALUES
// (1), (2)), a scalar (VALUES (1))). In FROM a parenthesised VALUES list
// is a table of its own (ValuesTable), so queryAt leaves it out.
func (p *parser) subqueryAt(n int) bool {
	return p.queryAt(n) || p.isKwAt(n, "VALUES") && p.isOpAt(n+1, "(")
}

// list reads one item and then more as long as a comma follows.
func list[T any](p *parser, item func() (T, error)) ([]T, error) {
	var out []T
	for {
		x, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// inParens reads "(", the item, ")".
func inParens[T any](p *parser, item func() (T, error)) (T, error) {
	var zero T
	if err := p.expectOp("("); err != nil {
		return zero, err
	}
	x, err := item()
	if err != nil {
		return zero, err
	}
	if err := p.expectOp(")"); err != nil {
		return zero, err
	}
	return x, nil
}

// skipParens skips a parenthesised run of tokens, nested parentheses and
// all.
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

// reserved words end an expression or a FROM item: they are never read as
// an implicit alias or a bare column name.
var reserved = words(`ALL AND ANTI ANY APPLY AS ASC ASOF BETWEEN BY CASE CROSS DESC DISTINCT ELSE END
	ESCAPE EXCEPT FETCH FOR FROM FULL GLOB GROUP HAVING ILIKE IN INNER INTERSECT INTO IS ISNULL JOIN
	LATERAL LEFT LIKE LIMIT MINUS NATURAL NOT NOTNULL NULLS OFFSET ON OR ORDER OUTER OVER PIVOT POSITIONAL
	QUALIFY REGEXP RETURNING RIGHT RLIKE SAMPLE SELECT SEMI SIMILAR TABLESAMPLE THEN UNION UNPIVOT
	USING VALUES WHEN WHERE WINDOW WITH COLLATE`)

// identToken reports whether t is a word or a quoted identifier: a name
// where reserved words are names too (after a dot, before =>).
func identToken(t token) bool { return t.kind == tWord || t.kind == tQuoted }

// nameToken reports whether t can be a name: a quoted identifier or a
// word that is not reserved.
func nameToken(t token) bool {
	return t.kind == tQuoted || (t.kind == tWord && !reserved[t.up])
}

// ident reads an identifier (a non-reserved word or a quoted name).
func (p *parser) ident(what string) (Ident, error) {
	if !nameToken(p.at()) {
		return Ident{}, p.unexpected(what)
	}
	return p.anyIdent(what)
}

// anyIdent reads an identifier after a dot, where reserved words are names.
func (p *parser) anyIdent(what string) (Ident, error) {
	if t := p.at(); identToken(t) {
		p.i++
		return Ident{Name: strings.ToLower(t.text), Quoted: t.kind == tQuoted, Pos: t.pos()}, nil
	}
	return Ident{}, p.unexpected(what)
}

// columnName reads a column name, where reserved words are names.
func (p *parser) columnName() (Ident, error) { return p.anyIdent("a column name") }

// identList reads a parenthesised list of column names.
func (p *parser) identList() ([]Ident, error) {
	return inParens(p, func() ([]Ident, error) { return list(p, p.columnName) })
}

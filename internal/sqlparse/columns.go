package sqlparse

import (
	"fmt"
	"regexp"
	"strings"
)

// DuckDB's COLUMNS(…): one expression over each column a selector picks.

// columns reads COLUMNS( selector ) after the name: a star with its
// modifiers, a regular expression, a list of names, or a lambda over the
// name.
func (p *parser) columns(pos Pos) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	c := &Columns{Pos: pos}
	p.i++ // (
	switch star, _ := p.starAhead(); {
	case star:
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		if len(it.Replace) > 0 || len(it.Rename) > 0 {
			return nil, &Error{Pos: it.Pos, Msg: "COLUMNS(* REPLACE …) and COLUMNS(* RENAME …) are not read"}
		}
		c.Star = it
	case p.at().kind == tString:
		t := p.advance()
		c.Pattern = &Literal{Kind: LitString, Text: t.text, Prefix: t.prefix, Pos: t.pos()}
	default:
		at := p.pos()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		switch x := e.(type) {
		case *Array:
			c.Names = x
		case *Lambda:
			c.Lambda = x
		default:
			return nil, &Error{Pos: at, Msg: "COLUMNS selects with *, a regular expression, a list of names or a lambda"}
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if _, err := c.Matcher(); err != nil {
		return nil, &Error{Pos: pos, Msg: err.Error()}
	}
	return c, nil
}

// Matcher is the test of a column name c picks (the name lowercased, as
// lineage compares names), as DuckDB 1.5 picks them: a regular expression
// (RE2) found anywhere in the name, a name of the list, or the lambda's
// test, which may be [NOT] LIKE or ILIKE, =, <>, IN, regexp_matches,
// starts_with, ends_with, contains, prefix and suffix of the name, joined
// with AND, OR and NOT. It is nil for a star, whose modifiers pick. An
// error is a selector it cannot test names with.
func (c *Columns) Matcher() (func(name string) bool, error) {
	switch {
	case c.Star != nil:
		return nil, nil
	case c.Pattern != nil:
		re, err := regexp.Compile(c.Pattern.Text)
		if err != nil {
			return nil, fmt.Errorf("COLUMNS pattern %q: %v", c.Pattern.Text, err)
		}
		return re.MatchString, nil
	case c.Names != nil:
		if c.Names.Query != nil {
			return nil, fmt.Errorf("COLUMNS selects with a list of names, not a query")
		}
		names := map[string]bool{}
		for _, e := range c.Names.Elems {
			l, ok := e.(*Literal)
			if !ok || l.Kind != LitString {
				return nil, fmt.Errorf("COLUMNS selects with a list of names as strings, not %s", Format(e))
			}
			names[strings.ToLower(l.Text)] = true
		}
		return func(name string) bool { return names[name] }, nil
	case c.Lambda != nil && len(c.Lambda.Params) == 1:
		return nameTest(c.Lambda.Params[0].Name, c.Lambda.Body)
	}
	return nil, fmt.Errorf("COLUMNS selects with a lambda of one name")
}

// nameTest is the test a COLUMNS lambda's body makes of the name param.
func nameTest(param string, body Expr) (func(string) bool, error) {
	isParam := func(e Expr) bool {
		r, ok := e.(*ColumnRef)
		return ok && len(r.Parts) == 1 && r.Parts[0].Name == param
	}
	text := func(e Expr) (string, bool) {
		if l, ok := e.(*Literal); ok && l.IsText() {
			return l.Text, true
		}
		return "", false
	}
	unsupported := fmt.Errorf("a COLUMNS lambda other than tests of the name (LIKE, ILIKE, =, <>, IN, regexp_matches, starts_with, ends_with, contains, with AND, OR, NOT) is not read: %s", Format(body))
	switch x := body.(type) {
	case *Paren:
		return nameTest(param, x.X)
	case *Unary:
		if x.Op != "NOT" {
			return nil, unsupported
		}
		f, err := nameTest(param, x.X)
		if err != nil {
			return nil, err
		}
		return func(n string) bool { return !f(n) }, nil
	case *Binary:
		switch x.Op {
		case "AND", "OR":
			l, err := nameTest(param, x.L)
			if err != nil {
				return nil, err
			}
			r, err := nameTest(param, x.R)
			if err != nil {
				return nil, err
			}
			if x.Op == "AND" {
				return func(n string) bool { return l(n) && r(n) }, nil
			}
			return func(n string) bool { return l(n) || r(n) }, nil
		case "=", "<>", "!=":
			v, ok := text(x.R)
			if !isParam(x.L) || !ok {
				return nil, unsupported
			}
			eq := x.Op == "="
			return func(n string) bool { return (n == v) == eq }, nil
		}
	case *Like:
		v, ok := text(x.Pattern)
		if !isParam(x.X) || !ok || x.Escape != nil || x.Quantifier != "" || (x.Op != "LIKE" && x.Op != "ILIKE") {
			return nil, unsupported
		}
		return (&StarMatch{Op: x.Op, Not: x.Not, Pattern: v}).Matcher()
	case *In:
		if !isParam(x.X) || x.Query != nil {
			return nil, unsupported
		}
		set := map[string]bool{}
		for _, e := range x.List {
			v, ok := text(e)
			if !ok {
				return nil, unsupported
			}
			set[v] = true
		}
		return func(n string) bool { return set[n] != x.Not }, nil
	case *Func:
		name := strings.ToLower(FuncName(x))
		if len(x.Args) != 2 || !isParam(x.Args[0]) || x.Star || x.Distinct || x.Filter != nil || x.Over != nil {
			return nil, unsupported
		}
		v, ok := text(x.Args[1])
		if !ok {
			return nil, unsupported
		}
		switch name {
		case "regexp_matches":
			re, err := regexp.Compile(v)
			if err != nil {
				return nil, fmt.Errorf("regexp_matches pattern %q: %v", v, err)
			}
			return re.MatchString, nil
		case "starts_with", "prefix":
			return func(n string) bool { return strings.HasPrefix(n, v) }, nil
		case "ends_with", "suffix":
			return func(n string) bool { return strings.HasSuffix(n, v) }, nil
		case "contains":
			return func(n string) bool { return strings.Contains(n, v) }, nil
		}
	}
	return nil, unsupported
}

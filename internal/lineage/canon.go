package lineage

import (
	"math/big"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// maxCanonNodes bounds a canonical form. Inlining shares subtrees, so a
// chain of CTEs whose columns each read two columns of the previous one
// doubles the expanded size per level; past the bound the value is left
// undecided instead of growing without limit.
const maxCanonNodes = 4000

// canonicalize rebuilds e with every column reference replaced by ref's
// canonical expression and the simplifications of simplify applied. It
// returns nil when a reference has no canonical form, e holds a subquery,
// or the result would exceed maxCanonNodes. It never modifies e or the
// trees ref returns.
func canonicalize(m *meter, e sqlparse.Expr, ref func(*sqlparse.ColumnRef) sqlparse.Expr, window func(*sqlparse.Window) *sqlparse.Window) sqlparse.Expr {
	c := &canonizer{m: m, ref: ref, window: window, sizes: map[sqlparse.Expr]int{}}
	out := c.expr(e)
	if c.failed || out == nil || c.size(out) > maxCanonNodes {
		return nil
	}
	return out
}

type canonizer struct {
	m      *meter
	ref    func(*sqlparse.ColumnRef) sqlparse.Expr
	window func(*sqlparse.Window) *sqlparse.Window // resolves OVER w
	failed bool
	sizes  map[sqlparse.Expr]int
}

func (c *canonizer) exprs(list []sqlparse.Expr) []sqlparse.Expr {
	out := make([]sqlparse.Expr, len(list))
	for i, e := range list {
		out[i] = c.expr(e)
	}
	return out
}

func (c *canonizer) order(items []*sqlparse.OrderItem) []*sqlparse.OrderItem {
	out := make([]*sqlparse.OrderItem, len(items))
	for i, it := range items {
		out[i] = &sqlparse.OrderItem{Expr: c.expr(it.Expr), Desc: it.Desc, NullsFirst: it.NullsFirst}
	}
	return out
}

func (c *canonizer) expr(e sqlparse.Expr) sqlparse.Expr {
	if c.failed || e == nil {
		return nil
	}
	c.m.nodes(1)
	switch x := e.(type) {
	case *sqlparse.ColumnRef:
		r := c.ref(x)
		if r == nil {
			c.failed = true
		}
		return r
	case *sqlparse.Literal, *sqlparse.Param, *sqlparse.Special, *sqlparse.Star:
		return e
	case *sqlparse.TypedLiteral:
		return &sqlparse.Cast{X: &sqlparse.Literal{Kind: sqlparse.LitString, Text: x.Value}, Type: sqlparse.TypeName{Text: x.Type}, Kind: "CAST"}
	case *sqlparse.Interval:
		v := c.expr(x.Value)
		if l, ok := v.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitNumber {
			v = &sqlparse.Literal{Kind: sqlparse.LitString, Text: l.Text}
		}
		return &sqlparse.Interval{Value: v, Unit: x.Unit}
	case *sqlparse.Paren:
		return c.expr(x.X)
	case *sqlparse.Unary:
		return c.unary(x.Op, c.expr(x.X))
	case *sqlparse.Binary:
		if x.Op == "AND" || x.Op == "OR" {
			// Flatten the written chain first, so that a long chain is
			// canonicalised once, not once per level.
			var ops []sqlparse.Expr
			collectChain(x, x.Op, &ops)
			out := c.expr(ops[0])
			for _, o := range ops[1:] {
				out = &sqlparse.Binary{Op: x.Op, L: out, R: c.expr(o)}
			}
			if c.failed {
				return nil
			}
			b := out.(*sqlparse.Binary)
			return c.connective(x.Op, b.L, b.R)
		}
		return c.binary(x.Op, c.expr(x.L), c.expr(x.R))
	case *sqlparse.Func:
		return c.function(x)
	case *sqlparse.NamedArg:
		return &sqlparse.NamedArg{Name: x.Name, Value: c.expr(x.Value)}
	case *sqlparse.Cast:
		return &sqlparse.Cast{X: c.expr(x.X), Type: x.Type, Kind: x.Kind, Format: c.expr(x.Format), Zone: c.expr(x.Zone)}
	case *sqlparse.Case:
		return c.caseExpr(x)
	case *sqlparse.In:
		if x.Query != nil {
			c.failed = true
			return nil
		}
		return &sqlparse.In{X: c.expr(x.X), Not: x.Not, List: c.exprs(x.List)}
	case *sqlparse.Between:
		return &sqlparse.Between{X: c.expr(x.X), Lo: c.expr(x.Lo), Hi: c.expr(x.Hi), Not: x.Not, Symmetric: x.Symmetric}
	case *sqlparse.Like:
		return &sqlparse.Like{X: c.expr(x.X), Pattern: c.expr(x.Pattern), Escape: c.expr(x.Escape), Op: x.Op, Not: x.Not, Quantifier: x.Quantifier}
	case *sqlparse.Is:
		return &sqlparse.Is{X: c.expr(x.X), Not: x.Not, What: x.What, DistinctFrom: c.expr(x.DistinctFrom)}
	case *sqlparse.Array:
		if x.Query != nil {
			c.failed = true
			return nil
		}
		return &sqlparse.Array{Elems: c.exprs(x.Elems)}
	case *sqlparse.Struct:
		return &sqlparse.Struct{Keys: x.Keys, Values: c.exprs(x.Values)}
	case *sqlparse.Map:
		return &sqlparse.Map{Keys: c.exprs(x.Keys), Values: c.exprs(x.Values)}
	case *sqlparse.Row:
		return &sqlparse.Row{Elems: c.exprs(x.Elems), Names: x.Names}
	case *sqlparse.Subscript:
		return &sqlparse.Subscript{X: c.expr(x.X), Index: c.expr(x.Index), Upper: c.expr(x.Upper), Slice: x.Slice}
	case *sqlparse.Field:
		return &sqlparse.Field{X: c.expr(x.X), Name: x.Name, Colon: x.Colon}
	case *sqlparse.Extract:
		return &sqlparse.Extract{Field: x.Field, X: c.expr(x.X)}
	case *sqlparse.Lambda:
		return &sqlparse.Lambda{Params: x.Params, Body: c.expr(x.Body)}
	case *sqlparse.Collate:
		return &sqlparse.Collate{X: c.expr(x.X), Collation: x.Collation}
	case *sqlparse.AtTimeZone:
		return &sqlparse.AtTimeZone{X: c.expr(x.X), Zone: c.expr(x.Zone)}
	}
	// Subqueries, EXISTS, quantified subqueries: not reduced.
	c.failed = true
	return nil
}

// funcSynonyms maps function names to the one spelling the canonical form
// uses, where the functions are the same in every dialect read.
var funcSynonyms = map[string]string{
	"NVL": "COALESCE", "IFNULL": "COALESCE", "IFF": "IF", "SUBSTR": "SUBSTRING", "CEILING": "CEIL",
	"POW": "POWER", "LCASE": "LOWER", "UCASE": "UPPER", "LEN": "LENGTH", "CHAR_LENGTH": "LENGTH",
	"CHARACTER_LENGTH": "LENGTH",
}

func (c *canonizer) function(x *sqlparse.Func) sqlparse.Expr {
	name := sqlparse.FuncName(x)
	if s, ok := funcSynonyms[name]; ok {
		name = s
	}
	args := c.exprs(x.Args)
	if c.failed {
		return nil
	}
	plain := x.Over == nil && x.Filter == nil && !x.Distinct && len(x.OrderBy) == 0 && len(x.WithinGroup) == 0 &&
		x.Limit == nil && x.Separator == nil
	if plain {
		switch {
		case (name == "DIV0" || name == "DIV0NULL") && len(args) == 2 && nonZeroNumber(args[1]):
			// Snowflake: DIV0(a, b) is a / b unless b is 0.
			return c.binary("/", args[0], args[1])
		case name == "IF" && len(args) == 3:
			if l, ok := args[0].(*sqlparse.Literal); ok && l.Kind == sqlparse.LitBool {
				if l.Text == "TRUE" {
					return args[1]
				}
				return args[2]
			}
		case name == "COALESCE" && len(args) == 1:
			return args[0]
		}
	}
	f := &sqlparse.Func{Name: []sqlparse.Ident{{Name: strings.ToLower(name)}}, Args: args, Star: x.Star,
		Distinct: x.Distinct, NullsMode: x.NullsMode, OrderBy: c.order(x.OrderBy), WithinGroup: c.order(x.WithinGroup),
		Filter: c.expr(x.Filter), Limit: c.expr(x.Limit), Separator: c.expr(x.Separator)}
	if x.Over != nil {
		w := x.Over
		if c.window != nil {
			w = c.window(w)
		}
		ref := w.Ref
		if ref != nil && c.window != nil && w != x.Over {
			ref = nil // inlined
		}
		f.Over = &sqlparse.Window{Ref: ref, PartitionBy: c.exprs(w.PartitionBy), OrderBy: c.order(w.OrderBy),
			Frame: w.Frame, FrameExprs: c.exprs(w.FrameExprs)}
	}
	return f
}

func nonZeroNumber(e sqlparse.Expr) bool {
	r, ok := number(e)
	return ok && r.Sign() != 0
}

func number(e sqlparse.Expr) (*big.Rat, bool) {
	l, ok := e.(*sqlparse.Literal)
	if !ok || l.Kind != sqlparse.LitNumber || strings.ContainsAny(l.Text, "xX_") {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(l.Text)
	return r, ok
}

func integer(e sqlparse.Expr) (*big.Int, bool) {
	l, ok := e.(*sqlparse.Literal)
	if !ok || l.Kind != sqlparse.LitNumber || strings.ContainsAny(l.Text, ".eExX_") {
		return nil, false
	}
	n, ok := new(big.Int).SetString(l.Text, 10)
	return n, ok
}

func boolLit(b bool) sqlparse.Expr {
	if b {
		return &sqlparse.Literal{Kind: sqlparse.LitBool, Text: "TRUE"}
	}
	return &sqlparse.Literal{Kind: sqlparse.LitBool, Text: "FALSE"}
}

func isBool(e sqlparse.Expr, v string) bool {
	l, ok := e.(*sqlparse.Literal)
	return ok && l.Kind == sqlparse.LitBool && l.Text == v
}

var mirrored = map[string]string{"=": "=", "<>": "<>", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
var negated = map[string]string{"=": "<>", "<>": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}

func (c *canonizer) unary(op string, x sqlparse.Expr) sqlparse.Expr {
	if c.failed {
		return nil
	}
	switch op {
	case "+":
		if _, ok := number(x); ok {
			return x
		}
	case "-":
		if l, ok := x.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitNumber {
			if n, ok := number(x); ok && n.Sign() == 0 {
				return x
			}
			if strings.HasPrefix(l.Text, "-") {
				return &sqlparse.Literal{Kind: sqlparse.LitNumber, Text: l.Text[1:]}
			}
			return &sqlparse.Literal{Kind: sqlparse.LitNumber, Text: "-" + l.Text}
		}
	case "NOT":
		switch y := x.(type) {
		case *sqlparse.Literal:
			if y.Kind == sqlparse.LitBool {
				return boolLit(y.Text == "FALSE")
			}
		case *sqlparse.Unary:
			if y.Op == "NOT" {
				return y.X
			}
		case *sqlparse.Binary:
			if n, ok := negated[y.Op]; ok {
				return &sqlparse.Binary{Op: n, L: y.L, R: y.R}
			}
		case *sqlparse.Is:
			z := *y
			z.Not = !z.Not
			return &z
		case *sqlparse.In:
			z := *y
			z.Not = !z.Not
			return &z
		case *sqlparse.Between:
			z := *y
			z.Not = !z.Not
			return &z
		case *sqlparse.Like:
			if y.Quantifier == "" {
				z := *y
				z.Not = !z.Not
				return &z
			}
		}
	}
	return &sqlparse.Unary{Op: op, X: x}
}

func (c *canonizer) binary(op string, l, r sqlparse.Expr) sqlparse.Expr {
	if c.failed {
		return nil
	}
	switch op {
	case "!=":
		op = "<>"
	case "==":
		op = "="
	}
	switch op {
	case "AND", "OR":
		return c.connective(op, l, r)
	case "+", "-", "*":
		if a, ok := integer(l); ok {
			if b, ok := integer(r); ok {
				var n big.Int
				switch op {
				case "+":
					n.Add(a, b)
				case "-":
					n.Sub(a, b)
				case "*":
					n.Mul(a, b)
				}
				return &sqlparse.Literal{Kind: sqlparse.LitNumber, Text: n.String()}
			}
		}
	case "||":
		ls, lok := l.(*sqlparse.Literal)
		rs, rok := r.(*sqlparse.Literal)
		if lok && rok && ls.IsText() && rs.IsText() {
			return &sqlparse.Literal{Kind: sqlparse.LitString, Text: ls.Text + rs.Text}
		}
	}
	if m, ok := mirrored[op]; ok {
		a, aok := number(l)
		b, bok := number(r)
		if aok && bok {
			cmp := a.Cmp(b)
			switch op {
			case "=":
				return boolLit(cmp == 0)
			case "<>":
				return boolLit(cmp != 0)
			case "<":
				return boolLit(cmp < 0)
			case "<=":
				return boolLit(cmp <= 0)
			case ">":
				return boolLit(cmp > 0)
			case ">=":
				return boolLit(cmp >= 0)
			}
		}
		if isConstant(l) && !isConstant(r) {
			return &sqlparse.Binary{Op: m, L: r, R: l}
		}
	}
	return &sqlparse.Binary{Op: op, L: l, R: r}
}

func isConstant(e sqlparse.Expr) bool {
	switch e := e.(type) {
	case *sqlparse.Literal, *sqlparse.TypedLiteral, *sqlparse.Param:
		return true
	case *sqlparse.Cast:
		return isConstant(e.X)
	}
	return false
}

// collectChain lists the operands of a chain of one connective, looking
// through parentheses, iteratively along the left spine (a parser builds
// long chains left-deep).
func collectChain(e sqlparse.Expr, op string, out *[]sqlparse.Expr) {
	var right []sqlparse.Expr
	for {
		b, ok := unparen(e).(*sqlparse.Binary)
		if !ok || b.Op != op {
			*out = append(*out, e)
			break
		}
		right = append(right, b.R)
		e = b.L
	}
	for i := len(right) - 1; i >= 0; i-- {
		if b, ok := unparen(right[i]).(*sqlparse.Binary); ok && b.Op == op {
			collectChain(b, op, out)
		} else {
			*out = append(*out, right[i])
		}
	}
}

// connective flattens a chain of AND (or OR), drops the identity element,
// folds the absorbing one, removes duplicates and sorts the operands (both
// connectives are commutative and idempotent in SQL's three-valued logic).
func (c *canonizer) connective(op string, l, r sqlparse.Expr) sqlparse.Expr {
	identity, absorbing := "TRUE", "FALSE"
	if op == "OR" {
		identity, absorbing = "FALSE", "TRUE"
	}
	var ops []sqlparse.Expr
	var flatten func(e sqlparse.Expr)
	flatten = func(e sqlparse.Expr) {
		if b, ok := e.(*sqlparse.Binary); ok && b.Op == op {
			flatten(b.L)
			flatten(b.R)
			return
		}
		ops = append(ops, e)
	}
	flatten(l)
	flatten(r)
	keyed := map[string]sqlparse.Expr{}
	var keys []string
	for _, o := range ops {
		if isBool(o, absorbing) {
			return boolLit(absorbing == "TRUE")
		}
		if isBool(o, identity) {
			continue
		}
		if c.size(o) > maxCanonNodes {
			c.failed = true
			return nil
		}
		k, _ := canonText(c.m, o)
		if _, dup := keyed[k]; !dup {
			keyed[k] = o
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return boolLit(identity == "TRUE")
	}
	sort.Strings(keys)
	out := keyed[keys[0]]
	for _, k := range keys[1:] {
		out = &sqlparse.Binary{Op: op, L: out, R: keyed[k]}
	}
	return out
}

func (c *canonizer) caseExpr(x *sqlparse.Case) sqlparse.Expr {
	operand := c.expr(x.Operand)
	var whens []sqlparse.When
	for _, w := range x.Whens {
		cond, res := c.expr(w.Cond), c.expr(w.Result)
		if operand == nil {
			if isBool(cond, "FALSE") {
				continue
			}
			if l, ok := cond.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitNull {
				continue
			}
			if isBool(cond, "TRUE") && len(whens) == 0 {
				return res
			}
		}
		whens = append(whens, sqlparse.When{Cond: cond, Result: res})
	}
	els := c.expr(x.Else)
	if c.failed {
		return nil
	}
	if len(whens) == 0 {
		if els == nil {
			return &sqlparse.Literal{Kind: sqlparse.LitNull, Text: "NULL"}
		}
		return els
	}
	return &sqlparse.Case{Operand: operand, Whens: whens, Else: els}
}

// size is the number of nodes of e's expanded tree, memoised per node
// (canonical trees share subtrees).
func (c *canonizer) size(e sqlparse.Expr) int {
	if e == nil {
		return 0
	}
	if n, ok := c.sizes[e]; ok {
		return n
	}
	c.m.nodes(1)
	n := 1
	for _, ch := range children(e) {
		n += c.size(ch)
		if n > maxCanonNodes {
			n = maxCanonNodes + 1
			break
		}
	}
	c.sizes[e] = n
	return n
}

// children are e's direct sub-expressions, those of its window and
// ordering clauses included; a nested query is not an expression's part.
func children(e sqlparse.Expr) []sqlparse.Expr {
	var out []sqlparse.Expr
	sqlparse.Inspect(e, func(n sqlparse.Node) bool {
		switch x := n.(type) {
		case nil, *sqlparse.Query:
			return false
		case sqlparse.Expr:
			if x == e {
				return true
			}
			out = append(out, x)
			return false
		}
		return true
	})
	return out
}

// wrapCompound parenthesises operands that are not atoms, so that a
// canonical tree prints unambiguously whatever parentheses the source had.
func wrapCompound(e sqlparse.Expr) sqlparse.Expr {
	wrap := func(x sqlparse.Expr) sqlparse.Expr {
		switch x.(type) {
		case nil, *sqlparse.ColumnRef, *sqlparse.Literal, *sqlparse.Func, *sqlparse.Cast, *sqlparse.Paren, *sqlparse.Case,
			*sqlparse.Special, *sqlparse.Param, *sqlparse.TypedLiteral, *sqlparse.Array, *sqlparse.Struct, *sqlparse.Map, *sqlparse.Row,
			*sqlparse.Extract, *sqlparse.Star:
			return x
		}
		return &sqlparse.Paren{X: x}
	}
	switch x := e.(type) {
	case *sqlparse.Binary:
		return &sqlparse.Binary{Op: x.Op, L: wrap(x.L), R: wrap(x.R)}
	case *sqlparse.Unary:
		return &sqlparse.Unary{Op: x.Op, X: wrap(x.X)}
	case *sqlparse.Between:
		return &sqlparse.Between{X: wrap(x.X), Lo: wrap(x.Lo), Hi: wrap(x.Hi), Not: x.Not, Symmetric: x.Symmetric}
	case *sqlparse.Like:
		return &sqlparse.Like{X: wrap(x.X), Pattern: wrap(x.Pattern), Escape: x.Escape, Op: x.Op, Not: x.Not, Quantifier: x.Quantifier}
	case *sqlparse.Is:
		return &sqlparse.Is{X: wrap(x.X), Not: x.Not, What: x.What, DistinctFrom: wrap(x.DistinctFrom)}
	case *sqlparse.In:
		return &sqlparse.In{X: wrap(x.X), Not: x.Not, List: x.List}
	case *sqlparse.Field:
		return &sqlparse.Field{X: wrap(x.X), Name: x.Name, Colon: x.Colon}
	case *sqlparse.Subscript:
		return &sqlparse.Subscript{X: wrap(x.X), Index: x.Index, Upper: x.Upper, Slice: x.Slice}
	case *sqlparse.Collate:
		return &sqlparse.Collate{X: wrap(x.X), Collation: x.Collation}
	case *sqlparse.AtTimeZone:
		return &sqlparse.AtTimeZone{X: wrap(x.X), Zone: wrap(x.Zone)}
	}
	return e
}

var canonPrinter = &sqlparse.Printer{Rewrite: wrapCompound}

// canonText prints a canonical tree, counting the nodes it prints (a tree
// that shares subtrees prints them once per use); ok is false when it is
// nil or larger than maxCanonNodes.
func canonText(m *meter, e sqlparse.Expr) (string, bool) {
	if e == nil {
		return "", false
	}
	c := &canonizer{m: m, sizes: map[sqlparse.Expr]int{}}
	n := c.size(e)
	if n > maxCanonNodes {
		return "", false
	}
	m.nodes(n)
	var b strings.Builder
	canonPrinter.Expr(&b, e)
	return b.String(), true
}

func (a *analyzer) canonText(e sqlparse.Expr) (string, bool) { return canonText(a.m, e) }

// canonKey is canonText where a key is needed whatever happens; callers
// that can flag uncertainty use canonText.
func (a *analyzer) canonKey(e sqlparse.Expr) string {
	if s, ok := a.canonText(e); ok {
		return s
	}
	return "?"
}

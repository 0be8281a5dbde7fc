package sqlparse

import (
	"strings"
)

// Printer prints trees in one normalised form: keywords and function names
// upper case, identifiers as their lower-case lookup names without quotes,
// single spaces, `x::t` and typed literals as CAST, `!=` as `<>`. Two
// spellings of one expression that differ only in layout, case or cast
// syntax print the same.
type Printer struct {
	// Column, when set, prints a column reference; returning false falls
	// back to the reference as written.
	Column func(b *strings.Builder, c *ColumnRef) bool
	// Query, when set, prints a nested query (the text inside its
	// parentheses); returning false falls back to the query as written.
	Query func(b *strings.Builder, q *Query) bool
	// Rewrite, when set, may replace a node before it is printed (a
	// canonicaliser uses it); it must not return nil.
	Rewrite func(e Expr) Expr
}

// Format prints e with the default Printer.
func Format(e Expr) string {
	var b strings.Builder
	(&Printer{}).Expr(&b, e)
	return b.String()
}

// FormatQuery prints q with the default Printer.
func FormatQuery(q *Query) string {
	var b strings.Builder
	(&Printer{}).query(&b, q)
	return b.String()
}

// writeIdent writes a name bare when it reads back as the same name, else
// in double quotes.
func writeIdent(b *strings.Builder, id Ident) {
	if plainName(id.Name) {
		b.WriteString(id.Name)
		return
	}
	writeQuoted(b, id.Name)
}

func writeQuoted(b *strings.Builder, name string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(name, `"`, `""`))
	b.WriteByte('"')
}

func plainName(s string) bool {
	if s == "" || reserved[strings.ToUpper(s)] || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z')) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

func writeIdents(b *strings.Builder, ids []Ident, sep string) {
	for i, id := range ids {
		if i > 0 {
			b.WriteString(sep)
		}
		writeIdent(b, id)
	}
}

func writeString(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", "''"))
	b.WriteByte('\'')
}

// Expr prints e.
func (pr *Printer) Expr(b *strings.Builder, e Expr) {
	if pr.Rewrite != nil {
		e = pr.Rewrite(e)
	}
	switch x := e.(type) {
	case nil:
		b.WriteString("NULL")
	case *ColumnRef:
		if pr.Column != nil && pr.Column(b, x) {
			return
		}
		writeIdents(b, x.Parts, ".")
	case *Literal:
		switch x.Kind {
		case LitString:
			writeString(b, x.Text)
		default:
			b.WriteString(x.Text)
		}
	case *TypedLiteral:
		b.WriteString("CAST(")
		writeString(b, x.Value)
		b.WriteString(" AS ")
		b.WriteString(x.Type)
		b.WriteString(")")
	case *Interval:
		b.WriteString("INTERVAL ")
		if l, ok := x.Value.(*Literal); ok && l.Kind == LitNumber {
			writeString(b, l.Text)
		} else {
			pr.Expr(b, x.Value)
		}
		if x.Unit != "" {
			b.WriteByte(' ')
			b.WriteString(x.Unit)
		}
	case *Param:
		b.WriteString(x.Text)
	case *Unary:
		b.WriteString(x.Op)
		// Two prefix operators side by side would lex as one ("--" even
		// starts a comment): a space keeps them apart.
		if _, nested := x.X.(*Unary); x.Op == "NOT" || nested {
			b.WriteByte(' ')
		}
		pr.Expr(b, x.X)
	case *Binary:
		pr.Expr(b, x.L)
		b.WriteByte(' ')
		switch x.Op {
		case "!=":
			b.WriteString("<>")
		case "==":
			b.WriteString("=")
		default:
			b.WriteString(x.Op)
		}
		b.WriteByte(' ')
		pr.Expr(b, x.R)
	case *Paren:
		b.WriteByte('(')
		pr.Expr(b, x.X)
		b.WriteByte(')')
	case *Func:
		if len(x.Name) == 1 && x.Name[0].Name == "grouping sets" {
			b.WriteString("GROUPING SETS (")
			pr.groupingItems(b, x.Args)
			b.WriteByte(')')
			return
		}
		pr.funcCall(b, x)
	case *NamedArg:
		writeIdent(b, x.Name)
		b.WriteString(" => ")
		pr.Expr(b, x.Value)
	case *Cast:
		b.WriteString(x.Kind)
		b.WriteByte('(')
		pr.Expr(b, x.X)
		b.WriteString(" AS ")
		b.WriteString(x.Type.Text)
		b.WriteByte(')')
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteByte(' ')
			pr.Expr(b, x.Operand)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			pr.Expr(b, w.Cond)
			b.WriteString(" THEN ")
			pr.Expr(b, w.Result)
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			pr.Expr(b, x.Else)
		}
		b.WriteString(" END")
	case *Subquery:
		b.WriteByte('(')
		pr.nested(b, x.Query)
		b.WriteByte(')')
	case *Exists:
		b.WriteString("EXISTS(")
		pr.nested(b, x.Query)
		b.WriteByte(')')
	case *In:
		pr.Expr(b, x.X)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		if x.Query != nil {
			pr.nested(b, x.Query)
		} else {
			pr.exprs(b, x.List)
		}
		b.WriteByte(')')
	case *Between:
		pr.Expr(b, x.X)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		pr.Expr(b, x.Lo)
		b.WriteString(" AND ")
		pr.Expr(b, x.Hi)
	case *Like:
		pr.Expr(b, x.X)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteByte(' ')
		b.WriteString(x.Op)
		if x.Quantifier != "" {
			b.WriteByte(' ')
			b.WriteString(x.Quantifier)
		}
		b.WriteByte(' ')
		pr.Expr(b, x.Pattern)
		if x.Escape != nil {
			b.WriteString(" ESCAPE ")
			pr.Expr(b, x.Escape)
		}
	case *Is:
		pr.Expr(b, x.X)
		b.WriteString(" IS ")
		if x.Not {
			b.WriteString("NOT ")
		}
		b.WriteString(x.What)
		if x.DistinctFrom != nil {
			b.WriteByte(' ')
			pr.Expr(b, x.DistinctFrom)
		}
	case *Quantified:
		pr.Expr(b, x.X)
		b.WriteByte(' ')
		b.WriteString(x.Op)
		b.WriteByte(' ')
		b.WriteString(x.Quant)
		b.WriteByte('(')
		if x.Query != nil {
			pr.nested(b, x.Query)
		} else {
			pr.Expr(b, x.Array)
		}
		b.WriteByte(')')
	case *Array:
		if x.Query != nil {
			b.WriteString("ARRAY(")
			pr.nested(b, x.Query)
			b.WriteByte(')')
			return
		}
		b.WriteByte('[')
		pr.exprs(b, x.Elems)
		b.WriteByte(']')
	case *Struct:
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, x.Keys[i])
			b.WriteString(": ")
			pr.Expr(b, x.Values[i])
		}
		b.WriteByte('}')
	case *Row:
		// ROW() even when empty: a bare "()" is no expression.
		b.WriteString("ROW(")
		pr.exprs(b, x.Elems)
		b.WriteByte(')')
	case *Subscript:
		pr.Expr(b, x.X)
		b.WriteByte('[')
		if x.Index != nil {
			pr.Expr(b, x.Index)
		}
		if x.Slice {
			b.WriteByte(':')
			if x.Upper != nil {
				pr.Expr(b, x.Upper)
			}
		}
		b.WriteByte(']')
	case *Field:
		if _, number := x.X.(*Literal); number {
			// "0 .a" printed as "0.a" would read back as a number.
			b.WriteByte('(')
			pr.Expr(b, x.X)
			b.WriteByte(')')
		} else {
			pr.Expr(b, x.X)
		}
		if x.Colon {
			b.WriteByte(':')
		} else {
			b.WriteByte('.')
		}
		writeIdent(b, Ident{Name: x.Name})
	case *Extract:
		b.WriteString("EXTRACT(")
		b.WriteString(x.Field)
		b.WriteString(" FROM ")
		pr.Expr(b, x.X)
		b.WriteByte(')')
	case *Lambda:
		if len(x.Params) == 1 {
			writeIdent(b, x.Params[0])
		} else {
			b.WriteByte('(')
			writeIdents(b, x.Params, ", ")
			b.WriteByte(')')
		}
		b.WriteString(" -> ")
		pr.Expr(b, x.Body)
	case *Collate:
		pr.Expr(b, x.X)
		b.WriteString(" COLLATE ")
		b.WriteString(x.Collation)
	case *AtTimeZone:
		pr.Expr(b, x.X)
		b.WriteString(" AT TIME ZONE ")
		pr.Expr(b, x.Zone)
	case *Special:
		b.WriteString(x.Name)
	case *Star:
		b.WriteByte('*')
	}
}

func (pr *Printer) exprs(b *strings.Builder, list []Expr) {
	for i, e := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		pr.Expr(b, e)
	}
}

func (pr *Printer) nested(b *strings.Builder, q *Query) {
	if pr.Query != nil && pr.Query(b, q) {
		return
	}
	pr.query(b, q)
}

// FuncName is a call's name as the printer writes it: upper case, dotted.
func FuncName(f *Func) string {
	var b strings.Builder
	for i, id := range f.Name {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.ToUpper(id.Name))
	}
	return b.String()
}

// groupingItems writes GROUP BY items, where "()" is the empty grouping set;
// anywhere else an empty row is ROW().
func (pr *Printer) groupingItems(b *strings.Builder, items []Expr) {
	for i, e := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if r, ok := e.(*Row); ok && len(r.Elems) == 0 {
			b.WriteString("()")
			continue
		}
		pr.Expr(b, e)
	}
}

func (pr *Printer) funcCall(b *strings.Builder, f *Func) {
	// Upper case reads back as the same name only for a plain one; any
	// other is written quoted, as given.
	for i, id := range f.Name {
		if i > 0 {
			b.WriteByte('.')
		}
		if !id.Quoted && plainName(strings.ToLower(id.Name)) {
			b.WriteString(strings.ToUpper(id.Name))
		} else {
			writeQuoted(b, id.Name)
		}
	}
	b.WriteByte('(')
	if f.Distinct {
		b.WriteString("DISTINCT ")
	}
	if f.Star {
		b.WriteByte('*')
	}
	pr.exprs(b, f.Args)
	if f.NullsMode != "" {
		b.WriteByte(' ')
		b.WriteString(f.NullsMode)
	}
	if len(f.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		pr.orderItems(b, f.OrderBy)
	}
	b.WriteByte(')')
	if len(f.WithinGroup) > 0 {
		b.WriteString(" WITHIN GROUP (ORDER BY ")
		pr.orderItems(b, f.WithinGroup)
		b.WriteByte(')')
	}
	if f.Filter != nil {
		b.WriteString(" FILTER(WHERE ")
		pr.Expr(b, f.Filter)
		b.WriteByte(')')
	}
	if f.Over != nil {
		b.WriteString(" OVER ")
		pr.Window(b, f.Over)
	}
}

// Window prints an OVER specification.
func (pr *Printer) Window(b *strings.Builder, w *Window) {
	if w.Ref != nil && len(w.PartitionBy) == 0 && len(w.OrderBy) == 0 && w.Frame == "" {
		writeIdent(b, *w.Ref)
		return
	}
	b.WriteByte('(')
	sep := ""
	if w.Ref != nil {
		writeIdent(b, *w.Ref)
		sep = " "
	}
	if len(w.PartitionBy) > 0 {
		b.WriteString(sep + "PARTITION BY ")
		pr.exprs(b, w.PartitionBy)
		sep = " "
	}
	if len(w.OrderBy) > 0 {
		b.WriteString(sep + "ORDER BY ")
		pr.orderItems(b, w.OrderBy)
		sep = " "
	}
	if w.Frame != "" {
		b.WriteString(sep)
		frame := w.Frame
		for _, e := range w.FrameExprs {
			var eb strings.Builder
			pr.Expr(&eb, e)
			frame = strings.Replace(frame, "?", eb.String(), 1)
		}
		b.WriteString(frame)
	}
	b.WriteByte(')')
}

func (pr *Printer) orderItems(b *strings.Builder, items []*OrderItem) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		pr.Expr(b, it.Expr)
		if it.Desc {
			b.WriteString(" DESC")
		}
		if it.NullsFirst != nil {
			if *it.NullsFirst {
				b.WriteString(" NULLS FIRST")
			} else {
				b.WriteString(" NULLS LAST")
			}
		}
	}
}

// query prints a whole query.
func (pr *Printer) query(b *strings.Builder, q *Query) {
	if len(q.With) > 0 {
		b.WriteString("WITH ")
		if q.Recursive {
			b.WriteString("RECURSIVE ")
		}
		for i, c := range q.With {
			if i > 0 {
				b.WriteString(", ")
			}
			writeIdent(b, c.Name)
			if len(c.Columns) > 0 {
				b.WriteByte('(')
				writeIdents(b, c.Columns, ", ")
				b.WriteByte(')')
			}
			b.WriteString(" AS (")
			pr.query(b, c.Query)
			b.WriteByte(')')
		}
		b.WriteByte(' ')
	}
	pr.setExpr(b, q.Body)
	if len(q.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		pr.orderItems(b, q.OrderBy)
	}
	if q.Limit != nil {
		b.WriteString(" LIMIT ")
		pr.Expr(b, q.Limit)
	}
	if q.Offset != nil {
		b.WriteString(" OFFSET ")
		pr.Expr(b, q.Offset)
	}
}

func (pr *Printer) setExpr(b *strings.Builder, s SetExpr) {
	switch x := s.(type) {
	case *Select:
		pr.selectCore(b, x)
	case *SetOp:
		pr.setExpr(b, x.Left)
		b.WriteByte(' ')
		b.WriteString(x.Op)
		if x.All {
			b.WriteString(" ALL")
		}
		if x.ByName {
			b.WriteString(" BY NAME")
		}
		b.WriteByte(' ')
		pr.setExpr(b, x.Right)
	case *Query:
		b.WriteByte('(')
		pr.query(b, x)
		b.WriteByte(')')
	case *Values:
		pr.values(b, x)
	}
}

func (pr *Printer) values(b *strings.Builder, v *Values) {
	b.WriteString("VALUES ")
	for i, row := range v.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		pr.exprs(b, row)
		b.WriteByte(')')
	}
}

func (pr *Printer) selectCore(b *strings.Builder, s *Select) {
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
		if len(s.DistinctOn) > 0 {
			b.WriteString("ON (")
			pr.exprs(b, s.DistinctOn)
			b.WriteString(") ")
		}
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		pr.selectItem(b, it)
	}
	if len(s.From) > 0 {
		b.WriteString(" FROM ")
		for i, t := range s.From {
			if i > 0 {
				b.WriteString(", ")
			}
			pr.tableExpr(b, t)
		}
	}
	if s.Where != nil {
		b.WriteString(" WHERE ")
		pr.Expr(b, s.Where)
	}
	if s.GroupByAll {
		b.WriteString(" GROUP BY ALL")
	} else if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		pr.groupingItems(b, s.GroupBy)
	}
	if s.Having != nil {
		b.WriteString(" HAVING ")
		pr.Expr(b, s.Having)
	}
	if len(s.Windows) > 0 {
		b.WriteString(" WINDOW ")
		for i, w := range s.Windows {
			if i > 0 {
				b.WriteString(", ")
			}
			writeIdent(b, w.Name)
			b.WriteString(" AS ")
			pr.Window(b, w.Spec)
		}
	}
	if s.Qualify != nil {
		b.WriteString(" QUALIFY ")
		pr.Expr(b, s.Qualify)
	}
}

func (pr *Printer) selectItem(b *strings.Builder, it *SelectItem) {
	if it.Star {
		for _, q := range it.Qualifier {
			writeIdent(b, q)
			b.WriteByte('.')
		}
		b.WriteByte('*')
		if len(it.Exclude) > 0 {
			b.WriteString(" EXCLUDE (")
			writeIdents(b, it.Exclude, ", ")
			b.WriteByte(')')
		}
		if len(it.Replace) > 0 {
			b.WriteString(" REPLACE (")
			for i, r := range it.Replace {
				if i > 0 {
					b.WriteString(", ")
				}
				pr.selectItem(b, r)
			}
			b.WriteByte(')')
		}
		if len(it.Rename) > 0 {
			b.WriteString(" RENAME (")
			for i, r := range it.Rename {
				if i > 0 {
					b.WriteString(", ")
				}
				writeIdent(b, r[0])
				b.WriteString(" AS ")
				writeIdent(b, r[1])
			}
			b.WriteByte(')')
		}
		return
	}
	pr.Expr(b, it.Expr)
	if it.Alias != nil {
		b.WriteString(" AS ")
		writeIdent(b, *it.Alias)
	}
}

func (pr *Printer) alias(b *strings.Builder, a *Alias) {
	if a == nil {
		return
	}
	b.WriteString(" AS ")
	writeIdent(b, a.Name)
	if len(a.Columns) > 0 {
		b.WriteByte('(')
		writeIdents(b, a.Columns, ", ")
		b.WriteByte(')')
	}
}

func (pr *Printer) tableExpr(b *strings.Builder, t TableExpr) {
	switch x := t.(type) {
	case *Table:
		writeIdents(b, x.Name, ".")
		pr.alias(b, x.Alias)
	case *DerivedTable:
		if x.Lateral {
			b.WriteString("LATERAL ")
		}
		b.WriteByte('(')
		pr.query(b, x.Query)
		b.WriteByte(')')
		pr.alias(b, x.Alias)
	case *TableFunc:
		if x.Lateral {
			b.WriteString("LATERAL ")
		}
		pr.funcCall(b, x.Func)
		if x.WithOrdinality {
			b.WriteString(" WITH ORDINALITY")
		}
		pr.alias(b, x.Alias)
		if x.WithOffset != nil {
			b.WriteString(" WITH OFFSET AS ")
			writeIdent(b, *x.WithOffset)
		}
	case *ValuesTable:
		b.WriteByte('(')
		pr.values(b, x.Values)
		b.WriteByte(')')
		pr.alias(b, x.Alias)
	case *Join:
		pr.tableExpr(b, x.Left)
		b.WriteByte(' ')
		if x.Natural {
			b.WriteString("NATURAL ")
		}
		b.WriteString(x.Kind)
		b.WriteString(" JOIN ")
		_, nested := x.Right.(*Join)
		if nested {
			b.WriteByte('(')
		}
		pr.tableExpr(b, x.Right)
		if nested {
			b.WriteByte(')')
		}
		if x.On != nil {
			b.WriteString(" ON ")
			pr.Expr(b, x.On)
		}
		if len(x.Using) > 0 {
			b.WriteString(" USING (")
			writeIdents(b, x.Using, ", ")
			b.WriteByte(')')
		}
	}
}

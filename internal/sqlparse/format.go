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
	writeEach(b, sep, ids, func(id Ident) { writeIdent(b, id) })
}

// writeIdentList writes (a, b, …).
func writeIdentList(b *strings.Builder, ids []Ident) {
	b.WriteByte('(')
	writeIdents(b, ids, ", ")
	b.WriteByte(')')
}

func writeString(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", "''"))
	b.WriteByte('\'')
}

// writeEach writes each item with write, sep between them.
func writeEach[T any](b *strings.Builder, sep string, items []T, write func(T)) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		write(it)
	}
}

// writeNot writes " NOT" for a negated predicate.
func writeNot(b *strings.Builder, not bool) {
	if not {
		b.WriteString(" NOT")
	}
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
		if pr.Column == nil || !pr.Column(b, x) {
			writeIdents(b, x.Parts, ".")
		}
	case *Literal, *TypedLiteral, *Interval, *Param, *Special, *Star:
		pr.constant(b, x)
	case *Unary, *Binary, *Paren, *Cast, *Collate, *AtTimeZone, *Subscript, *Field:
		pr.operator(b, x)
	case *In, *Between, *Like, *Is, *Quantified:
		pr.predicate(b, x)
	case *Subquery, *Exists, *Array, *Struct, *Map, *Row:
		pr.constructor(b, x)
	default:
		pr.call(b, x)
	}
}

// startsWithOperator reports whether e prints starting with an operator's
// character: a prefix operator, or a star that names no table.
func startsWithOperator(e Expr) bool {
	switch x := e.(type) {
	case *Unary:
		return true
	case *Star:
		return len(x.Qualifier) == 0
	}
	return false
}

// constant prints a literal, a parameter or a niladic keyword.
func (pr *Printer) constant(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Literal:
		if x.Kind == LitString {
			if !x.IsText() {
				b.WriteString(x.Prefix) // bits or bytes; text prints as text
			}
			writeString(b, x.Text)
		} else {
			b.WriteString(x.Text)
		}
	case *TypedLiteral:
		b.WriteString("CAST(")
		writeString(b, x.Value)
		b.WriteString(" AS " + x.Type + ")")
	case *Interval:
		b.WriteString("INTERVAL ")
		if l, ok := x.Value.(*Literal); ok && l.Kind == LitNumber {
			writeString(b, l.Text)
		} else {
			pr.Expr(b, x.Value)
		}
		if x.Unit != "" {
			b.WriteString(" " + x.Unit)
		}
	case *Param:
		b.WriteString(x.Text)
	case *Special:
		b.WriteString(x.Name)
	case *Star:
		for _, q := range x.Qualifier {
			writeIdent(b, q)
			b.WriteByte('.')
		}
		b.WriteByte('*')
	}
}

// operator prints an operator applied to operands.
func (pr *Printer) operator(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Unary:
		b.WriteString(x.Op)
		// Two prefix operators side by side would lex as one ("--" even
		// starts a comment), as would an operator and a bare star ("~*" is
		// a regular expression match): a space keeps them apart.
		if x.Op == "NOT" || x.Op == "PRIOR" || x.Op == "CONNECT_BY_ROOT" || startsWithOperator(x.X) {
			b.WriteByte(' ')
		}
		pr.Expr(b, x.X)
	case *Binary:
		op := x.Op
		switch op {
		case "!=":
			op = "<>"
		case "==":
			op = "="
		}
		pr.infix(b, x.L, " "+op+" ", x.R)
	case *Paren:
		pr.wrapped(b, "(", x.X, ")")
	case *Cast:
		b.WriteString(x.Kind)
		if x.Format == nil {
			pr.wrapped(b, "(", x.X, " AS "+x.Type.Text+")")
			break
		}
		pr.wrapped(b, "(", x.X, " AS "+x.Type.Text+" FORMAT ")
		pr.Expr(b, x.Format)
		if x.Zone != nil {
			b.WriteString(" AT TIME ZONE ")
			pr.Expr(b, x.Zone)
		}
		b.WriteByte(')')
	case *Collate:
		pr.Expr(b, x.X)
		b.WriteString(" COLLATE " + x.Collation)
	case *AtTimeZone:
		pr.infix(b, x.X, " AT TIME ZONE ", x.Zone)
	case *Subscript:
		pr.Expr(b, x.X)
		b.WriteByte('[')
		if f, ok := x.Index.(*Func); ok && isOffsetCall(f) {
			// Written as read (parser.subscript): quoted, the keyword
			// would read back as a name, or in BigQuery as a string.
			b.WriteString("OFFSET(")
			pr.Expr(b, f.Args[0])
			b.WriteByte(')')
		} else if x.Index != nil {
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
		pr.field(b, x)
	}
}

func (pr *Printer) field(b *strings.Builder, x *Field) {
	if _, number := x.X.(*Literal); number {
		// "0 .a" printed as "0.a" would read back as a number.
		pr.wrapped(b, "(", x.X, ")")
	} else {
		pr.Expr(b, x.X)
	}
	if x.Colon {
		b.WriteByte(':')
	} else {
		b.WriteByte('.')
	}
	writeIdent(b, Ident{Name: x.Name})
}

// predicate prints IN, BETWEEN, LIKE, IS and quantified comparisons.
func (pr *Printer) predicate(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *In:
		pr.Expr(b, x.X)
		writeNot(b, x.Not)
		b.WriteString(" IN (")
		if x.Query != nil {
			pr.nested(b, x.Query)
		} else {
			pr.exprs(b, x.List)
		}
		b.WriteByte(')')
	case *Between:
		pr.Expr(b, x.X)
		writeNot(b, x.Not)
		between := " BETWEEN "
		if x.Symmetric {
			between = " BETWEEN SYMMETRIC "
		}
		pr.infix(b, x.Lo, " AND ", x.Hi, between)
	case *Like:
		pr.Expr(b, x.X)
		writeNot(b, x.Not)
		b.WriteString(" " + x.Op)
		if x.Quantifier != "" {
			b.WriteString(" " + x.Quantifier)
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
		b.WriteString(" " + x.Op + " " + x.Quant)
		pr.queryOrExpr(b, "(", x.Query, x.Array, ")")
	}
}

// constructor prints a subquery, EXISTS, an array, a struct or a row.
func (pr *Printer) constructor(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Subquery:
		pr.queryOrExpr(b, "(", x.Query, nil, ")")
	case *Exists:
		pr.queryOrExpr(b, "EXISTS(", x.Query, nil, ")")
	case *Array:
		if x.Query != nil {
			pr.queryOrExpr(b, "ARRAY(", x.Query, nil, ")")
			return
		}
		b.WriteByte('[')
		pr.exprs(b, x.Elems)
		b.WriteByte(']')
	case *Struct:
		pr.keyValues(b, x.Values, func(i int) { writeString(b, x.Keys[i]) })
	case *Map:
		b.WriteString("MAP ")
		pr.keyValues(b, x.Values, func(i int) { pr.Expr(b, x.Keys[i]) })
	case *Row:
		// ROW() even when empty: a bare "()" is no expression.
		b.WriteString("ROW(")
		for i, e := range x.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			pr.Expr(b, e)
			if x.Names != nil {
				writeAs(b, x.Names[i])
			}
		}
		b.WriteByte(')')
	}
}

// call prints a function call, a named argument, CASE, EXTRACT or a
// lambda.
func (pr *Printer) call(b *strings.Builder, e Expr) {
	switch x := e.(type) {
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
	case *Case:
		pr.caseExpr(b, x)
	case *Extract:
		pr.wrapped(b, "EXTRACT("+x.Field+" FROM ", x.X, ")")
	case *Lambda:
		if len(x.Params) == 1 {
			writeIdent(b, x.Params[0])
		} else {
			writeIdentList(b, x.Params)
		}
		b.WriteString(" -> ")
		pr.Expr(b, x.Body)
	case *Columns:
		b.WriteString("COLUMNS(")
		switch {
		case x.Star != nil:
			pr.selectItem(b, x.Star)
		case x.Pattern != nil:
			pr.Expr(b, x.Pattern)
		case x.Names != nil:
			pr.Expr(b, x.Names)
		case x.Lambda != nil:
			pr.Expr(b, x.Lambda)
		}
		b.WriteByte(')')
	}
}

func (pr *Printer) caseExpr(b *strings.Builder, x *Case) {
	b.WriteString("CASE")
	if x.Operand != nil {
		b.WriteByte(' ')
		pr.Expr(b, x.Operand)
	}
	for _, w := range x.Whens {
		pr.infix(b, w.Cond, " THEN ", w.Result, " WHEN ")
	}
	if x.Else != nil {
		b.WriteString(" ELSE ")
		pr.Expr(b, x.Else)
	}
	b.WriteString(" END")
}

// infix prints l op r, after lead when one is given.
func (pr *Printer) infix(b *strings.Builder, l Expr, op string, r Expr, lead ...string) {
	for _, s := range lead {
		b.WriteString(s)
	}
	pr.Expr(b, l)
	b.WriteString(op)
	pr.Expr(b, r)
}

// wrapped prints open, e, close.
func (pr *Printer) wrapped(b *strings.Builder, open string, e Expr, close string) {
	b.WriteString(open)
	pr.Expr(b, e)
	b.WriteString(close)
}

// queryOrExpr prints open, the nested query (or, without one, e), close.
func (pr *Printer) queryOrExpr(b *strings.Builder, open string, q *Query, e Expr, close string) {
	b.WriteString(open)
	if q != nil {
		pr.nested(b, q)
	} else {
		pr.Expr(b, e)
	}
	b.WriteString(close)
}

func (pr *Printer) exprs(b *strings.Builder, list []Expr) {
	writeEach(b, ", ", list, func(e Expr) { pr.Expr(b, e) })
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
	writeEach(&b, ".", f.Name, func(id Ident) { b.WriteString(strings.ToUpper(id.Name)) })
	return b.String()
}

// groupingItems writes GROUP BY items, where "()" is the empty grouping set;
// anywhere else an empty row is ROW().
func (pr *Printer) groupingItems(b *strings.Builder, items []Expr) {
	writeEach(b, ", ", items, func(e Expr) {
		if r, ok := e.(*Row); ok && len(r.Elems) == 0 {
			b.WriteString("()")
			return
		}
		pr.Expr(b, e)
	})
}

// isOffsetCall reports whether f is BigQuery's OFFSET(i), as a subscript
// holds it: the unquoted keyword and one argument.
func isOffsetCall(f *Func) bool {
	return len(f.Name) == 1 && !f.Name[0].Quoted && strings.EqualFold(f.Name[0].Name, "offset") && len(f.Args) == 1 &&
		!f.Star && !f.Distinct && f.OrderBy == nil && f.WithinGroup == nil && f.Filter == nil && f.NullsMode == "" && f.Over == nil &&
		f.Limit == nil && f.Separator == nil
}

func (pr *Printer) funcCall(b *strings.Builder, f *Func) {
	// Upper case reads back as the same name only for a plain one; any
	// other is written quoted, as given, and so is a function named
	// columns, which DuckDB reads as its COLUMNS(…) unquoted.
	bare := len(f.Name) > 1 || f.Name[0].Name != "columns"
	writeEach(b, ".", f.Name, func(id Ident) {
		if !id.Quoted && bare && plainName(strings.ToLower(id.Name)) {
			b.WriteString(strings.ToUpper(id.Name))
		} else {
			writeQuoted(b, id.Name)
		}
	})
	b.WriteByte('(')
	if f.Distinct {
		b.WriteString("DISTINCT ")
	}
	if f.Star {
		b.WriteByte('*')
	}
	pr.exprs(b, f.Args)
	if f.NullsMode != "" {
		b.WriteString(" " + f.NullsMode)
	}
	pr.orderBy(b, " ORDER BY ", f.OrderBy)
	pr.clause(b, " LIMIT ", f.Limit)
	pr.clause(b, " SEPARATOR ", f.Separator)
	b.WriteByte(')')
	if len(f.WithinGroup) > 0 {
		pr.orderBy(b, " WITHIN GROUP (ORDER BY ", f.WithinGroup)
		b.WriteByte(')')
	}
	if f.Filter != nil {
		pr.wrapped(b, " FILTER(WHERE ", f.Filter, ")")
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
	pr.windowSpec(b, w)
}

// windowSpec prints w in its parentheses, as a WINDOW clause's
// definitions are written even when they only name another: AS (w1).
func (pr *Printer) windowSpec(b *strings.Builder, w *Window) {
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
		pr.orderBy(b, sep+"ORDER BY ", w.OrderBy)
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

// orderBy writes lead and the items, when there are any.
func (pr *Printer) orderBy(b *strings.Builder, lead string, items []*OrderItem) {
	if len(items) == 0 {
		return
	}
	b.WriteString(lead)
	writeEach(b, ", ", items, func(it *OrderItem) {
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
	})
}

// clause writes lead and e, when there is an e.
func (pr *Printer) clause(b *strings.Builder, lead string, e Expr) {
	if e != nil {
		pr.wrapped(b, lead, e, "")
	}
}

// query prints a whole query.
func (pr *Printer) query(b *strings.Builder, q *Query) {
	if len(q.With) > 0 {
		b.WriteString("WITH ")
		if q.Recursive {
			b.WriteString("RECURSIVE ")
		}
		writeEach(b, ", ", q.With, func(c *CTE) {
			writeIdent(b, c.Name)
			if len(c.Columns) > 0 {
				writeIdentList(b, c.Columns)
			}
			b.WriteString(" AS (")
			pr.query(b, c.Query)
			b.WriteByte(')')
		})
		b.WriteByte(' ')
	}
	pr.setExpr(b, q.Body)
	pr.orderBy(b, " ORDER BY ", q.OrderBy)
	if q.OrderByAll != "" {
		b.WriteString(" ORDER BY ALL " + q.OrderByAll)
	}
	if len(q.ClusterBy) > 0 {
		b.WriteString(" CLUSTER BY ")
		pr.exprs(b, q.ClusterBy)
	}
	if len(q.DistributeBy) > 0 {
		b.WriteString(" DISTRIBUTE BY ")
		pr.exprs(b, q.DistributeBy)
	}
	pr.orderBy(b, " SORT BY ", q.SortBy)
	if q.WithTies {
		pr.clause(b, " OFFSET ", q.Offset)
		pr.wrapped(b, " FETCH FIRST ", q.Limit, " ROWS WITH TIES")
		return
	}
	pr.clause(b, " LIMIT ", q.Limit)
	if q.LimitPercent {
		b.WriteString(" PERCENT")
	}
	pr.clause(b, " OFFSET ", q.Offset)
}

func (pr *Printer) setExpr(b *strings.Builder, s SetExpr) {
	switch x := s.(type) {
	case *Select:
		pr.selectCore(b, x)
	case *SetOp:
		pr.setExpr(b, x.Left)
		b.WriteString(" " + x.Op)
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
	case *Pivot:
		pr.pivotStatement(b, x)
	case *Unpivot:
		pr.unpivotStatement(b, x)
	}
}

// pivotStatement writes DuckDB's PIVOT statement.
func (pr *Printer) pivotStatement(b *strings.Builder, x *Pivot) {
	b.WriteString("PIVOT ")
	pr.tableExpr(b, x.Source)
	b.WriteString(" ON ")
	pr.exprs(b, x.For)
	if !x.Any {
		b.WriteString(" IN (")
		pr.pivotValues(b, x.In)
		b.WriteByte(')')
	}
	b.WriteString(" USING ")
	pr.pivotAggs(b, x.Aggs)
	if len(x.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		pr.exprs(b, x.GroupBy)
	}
}

// unpivotStatement writes DuckDB's UNPIVOT statement.
func (pr *Printer) unpivotStatement(b *strings.Builder, x *Unpivot) {
	b.WriteString("UNPIVOT ")
	if x.Nulls != "" {
		b.WriteString(x.Nulls + " ")
	}
	pr.tableExpr(b, x.Source)
	b.WriteString(" ON ")
	pr.unpivotIn(b, x.In)
	b.WriteString(" INTO NAME ")
	writeIdent(b, x.Name)
	b.WriteString(" VALUE ")
	writeIdents(b, x.Values, ", ")
}

// pivotAggs writes a PIVOT's aggregates, each with its alias.
func (pr *Printer) pivotAggs(b *strings.Builder, aggs []*PivotAgg) {
	writeEach(b, ", ", aggs, func(a *PivotAgg) {
		pr.funcCall(b, a.Func)
		writeAs(b, a.Alias)
	})
}

// pivotValues writes a PIVOT's IN values, each with its alias.
func (pr *Printer) pivotValues(b *strings.Builder, values []*PivotValue) {
	writeEach(b, ", ", values, func(v *PivotValue) {
		pr.Expr(b, v.Value)
		writeAs(b, v.Alias)
	})
}

// unpivotIn writes an UNPIVOT's entries.
func (pr *Printer) unpivotIn(b *strings.Builder, in []*UnpivotColumns) {
	writeEach(b, ", ", in, func(in *UnpivotColumns) {
		writeNames(b, in.Columns)
		writeAs(b, in.Alias)
		if in.Label != nil {
			b.WriteString(" AS ")
			pr.Expr(b, in.Label)
		}
	})
}

func (pr *Printer) values(b *strings.Builder, v *Values) {
	b.WriteString("VALUES ")
	writeEach(b, ", ", v.Rows, func(row []Expr) {
		b.WriteByte('(')
		pr.exprs(b, row)
		b.WriteByte(')')
	})
}

func (pr *Printer) selectCore(b *strings.Builder, s *Select) {
	b.WriteString("SELECT ")
	if s.Top != nil {
		pr.wrapped(b, "TOP ", s.Top, " ")
	}
	if s.Distinct {
		b.WriteString("DISTINCT ")
		if len(s.DistinctOn) > 0 {
			b.WriteString("ON (")
			pr.exprs(b, s.DistinctOn)
			b.WriteString(") ")
		}
	}
	writeEach(b, ", ", s.Items, func(it *SelectItem) { pr.selectItem(b, it) })
	if len(s.From) > 0 {
		b.WriteString(" FROM ")
		for i, t := range s.From {
			if f, ok := t.(*TableFunc); ok && f.View {
				pr.lateralView(b, f)
				continue
			}
			if i > 0 {
				b.WriteString(", ")
			}
			pr.tableExpr(b, t)
		}
	}
	pr.clause(b, " START WITH ", s.StartWith)
	if s.ConnectBy != nil {
		b.WriteString(" CONNECT BY ")
		if s.NoCycle {
			b.WriteString("NOCYCLE ")
		}
		pr.Expr(b, s.ConnectBy)
	}
	pr.clause(b, " WHERE ", s.Where)
	if s.GroupByAll {
		b.WriteString(" GROUP BY ALL")
	} else if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		pr.groupingItems(b, s.GroupBy)
	}
	pr.clause(b, " HAVING ", s.Having)
	if len(s.Windows) > 0 {
		b.WriteString(" WINDOW ")
		writeEach(b, ", ", s.Windows, func(w *NamedWindow) {
			writeIdent(b, w.Name)
			b.WriteString(" AS ")
			pr.windowSpec(b, w.Spec)
		})
	}
	pr.clause(b, " QUALIFY ", s.Qualify)
}

func (pr *Printer) selectItem(b *strings.Builder, it *SelectItem) {
	if !it.Star {
		pr.Expr(b, it.Expr)
		if it.Alias != nil {
			b.WriteString(" AS ")
			writeIdent(b, *it.Alias)
		}
		if len(it.Aliases) > 0 {
			b.WriteString(" AS ")
			writeIdentList(b, it.Aliases)
		}
		return
	}
	for _, q := range it.Qualifier {
		writeIdent(b, q)
		b.WriteByte('.')
	}
	b.WriteByte('*')
	if len(it.Exclude) > 0 {
		b.WriteString(" EXCLUDE ")
		writeIdentList(b, it.Exclude)
	}
	if len(it.Replace) > 0 {
		b.WriteString(" REPLACE (")
		writeEach(b, ", ", it.Replace, func(r *SelectItem) { pr.selectItem(b, r) })
		b.WriteByte(')')
	}
	if len(it.Rename) > 0 {
		b.WriteString(" RENAME (")
		writeEach(b, ", ", it.Rename, func(r [2]Ident) {
			writeIdent(b, r[0])
			b.WriteString(" AS ")
			writeIdent(b, r[1])
		})
		b.WriteByte(')')
	}
	if m := it.Match; m != nil {
		writeNot(b, m.Not)
		b.WriteString(" " + m.Op + " ")
		writeString(b, m.Pattern)
	}
}

func (pr *Printer) alias(b *strings.Builder, a *Alias) {
	if a == nil {
		return
	}
	b.WriteString(" AS ")
	writeIdent(b, a.Name)
	switch {
	case a.Types != nil:
		b.WriteByte('(')
		for i, c := range a.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			writeIdent(b, c)
			b.WriteString(" " + a.Types[i].Text)
		}
		b.WriteByte(')')
	case len(a.Columns) > 0:
		writeIdentList(b, a.Columns)
	}
}

// keyValues writes {key: value, …}, the i-th key written by key.
func (pr *Printer) keyValues(b *strings.Builder, values []Expr, key func(i int)) {
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		key(i)
		b.WriteString(": ")
		pr.Expr(b, v)
	}
	b.WriteByte('}')
}

// lateralView writes Databricks' LATERAL VIEW [OUTER] f(…) t AS c, d.
func (pr *Printer) lateralView(b *strings.Builder, f *TableFunc) {
	b.WriteString(" LATERAL VIEW ")
	if f.Outer {
		b.WriteString("OUTER ")
	}
	pr.funcCall(b, f.Func)
	if f.Alias.Name.Name != "" {
		b.WriteByte(' ')
		writeIdent(b, f.Alias.Name)
	}
	if len(f.Alias.Columns) > 0 {
		b.WriteString(" AS ")
		writeIdents(b, f.Alias.Columns, ", ")
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
		pr.join(b, x)
	case *Pivot:
		pr.pivot(b, x)
	case *Unpivot:
		pr.unpivot(b, x)
	}
}

// turned writes the FROM item a PIVOT or UNPIVOT turns: a join in
// parentheses, which it turns as a whole.
func (pr *Printer) turned(b *strings.Builder, t TableExpr) {
	if _, join := t.(*Join); join {
		b.WriteByte('(')
		pr.tableExpr(b, t)
		b.WriteByte(')')
		return
	}
	pr.tableExpr(b, t)
}

func (pr *Printer) pivot(b *strings.Builder, x *Pivot) {
	pr.turned(b, x.Source)
	b.WriteString(" PIVOT (")
	pr.pivotAggs(b, x.Aggs)
	b.WriteString(" FOR ")
	if len(x.For) == 1 {
		pr.Expr(b, x.For[0])
	} else {
		b.WriteByte('(')
		pr.exprs(b, x.For)
		b.WriteByte(')')
	}
	b.WriteString(" IN (")
	switch {
	case x.Any:
		b.WriteString("ANY")
		pr.orderBy(b, " ORDER BY ", x.AnyOrder)
	case x.InQuery != nil:
		pr.query(b, x.InQuery)
	default:
		pr.pivotValues(b, x.In)
	}
	b.WriteByte(')')
	if x.Default != nil {
		b.WriteString(" DEFAULT ON NULL (")
		pr.Expr(b, x.Default)
		b.WriteByte(')')
	}
	b.WriteByte(')')
	pr.alias(b, x.Alias)
}

func (pr *Printer) unpivot(b *strings.Builder, x *Unpivot) {
	pr.turned(b, x.Source)
	b.WriteString(" UNPIVOT ")
	if x.Nulls != "" {
		b.WriteString(x.Nulls + " ")
	}
	b.WriteByte('(')
	writeNames(b, x.Values)
	b.WriteString(" FOR ")
	writeIdent(b, x.Name)
	b.WriteString(" IN (")
	pr.unpivotIn(b, x.In)
	b.WriteString("))")
	pr.alias(b, x.Alias)
}

// writeNames writes a name, or (a, b, …) for more than one.
func writeNames(b *strings.Builder, ids []Ident) {
	if len(ids) == 1 {
		writeIdent(b, ids[0])
		return
	}
	writeIdentList(b, ids)
}

// writeAs writes " AS name" for a name given.
func writeAs(b *strings.Builder, id *Ident) {
	if id != nil {
		b.WriteString(" AS ")
		writeIdent(b, *id)
	}
}

func (pr *Printer) join(b *strings.Builder, x *Join) {
	pr.tableExpr(b, x.Left)
	b.WriteByte(' ')
	if x.Natural {
		b.WriteString("NATURAL ")
	}
	b.WriteString(x.Kind + " JOIN ")
	if _, nested := x.Right.(*Join); nested {
		b.WriteByte('(')
		pr.tableExpr(b, x.Right)
		b.WriteByte(')')
	} else {
		pr.tableExpr(b, x.Right)
	}
	pr.clause(b, " ON ", x.On)
	if len(x.Using) > 0 {
		b.WriteString(" USING ")
		writeIdentList(b, x.Using)
	}
}

package sqlparse

// Node is any node of the tree: an Expr, a SetExpr, a TableExpr, or one of
// the parts that are none of these (*CTE, *SelectItem, *NamedWindow,
// *Window, *OrderItem). Names (Ident, Alias), types (TypeName) and CASE arms
// (When) are fields of their nodes, not nodes.
type Node interface{ node() }

// A Visitor's Visit method is called for each node Walk meets. If the
// visitor w it returns is not nil, Walk visits each of the node's children
// with w, then calls w.Visit(nil).
type Visitor interface {
	Visit(n Node) (w Visitor)
}

// Walk traverses the tree rooted at n depth-first: it calls v.Visit(n), and
// then, unless that returned nil, walks n's children in the order they are
// written (a query's WITH list before its body, a SELECT's items before its
// FROM list, an operator's left operand before its right). It goes into
// every nested query: a caller that stops at a subquery returns nil when
// it meets the *Query. Nil children are skipped.
func Walk(v Visitor, n Node) {
	if v = v.Visit(n); v == nil {
		return
	}
	walkChildren(v, n)
	v.Visit(nil)
}

type inspector func(Node) bool

func (f inspector) Visit(n Node) Visitor {
	if f(n) {
		return f
	}
	return nil
}

// Inspect traverses the tree rooted at n as Walk does, calling f(n) for
// each node; f returns false to skip a node's children. After the children
// of a node f returned true for, f is called with nil.
func Inspect(n Node, f func(Node) bool) {
	Walk(inspector(f), n)
}

// walkChildren walks each child of n with v.
func walkChildren(v Visitor, n Node) {
	switch x := n.(type) {
	// Queries.
	case *Query:
		walkEach(v, x.With)
		walkNode(v, x.Body)
		walkEach(v, x.OrderBy)
		walkExprs(v, x.ClusterBy...)
		walkExprs(v, x.DistributeBy...)
		walkEach(v, x.SortBy)
		walkExprs(v, x.Limit, x.Offset)
	case *CTE:
		Walk(v, x.Query)
	case *SetOp:
		walkNode(v, x.Left)
		walkNode(v, x.Right)
	case *Values:
		for _, row := range x.Rows {
			walkExprs(v, row...)
		}
	case *Select:
		walkExprs(v, x.Top)
		walkExprs(v, x.DistinctOn...)
		walkEach(v, x.Items)
		for _, t := range x.From {
			walkNode(v, t)
		}
		walkExprs(v, x.StartWith, x.ConnectBy, x.Where)
		walkExprs(v, x.GroupBy...)
		walkExprs(v, x.Having, x.Qualify)
		walkEach(v, x.Windows)
	case *SelectItem:
		walkEach(v, x.Replace)
		walkExprs(v, x.Expr)
	case *NamedWindow:
		Walk(v, x.Spec)
	case *Window:
		walkExprs(v, x.PartitionBy...)
		walkEach(v, x.OrderBy)
		walkExprs(v, x.FrameExprs...)
	case *OrderItem:
		walkExprs(v, x.Expr)

	// FROM items.
	case *DerivedTable:
		Walk(v, x.Query)
	case *TableFunc:
		Walk(v, x.Func)
	case *ValuesTable:
		Walk(v, x.Values)
	case *Join:
		walkNode(v, x.Left)
		walkNode(v, x.Right)
		walkExprs(v, x.On)
	case *Pivot:
		walkNode(v, x.Source)
		for _, a := range x.Aggs {
			Walk(v, a.Func)
		}
		walkExprs(v, x.For...)
		for _, in := range x.In {
			walkExprs(v, in.Value)
		}
		walkEach(v, x.AnyOrder)
		walkQuery(v, x.InQuery)
		walkExprs(v, x.Default)
		walkExprs(v, x.GroupBy...)
	case *Unpivot:
		walkNode(v, x.Source)
		for _, in := range x.In {
			if in.Label != nil {
				Walk(v, in.Label)
			}
		}

	default:
		walkExprChildren(v, n)
	}
}

// walkExprChildren walks the children of an expression node.
func walkExprChildren(v Visitor, n Node) {
	switch x := n.(type) {
	case *Interval:
		walkExprs(v, x.Value)
	case *Unary:
		walkExprs(v, x.X)
	case *Binary:
		walkExprs(v, x.L, x.R)
	case *Paren:
		walkExprs(v, x.X)
	case *Func:
		walkExprs(v, x.Args...)
		walkEach(v, x.OrderBy)
		walkExprs(v, x.Limit, x.Separator)
		walkEach(v, x.WithinGroup)
		walkExprs(v, x.Filter)
		if x.Over != nil {
			Walk(v, x.Over)
		}
	case *NamedArg:
		walkExprs(v, x.Value)
	case *Cast:
		walkExprs(v, x.X, x.Format, x.Zone)
	case *Case:
		walkExprs(v, x.Operand)
		for _, w := range x.Whens {
			walkExprs(v, w.Cond, w.Result)
		}
		walkExprs(v, x.Else)
	case *Subquery:
		Walk(v, x.Query)
	case *Exists:
		Walk(v, x.Query)
	case *In:
		walkExprs(v, x.X)
		walkExprs(v, x.List...)
		walkQuery(v, x.Query)
	case *Between:
		walkExprs(v, x.X, x.Lo, x.Hi)
	case *Like:
		walkExprs(v, x.X, x.Pattern, x.Escape)
	case *Is:
		walkExprs(v, x.X, x.DistinctFrom)
	case *Quantified:
		walkExprs(v, x.X)
		walkQuery(v, x.Query)
		walkExprs(v, x.Array)
	case *Array:
		walkExprs(v, x.Elems...)
		walkQuery(v, x.Query)
	case *Struct:
		walkExprs(v, x.Values...)
	case *Map:
		for i := range x.Keys {
			walkExprs(v, x.Keys[i], x.Values[i])
		}
	case *Row:
		walkExprs(v, x.Elems...)
	case *Subscript:
		walkExprs(v, x.X, x.Index, x.Upper)
	case *Field:
		walkExprs(v, x.X)
	case *Extract:
		walkExprs(v, x.X)
	case *Lambda:
		walkExprs(v, x.Body)
	case *Collate:
		walkExprs(v, x.X)
	case *AtTimeZone:
		walkExprs(v, x.X, x.Zone)
	case *Columns:
		switch {
		case x.Star != nil:
			Walk(v, x.Star)
		case x.Pattern != nil:
			Walk(v, x.Pattern)
		case x.Names != nil:
			Walk(v, x.Names)
		case x.Lambda != nil:
			Walk(v, x.Lambda)
		}
	}
	// ColumnRef, Literal, TypedLiteral, Param, Special, Star and Table have
	// no children.
}

func walkNode(v Visitor, n Node) {
	if n != nil {
		Walk(v, n)
	}
}

func walkExprs(v Visitor, list ...Expr) {
	for _, e := range list {
		if e != nil {
			Walk(v, e)
		}
	}
}

// walkEach walks each node of a list none of whose entries is nil.
func walkEach[N Node](v Visitor, list []N) {
	for _, n := range list {
		Walk(v, n)
	}
}

func walkQuery(v Visitor, q *Query) {
	if q != nil {
		Walk(v, q)
	}
}

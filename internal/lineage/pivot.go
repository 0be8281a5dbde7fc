package lineage

import (
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// PIVOT and UNPIVOT are read as the queries they stand for, over the FROM
// item they turn, and then as a subquery in FROM: their columns' lineage,
// signatures and canonical values are those of the equivalent SQL.
//
//	s PIVOT (SUM(amount) AS total FOR quarter IN ('Q1', 'Q2'))
//	  = SELECT * EXCLUDE (amount, quarter),
//	      SUM(amount) FILTER (WHERE quarter = 'Q1') AS q1_total, …
//	    FROM s GROUP BY ALL
//	s UNPIVOT (sales FOR month IN (jan, feb))
//	  = SELECT * EXCLUDE (jan, feb), 'jan' AS month, jan AS sales FROM s
//	    UNION ALL SELECT * EXCLUDE (jan, feb), 'feb' AS month, feb AS sales FROM s
//
// So a pivoted column is derived from the aggregate's arguments and the
// columns it is pivoted on, as the conditional aggregate it equals is, and
// an unpivoted value passes on each column it gathers, one entry each, as a
// UNION ALL's column does. (The UNPIVOT is resolved as the columns it keeps
// beside the UNION ALL of the ones it gathers, so that its source is read
// once however many branches it has: the same columns and lineage, and a
// row signature of that form.) The rows UNPIVOT leaves out (all values null,
// unless INCLUDE NULLS) are its WHERE: the columns it gathers decide how many
// rows the others' values come in, as DISTINCT's keys do.

// addTurned adds a PIVOT or UNPIVOT of the FROM clause, resolved through
// the query it stands for.
func (sc *scope) addTurned(t sqlparse.TableExpr, sig *strings.Builder) {
	a := sc.a
	var r *rel
	var alias *sqlparse.Alias
	var chosen string
	switch x := t.(type) {
	case *sqlparse.Pivot:
		alias, chosen = x.Alias, x.Chosen
		// A column for each value and each aggregate: a product of two
		// lists of the text, charged before any is made.
		a.m.nodes(len(x.In) * len(x.Aggs))
		r = a.query(pivotQuery(x, a.dialect), sc.env, sc.parent, nil)
		if _, known := a.dialect.PivotColumns(x); !known {
			r = a.dynamicPivot(x, r, sc)
		}
	case *sqlparse.Unpivot:
		alias, chosen = x.Alias, x.Chosen
		r = a.query(unpivotQuery(x, a.dialect), sc.env, sc.parent, nil)
	}
	name := turnedName(t)
	if alias != nil && len(alias.Columns) > 0 {
		r = a.renameCols(r, alias.Columns)
	}
	sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
	a.mergeRows(sc.rows, r.rows)
	sig.WriteString("(" + r.rows.key() + ")" + chosen)
}

// turnedName is the name a FROM item is read by: its alias, else a table's
// name, else the name of what a PIVOT or UNPIVOT without an alias turns.
func turnedName(t sqlparse.TableExpr) string {
	var alias *sqlparse.Alias
	switch x := t.(type) {
	case *sqlparse.Table:
		if x.Alias == nil {
			return x.Name[len(x.Name)-1].Name
		}
		alias = x.Alias
	case *sqlparse.Pivot:
		if x.Alias == nil {
			return turnedName(x.Source)
		}
		alias = x.Alias
	case *sqlparse.Unpivot:
		if x.Alias == nil {
			return turnedName(x.Source)
		}
		alias = x.Alias
	case *sqlparse.DerivedTable:
		alias = x.Alias
	case *sqlparse.TableFunc:
		alias = x.Alias
	case *sqlparse.ValuesTable:
		alias = x.Alias
	}
	if alias == nil {
		return ""
	}
	return alias.Name.Name
}

// pivotQuery is the query p stands for: the columns of its source it does
// not read, and for each value and aggregate the aggregate over the rows
// holding the value, grouped by the others. A pivot over the values the
// data holds (IN (ANY)) has only the former (dynamicPivot adds the rest).
func pivotQuery(p *sqlparse.Pivot, d sqlparse.Dialect) *sqlparse.Query {
	grouped := &sqlparse.Select{From: []sqlparse.TableExpr{p.Source}, GroupBy: p.GroupBy, GroupByAll: len(p.GroupBy) == 0}
	items := []*sqlparse.SelectItem{{Star: true, Exclude: pivotReads(p)}}
	if len(p.GroupBy) > 0 { // DuckDB's statement: the groups as written
		items = items[:0]
		for _, g := range p.GroupBy {
			items = append(items, &sqlparse.SelectItem{Expr: g})
		}
	}
	made := len(items)
	names, _ := d.PivotColumns(p)
	for _, v := range p.In {
		cond := pivotCondition(p.For, v.Value)
		for _, agg := range p.Aggs {
			f := *agg.Func
			f.Filter = and(f.Filter, cond)
			var e sqlparse.Expr = &f
			if p.Default != nil {
				e = &sqlparse.Func{Name: []sqlparse.Ident{{Name: "coalesce"}}, Args: []sqlparse.Expr{e, p.Default}}
			}
			items = append(items, &sqlparse.SelectItem{Expr: e, Alias: &sqlparse.Ident{Name: names[len(items)-made]}})
		}
	}
	grouped.Items = items
	return &sqlparse.Query{Body: grouped}
}

// pivotReads are the names of the columns p's aggregates and FOR read,
// which its groups leave out, sorted.
func pivotReads(p *sqlparse.Pivot) []sqlparse.Ident {
	var names []string
	read := func(n sqlparse.Node) bool {
		if c, ok := n.(*sqlparse.ColumnRef); ok {
			names = append(names, c.Parts[len(c.Parts)-1].Name)
		}
		return true
	}
	for _, a := range p.Aggs {
		sqlparse.Inspect(a.Func, read)
	}
	for _, c := range p.For {
		sqlparse.Inspect(c, read)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]sqlparse.Ident, len(names))
	for i, n := range names {
		out[i] = sqlparse.Ident{Name: n}
	}
	return out
}

// pivotCondition is the condition of a pivot's rows holding value: each
// column pivoted on equal to its part of the value.
func pivotCondition(cols []sqlparse.Expr, value sqlparse.Expr) sqlparse.Expr {
	parts := []sqlparse.Expr{value}
	if row, ok := value.(*sqlparse.Row); ok && len(row.Elems) == len(cols) {
		parts = row.Elems
	} else if len(cols) > 1 {
		return &sqlparse.Binary{Op: "=", L: &sqlparse.Row{Elems: cols}, R: value}
	}
	var cond sqlparse.Expr
	for i, c := range cols {
		cond = and(cond, &sqlparse.Binary{Op: "=", L: c, R: parts[i]})
	}
	return cond
}

// and is l AND r, either of which may be nil.
func and(l, r sqlparse.Expr) sqlparse.Expr {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	return &sqlparse.Binary{Op: "AND", L: l, R: r}
}

// dynamicPivot is r, the columns a pivot over the values the data holds
// keeps of its source, with the columns it makes: named only when the query
// runs, each name read through it that its source does not list is one,
// derived from what the aggregates and FOR read, and uncertain.
func (a *analyzer) dynamicPivot(p *sqlparse.Pivot, r *rel, sc *scope) *rel {
	items := make([]*sqlparse.SelectItem, 0, len(p.Aggs)+len(p.For))
	for _, agg := range p.Aggs {
		items = append(items, &sqlparse.SelectItem{Expr: agg.Func})
	}
	for _, c := range p.For {
		items = append(items, &sqlparse.SelectItem{Expr: c})
	}
	read := a.query(&sqlparse.Query{Body: &sqlparse.Select{Items: items, From: []sqlparse.TableExpr{p.Source}}}, sc.env, sc.parent, nil)
	made := newRel(relFunc)
	made.complete = false
	made.funcName = "pivot"
	made.funcSources = a.sourcesOf(read.cols...)
	r.complete = false
	r.fallback = append([]*rel{made}, r.fallback...)
	return r
}

// The names of the relations the query an UNPIVOT stands for reads: its
// source, read once however many entries its IN list has; the columns it
// keeps; the rows it gathers. No name a statement writes holds a NUL.
const (
	unpivotSource   = "\x00unpivoted"
	unpivotKept     = "\x00kept"
	unpivotGathered = "\x00gathered"
)

// unpivotQuery is the query u stands for: the columns of its source it does
// not gather, beside, for each entry of its IN list, the entry's name and
// its columns' values, all of them in a UNION ALL. The two sides are
// joined, so that each side is read once: a wide table unpivoted on many
// columns costs its columns plus its entries, not their product.
func unpivotQuery(u *sqlparse.Unpivot, d sqlparse.Dialect) *sqlparse.Query {
	from := func(name string) []sqlparse.TableExpr {
		return []sqlparse.TableExpr{&sqlparse.Table{Name: []sqlparse.Ident{{Name: name}}}}
	}
	star := func(qualifier string) *sqlparse.SelectItem {
		return &sqlparse.SelectItem{Star: true, Qualifier: []sqlparse.Ident{{Name: qualifier}}}
	}
	var gathered []sqlparse.Ident
	for _, in := range u.In {
		gathered = append(gathered, in.Columns...)
	}
	order := d.UnpivotColumns(u)
	var rows sqlparse.SetExpr
	for _, in := range u.In {
		items := make([]*sqlparse.SelectItem, 0, len(order))
		for _, out := range order {
			var e sqlparse.Expr
			if i := slices.Index(u.Values, out); i >= 0 {
				e = &sqlparse.ColumnRef{Parts: []sqlparse.Ident{in.Columns[i]}}
			} else {
				e = unpivotLabel(in)
			}
			items = append(items, &sqlparse.SelectItem{Expr: e, Alias: &sqlparse.Ident{Name: out.Name}})
		}
		branch := &sqlparse.Select{Items: items, From: from(unpivotSource)}
		if u.Nulls != "INCLUDE NULLS" {
			branch.Where = unpivotKeeps(in)
		}
		if rows == nil {
			rows = branch
		} else {
			rows = &sqlparse.SetOp{Op: "UNION", All: true, Left: rows, Right: branch}
		}
	}
	kept := &sqlparse.Select{Items: []*sqlparse.SelectItem{{Star: true, Exclude: gathered}}, From: from(unpivotSource)}
	alias := func(name string) *sqlparse.Alias { return &sqlparse.Alias{Name: sqlparse.Ident{Name: name}} }
	return &sqlparse.Query{
		With: []*sqlparse.CTE{{Name: sqlparse.Ident{Name: unpivotSource},
			Query: &sqlparse.Query{Body: &sqlparse.Select{Items: []*sqlparse.SelectItem{{Star: true}}, From: []sqlparse.TableExpr{u.Source}}}}},
		Body: &sqlparse.Select{
			Items: []*sqlparse.SelectItem{star(unpivotKept), star(unpivotGathered)},
			From: []sqlparse.TableExpr{&sqlparse.Join{Kind: "CROSS",
				Left:  &sqlparse.DerivedTable{Query: &sqlparse.Query{Body: kept}, Alias: alias(unpivotKept)},
				Right: &sqlparse.DerivedTable{Query: &sqlparse.Query{Body: rows}, Alias: alias(unpivotGathered)}}},
		},
	}
}

// unpivotKeeps is the condition on which an UNPIVOT that leaves out nulls
// keeps the row of one entry: not every one of its values is null.
func unpivotKeeps(in *sqlparse.UnpivotColumns) sqlparse.Expr {
	args := make([]sqlparse.Expr, len(in.Columns))
	for i, c := range in.Columns {
		args[i] = &sqlparse.ColumnRef{Parts: []sqlparse.Ident{c}}
	}
	return &sqlparse.Is{X: &sqlparse.Func{Name: []sqlparse.Ident{{Name: "coalesce"}}, Args: args}, Not: true, What: "NULL"}
}

// unpivotLabel is what the name column of an UNPIVOT holds for the rows of
// one entry: its label, its alias, or its columns' names.
func unpivotLabel(in *sqlparse.UnpivotColumns) sqlparse.Expr {
	switch {
	case in.Label != nil:
		return in.Label
	case in.Alias != nil:
		return &sqlparse.Literal{Kind: sqlparse.LitString, Text: in.Alias.Name}
	}
	names := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		names[i] = c.Name
	}
	return &sqlparse.Literal{Kind: sqlparse.LitString, Text: strings.Join(names, "_")}
}

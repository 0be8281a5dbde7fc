package lineage

import (
	"reflect"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// DuckDB's COLUMNS(…): a select item holding one stands for an item for
// each column its selector picks, that column in its place and named by it
// (or by the item's alias, \0 in it standing for the column's name), as
// DuckDB 1.5 names them; anywhere else, an expression holding one reads
// every column it picks.

// columnsIn is the first COLUMNS(…) of e outside its subqueries, nil for
// none.
func columnsIn(e sqlparse.Expr) *sqlparse.Columns {
	var found *sqlparse.Columns
	sqlparse.Inspect(e, func(n sqlparse.Node) bool {
		switch x := n.(type) {
		case *sqlparse.Query:
			return false
		case *sqlparse.Columns:
			if found == nil {
				found = x
			}
			return false
		}
		return found == nil
	})
	return found
}

// columnPicks are the columns c picks of the scope's FROM items; out, when
// not nil, is made incomplete by a FROM item whose columns are not all
// known.
func (sc *scope) columnPicks(c *sqlparse.Columns, out *rel) []starPick {
	if c.Star != nil {
		return sc.starPicks(c.Star, nil, 0, out)
	}
	keep, _ := c.Matcher() // the parser refused a selector it cannot test names with
	return sc.starPicks(&sqlparse.SelectItem{Star: true}, keep, len(sqlparse.Format(c)), out)
}

// expandColumns adds the items that it, a select item holding c, stands
// for.
func (sc *scope) expandColumns(it *sqlparse.SelectItem, c *sqlparse.Columns, out *rel) {
	for _, p := range sc.columnPicks(c, out) {
		parts := []sqlparse.Ident{{Name: p.c.name}}
		if p.f.name != "" {
			parts = []sqlparse.Ident{{Name: p.f.name}, {Name: p.c.name}}
		}
		name := p.c.name
		if it.Alias != nil {
			name = strings.ReplaceAll(it.Alias.Name, `\0`, p.c.name)
		}
		oc := sc.exprCol(withColumn(it.Expr, &sqlparse.ColumnRef{Parts: parts}), name)
		out.add(oc)
		sc.addItem(name, oc)
	}
}

var (
	columnsType = reflect.TypeFor[*sqlparse.Columns]()
	queryType   = reflect.TypeFor[*sqlparse.Query]()
)

// withColumn is a copy of e with ref in place of each COLUMNS(…) outside
// its subqueries, which it shares with e.
func withColumn(e sqlparse.Expr, ref *sqlparse.ColumnRef) sqlparse.Expr {
	return replaced(reflect.ValueOf(&e).Elem(), ref).Interface().(sqlparse.Expr)
}

func replaced(v reflect.Value, ref *sqlparse.ColumnRef) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(replaced(v.Elem(), ref))
		return out
	case reflect.Pointer:
		switch {
		case v.IsNil() || v.Type() == queryType:
			return v
		case v.Type() == columnsType:
			return reflect.ValueOf(ref)
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(replaced(v.Elem(), ref))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			out.Field(i).Set(replaced(v.Field(i), ref))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(replaced(v.Index(i), ref))
		}
		return out
	}
	return v
}

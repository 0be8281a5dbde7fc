package lineage

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// The resolver is split by concern: this file walks a statement (its
// queries, CTEs, set operations, SELECTs and their clauses) and builds the
// result; scope.go holds a SELECT's FROM items and finds the column a name
// means; columns.go the relations and the columns they carry; derive.go
// the columns computed from expressions.

// analyzer resolves one statement within its meter.
type analyzer struct {
	catalog Catalog
	// dialect names the columns of a PIVOT or UNPIVOT as its warehouse
	// does.
	dialect sqlparse.Dialect
	m       *meter
	bases   map[Relation]*rel
	allRels map[Relation]bool
	// subqueries are the expression subqueries resolved, by the scope
	// they were resolved in: each is resolved once however many times an
	// expression holding it is read (a named window read by several
	// calls).
	subqueries map[subqueryKey]*rel
}

type subqueryKey struct {
	q  *sqlparse.Query
	sc *scope
}

func newAnalyzer(c Catalog, d sqlparse.Dialect, m *meter) *analyzer {
	return &analyzer{catalog: c, dialect: d, m: m, bases: map[Relation]*rel{}, allRels: map[Relation]bool{}, subqueries: map[subqueryKey]*rel{}}
}

// cteEnv is the chain of WITH lists in scope, innermost first. The CTEs of
// one WITH list share its map; an environment sees those before its limit,
// so that each CTE's body sees the ones before it without a copy of them.
type cteEnv struct {
	parent *cteEnv
	defs   map[string][]*cteDef // by name, in the order written
	limit  int                  // the CTEs with an index below it are visible
}

type cteDef struct {
	cte   *sqlparse.CTE
	index int     // its place in its WITH list
	env   *cteEnv // the environment its body sees
	rel   *rel
	state uint8 // 0 not analysed, 1 in progress, 2 done
}

func (e *cteEnv) lookup(name string) *cteDef {
	for ; e != nil; e = e.parent {
		var found *cteDef
		for _, d := range e.defs[name] {
			if d.index < e.limit {
				found = d // a name given twice: the later one before the limit
			}
		}
		if found != nil {
			return found
		}
	}
	return nil
}

// query resolves a query expression in env; parent is the scope a
// correlated subquery sees.
func (a *analyzer) query(q *sqlparse.Query, env *cteEnv, parent *scope, lateral *scope) *rel {
	a.m.nodes(1 + len(q.With))
	if len(q.With) > 0 {
		defs := make(map[string][]*cteDef, len(q.With))
		layer := &cteEnv{parent: env, defs: defs, limit: len(q.With)}
		for i, c := range q.With {
			d := &cteDef{cte: c, index: i}
			defs[c.Name.Name] = append(defs[c.Name.Name], d)
			if q.Recursive {
				d.env = layer
			} else {
				// A CTE sees the ones before it, not itself or later ones.
				d.env = &cteEnv{parent: env, defs: defs, limit: i}
			}
		}
		env = layer
	}
	tail := &queryTail{orderBy: rowOrder(q), orderAll: q.OrderByAll, limit: q.Limit, percent: q.LimitPercent, offset: q.Offset, withTies: q.WithTies}
	return a.distinctNames(a.setExpr(q.Body, env, parent, lateral, tail))
}

// rowOrder is what orders q's rows before its limit: ORDER BY, then
// Databricks' CLUSTER BY and SORT BY (the order within each partition,
// which a limit takes its rows by too).
func rowOrder(q *sqlparse.Query) []*sqlparse.OrderItem {
	if len(q.ClusterBy) == 0 && len(q.SortBy) == 0 {
		return q.OrderBy
	}
	items := slices.Clone(q.OrderBy)
	for _, e := range q.ClusterBy {
		items = append(items, &sqlparse.OrderItem{Expr: e})
	}
	return append(items, q.SortBy...)
}

// distinctNames is r with the names DuckDB gives a query's columns when it
// is a relation (a subquery, a CTE, a model's table): a name already taken
// gets _1, _2, … after it, the first of those not taken either.
func (a *analyzer) distinctNames(r *rel) *rel {
	if !a.dialect.DistinctColumnNames() || len(r.known) == len(r.cols) {
		return r
	}
	taken := make(map[string]bool, len(r.cols))
	names := make([]sqlparse.Ident, len(r.cols))
	for i, c := range r.cols {
		name := c.name
		for k := 1; taken[name]; k++ {
			name = c.name + "_" + strconv.Itoa(k)
		}
		taken[name] = true
		names[i] = sqlparse.Ident{Name: name}
	}
	return a.renameCols(r, names)
}

type queryTail struct {
	orderBy       []*sqlparse.OrderItem
	orderAll      string // ORDER BY ALL's direction
	limit, offset sqlparse.Expr
	withTies      bool
	percent       bool          // the limit is a share of the rows
	top           sqlparse.Expr // the SELECT's TOP n, a limit of its own
}

func (t *queryTail) limited() bool {
	return t != nil && (t.limit != nil || t.offset != nil || t.top != nil)
}

func (a *analyzer) setExpr(s sqlparse.SetExpr, env *cteEnv, parent, lateral *scope, tail *queryTail) *rel {
	switch x := s.(type) {
	case *sqlparse.Select:
		return a.selectCore(x, env, parent, lateral, tail)
	case *sqlparse.Query:
		r := a.query(x, env, parent, lateral)
		return a.applyTail(r, env, parent, tail)
	case *sqlparse.Values:
		r := a.values(x, nil, env, parent)
		return a.applyTail(r, env, parent, tail)
	case *sqlparse.Pivot, *sqlparse.Unpivot: // DuckDB's statements: SELECT * FROM the pivot
		star := []*sqlparse.SelectItem{{Star: true}}
		return a.selectCore(&sqlparse.Select{Items: star, From: []sqlparse.TableExpr{x.(sqlparse.TableExpr)}}, env, parent, lateral, tail)
	case *sqlparse.SetOp:
		chain := setOpChain(x)
		branches := make([]*rel, len(chain))
		for i, b := range chain {
			branches[i] = a.setExpr(b, env, parent, lateral, nil)
		}
		r := a.setOp(x, branches)
		return a.applyTail(r, env, parent, tail)
	}
	return newRel(relDerived)
}

// applyTail adds ORDER BY … LIMIT of a set operation or parenthesised query
// to its row signature; ORDER BY names its output columns.
func (a *analyzer) applyTail(r *rel, env *cteEnv, parent *scope, tail *queryTail) *rel {
	if !tail.limited() {
		return r
	}
	sc := &scope{a: a, parent: parent, env: env, rows: r.rows}
	sc.entries = []*fromEntry{{name: "", r: r}}
	sc.limitClause(tail, r, false)
	return r
}

// rowKeys records columns whose values decide which rows there are (a set
// operation's keys): their sources become predicate columns and their
// canonical forms part of the row signature.
func (a *analyzer) rowKeys(rows *rowInfo, cols []*col) {
	for _, c := range cols {
		a.predCol(rows, c)
		rows.sig.WriteString("[" + a.canonKey(c.canon) + "]")
	}
}

// setOpChain lists the branches of a chain of one set operation, as the
// parser builds it left-deep (a UNION ALL b UNION ALL c): resolving them
// together keeps each output column's entries from being copied once per
// level. A link with another operator or quantifier ends the chain.
func setOpChain(x *sqlparse.SetOp) []sqlparse.SetExpr {
	var right []sqlparse.SetExpr
	var e sqlparse.SetExpr = x
	for {
		s, ok := e.(*sqlparse.SetOp)
		if !ok || s.Op != x.Op || s.All != x.All || s.ByName != x.ByName {
			break
		}
		right = append(right, s.Right)
		e = s.Left
	}
	out := make([]sqlparse.SetExpr, 0, len(right)+1)
	out = append(out, e)
	for i := len(right) - 1; i >= 0; i-- {
		out = append(out, right[i])
	}
	return out
}

// setOp combines the branches of one set operation: the first names the
// columns; the others are matched by position (by name for BY NAME).
func (a *analyzer) setOp(x *sqlparse.SetOp, branches []*rel) *rel {
	l, rest := branches[0], branches[1:]
	out := newRel(relDerived)
	out.complete = l.complete
	out.rows.sig.WriteString(x.Op)
	if x.All {
		out.rows.sig.WriteString(" ALL")
	}
	if x.ByName {
		out.rows.sig.WriteString(" BY NAME")
	}
	out.rows.sig.WriteString("(")
	for i, b := range branches {
		a.mergeRows(out.rows, b.rows)
		if i > 0 {
			out.rows.sig.WriteString("|")
		}
		out.rows.sig.WriteString(b.rows.key())
	}
	out.rows.sig.WriteString(")")
	if x.Op != "UNION" || !x.All {
		// Every side's values decide which rows there are: EXCEPT and
		// INTERSECT match the first side's with the others' (which
		// contribute no value), UNION keeps one row of each.
		for _, r := range branches {
			a.rowKeys(out.rows, r.cols)
		}
	}
	if x.Op != "UNION" {
		for _, c := range l.cols {
			out.add(a.passthrough(c, c.name, c.name, true))
		}
		out.fallback = l.fallback
		return out
	}
	firsts := l.cols
	if x.ByName {
		firsts = byNameColumns(branches)
	}
	for i, lc := range firsts {
		c := &col{name: lc.name, certain: true}
		entries := newEntrySet(a.m, nil)
		sigs := []string{"UNION"}
		var canonArgs []sqlparse.Expr
		for _, r := range branches {
			var rc *col
			if x.ByName {
				rc = r.known[lc.name]
			} else if i < len(r.cols) {
				rc = r.cols[i]
			}
			switch {
			case rc == nil && x.ByName: // a branch without the column gives it nulls
				sigs = append(sigs, "NULL")
				canonArgs = append(canonArgs, &sqlparse.Literal{Kind: sqlparse.LitNull, Text: "NULL"})
				continue
			case rc == nil:
				c.certain = false
				continue
			}
			// A later branch's value arrives under the first branch's name.
			entries.add(a.passthrough(rc, lc.name, lc.name, true).entries)
			sigs = append(sigs, rc.sig)
			canonArgs = append(canonArgs, rc.canon)
			c.certain = c.certain && rc.certain
		}
		c.entries = entries.list
		c.sig = hashOf(sigs...)
		c.expr = lc.expr
		c.canon = unionCanon(canonArgs)
		if c.canon == nil {
			c.certain = false
		}
		out.add(c)
	}
	for _, r := range rest {
		if !r.complete || len(r.cols) != len(l.cols) {
			out.rows.certain = out.rows.certain && r.complete
		}
	}
	for _, b := range branches {
		out.fallback = append(out.fallback, b.fallback...)
	}
	return out
}

// byNameColumns are the columns of a UNION BY NAME: each name the
// branches have, in the order the branches first give it, the first
// branch's first (DuckDB's).
func byNameColumns(branches []*rel) []*col {
	var out []*col
	seen := map[string]bool{}
	for _, b := range branches {
		for _, c := range b.cols {
			if !seen[c.name] {
				seen[c.name] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func unionCanon(args []sqlparse.Expr) sqlparse.Expr {
	for _, a := range args {
		if a == nil {
			return nil
		}
	}
	return &sqlparse.Func{Name: []sqlparse.Ident{{Name: "union"}}, Args: args}
}

// values is a VALUES list; names are the alias columns or the dialect's
// (Dialect.ValuesColumn).
func (a *analyzer) values(v *sqlparse.Values, alias *sqlparse.Alias, env *cteEnv, parent *scope) *rel {
	out := newRel(relDerived)
	width := 0
	for _, row := range v.Rows {
		width = max(width, len(row))
	}
	sc := &scope{a: a, parent: parent, env: env, rows: out.rows}
	for i := 0; i < width; i++ {
		name := a.dialect.ValuesColumn(i)
		if alias != nil && i < len(alias.Columns) {
			name = alias.Columns[i].Name
		}
		var exprs []sqlparse.Expr
		for _, row := range v.Rows {
			if i < len(row) {
				exprs = append(exprs, row[i])
			}
		}
		c := sc.exprCol(&sqlparse.Func{Name: []sqlparse.Ident{{Name: "values"}}, Args: exprs}, name)
		out.add(c)
	}
	out.rows.sig.WriteString("VALUES(" + strconv.Itoa(len(v.Rows)) + ")")
	return out
}

// cteRel analyses a CTE once, on first use.
func (a *analyzer) cteRel(d *cteDef) *rel {
	switch d.state {
	case 2:
		return d.rel
	case 1:
		// A recursive reference: its columns are those of the anchor,
		// which are not known yet.
		r := newRel(relDerived)
		r.complete = false
		r.rows.certain = false
		r.rows.sig.WriteString("RECURSIVE(" + d.cte.Name.Name + ")")
		return r
	}
	d.state = 1
	r := a.query(d.cte.Query, d.env, nil, nil)
	if len(d.cte.Columns) > 0 {
		r = a.renameCols(r, d.cte.Columns)
	}
	d.rel, d.state = r, 2
	return r
}

func (a *analyzer) selectCore(s *sqlparse.Select, env *cteEnv, parent, lateral *scope, tail *queryTail) *rel {
	a.m.nodes(1 + len(s.Windows))
	out := newRel(relDerived)
	sc := &scope{a: a, parent: parent, env: env, rows: out.rows}
	if lateral != nil {
		sc.parent = lateral
	}
	for _, w := range s.Windows {
		if sc.windows == nil {
			sc.windows = map[string]*sqlparse.Window{}
		}
		sc.windows[w.Name.Name] = w.Spec
	}
	sig := &out.rows.sig
	sig.WriteString("SELECT(")
	for i, t := range s.From {
		if i > 0 {
			sig.WriteString(",")
		}
		sc.addFrom(t, sig)
	}
	sig.WriteString(")")
	// GROUP BY ALL groups by the items that aggregate nothing.
	var groupAll []*col
	for _, it := range s.Items {
		sc.visible = len(sc.items)
		first := len(out.cols)
		switch c := columnsIn(it.Expr); {
		case it.Star:
			sc.expandStar(it, out)
		case c != nil:
			sc.expandColumns(it, c, out)
		default:
			// One column, or a generator's several, each made of what
			// the item reads.
			var one [1]string
			for _, name := range outputNames(one[:0], a.dialect, it) {
				c := sc.exprCol(it.Expr, name)
				out.add(c)
				sc.addItem(name, c)
			}
			sc.rowFunctionRows(it.Expr)
		}
		if s.GroupByAll && (it.Star || !aggregates(it.Expr)) {
			groupAll = append(groupAll, out.cols[first:]...)
		}
	}
	sc.visible = len(sc.items)
	if s.Where != nil {
		sc.predicate("WHERE", s.Where)
	}
	if s.StartWith != nil {
		sc.predicate("START WITH", s.StartWith)
	}
	if s.ConnectBy != nil {
		tag := "CONNECT BY"
		if s.NoCycle {
			tag += " NOCYCLE"
		}
		sc.predicate(tag, s.ConnectBy)
	}
	if s.GroupByAll {
		sig.WriteString(" GROUP BY ALL")
		for _, c := range groupAll {
			sig.WriteString(" GROUP(" + sc.itemKey(c) + ")")
		}
	}
	for _, g := range s.GroupBy {
		sc.groupKey(g)
	}
	if s.Having != nil {
		sc.predicate("HAVING", s.Having)
	}
	if s.Qualify != nil {
		sc.predicate("QUALIFY", s.Qualify)
	}
	if s.Distinct {
		sig.WriteString(" DISTINCT")
		for _, e := range s.DistinctOn {
			sc.predicate("ON", e)
		}
		if len(s.DistinctOn) == 0 {
			// Every value of a row decides whether it is a repeat.
			for _, c := range out.cols {
				sig.WriteString(" KEY(" + sc.itemKey(c) + ")")
			}
		}
	}
	if s.Top != nil {
		var withTop queryTail
		if tail != nil {
			withTop = *tail
		}
		withTop.top = s.Top
		tail = &withTop
	}
	// DISTINCT ON keeps the first row of each key in the ORDER BY's order.
	sc.limitClause(tail, out, len(s.DistinctOn) > 0)
	return out
}

// outputName is the name a select item's column gets.
func outputName(it *sqlparse.SelectItem) string {
	if it.Alias != nil {
		return it.Alias.Name
	}
	switch x := unparen(it.Expr).(type) {
	case *sqlparse.ColumnRef:
		return x.Parts[len(x.Parts)-1].Name
	case *sqlparse.Field:
		return x.Name
	case *sqlparse.Cast:
		if cr, ok := unparen(x.X).(*sqlparse.ColumnRef); ok {
			return cr.Parts[len(cr.Parts)-1].Name
		}
	case *sqlparse.Func:
		return strings.ToLower(sqlparse.FuncName(x))
	}
	return strings.ToLower(sqlparse.Format(it.Expr))
}

// outputNames appends to dst the names of the columns a select item that
// is not a star makes: those its AS (a, b) gives a generator, the ones d
// gives a generator called without names (Dialect.GeneratorColumns), else
// the one outputName.
func outputNames(dst []string, d sqlparse.Dialect, it *sqlparse.SelectItem) []string {
	if len(it.Aliases) > 0 {
		for _, alias := range it.Aliases {
			dst = append(dst, alias.Name)
		}
		return dst
	}
	if f, ok := unparen(it.Expr).(*sqlparse.Func); ok && it.Alias == nil && len(f.Name) == 1 {
		if names := d.GeneratorColumns(f.Name[0].Name); names != nil {
			return append(dst, names...)
		}
	}
	return append(dst, outputName(it))
}

func unparen(e sqlparse.Expr) sqlparse.Expr {
	for {
		p, ok := e.(*sqlparse.Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}

// limitClause: ORDER BY decides which rows survive only under LIMIT, OFFSET
// or TOP, or when choosing says it picks rows (DISTINCT ON). ORDER BY ALL
// orders by every column of out.
func (sc *scope) limitClause(tail *queryTail, out *rel, choosing bool) {
	if tail == nil || !tail.limited() && !choosing {
		return
	}
	sig := &sc.rows.sig
	for _, o := range tail.orderBy {
		key := sc.orderByKey(o.Expr)
		if o.Desc {
			key += " DESC"
		}
		if o.NullsFirst != nil {
			key += " NULLS" + strconv.FormatBool(*o.NullsFirst)
		}
		sig.WriteString(" ORDER(" + key + ")")
	}
	if tail.orderAll != "" {
		sig.WriteString(" ORDER(ALL " + tail.orderAll)
		for _, c := range out.cols {
			sig.WriteString(" " + sc.itemKey(c))
		}
		sig.WriteString(")")
	}
	if tail.top != nil {
		sig.WriteString(" TOP(" + sqlparse.Format(tail.top) + ")")
	}
	if tail.limit != nil {
		sig.WriteString(" LIMIT(" + sqlparse.Format(tail.limit))
		if tail.percent {
			sig.WriteString(" PERCENT")
		}
		sig.WriteString(")")
	}
	if tail.withTies {
		sig.WriteString(" WITH TIES")
	}
	if tail.offset != nil {
		sig.WriteString(" OFFSET(" + sqlparse.Format(tail.offset) + ")")
	}
}

// orderKey resolves an ORDER BY / GROUP BY key: an ordinal or an output
// alias names a select item; anything else is an expression over the FROM
// items.
func (sc *scope) orderKey(e sqlparse.Expr) string {
	if l, ok := e.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitNumber {
		if n, err := strconv.Atoi(l.Text); err == nil && n >= 1 && n <= len(sc.items) {
			return sc.itemKey(sc.items[n-1].c)
		}
	}
	return sc.predicate("", e)
}

// orderByKey resolves an ORDER BY key (orderKey), where DuckDB's #n
// names the n-th select item, as the ordinal n does; elsewhere, GROUP BY
// included, #n is the n-th column of the FROM items.
func (sc *scope) orderByKey(e sqlparse.Expr) string {
	if p, ok := e.(*sqlparse.Param); ok && strings.HasPrefix(p.Text, "#") {
		if n, ok := sc.a.dialect.PositionalColumn(p); ok && n <= len(sc.items) {
			return sc.itemKey(sc.items[n-1].c)
		}
	}
	return sc.orderKey(e)
}

// itemKey records an output column that shapes the rows (a key to group
// or deduplicate by): its sources become predicate columns.
func (sc *scope) itemKey(c *col) string {
	sc.addPredCol(c)
	return "#" + sc.a.canonKey(c.canon)
}

func (sc *scope) groupKey(g sqlparse.Expr) {
	switch x := g.(type) {
	case *sqlparse.Func:
		if len(x.Name) == 1 && (x.Name[0].Name == "rollup" || x.Name[0].Name == "cube" || x.Name[0].Name == "grouping sets") {
			sc.rows.sig.WriteString(" " + strings.ToUpper(x.Name[0].Name))
			for _, e := range x.Args {
				sc.groupKey(e)
			}
			return
		}
	case *sqlparse.Row:
		for _, e := range x.Elems {
			sc.groupKey(e)
		}
		return
	}
	sc.rows.sig.WriteString(" GROUP(" + sc.orderKey(g) + ")")
}

func (sc *scope) addPredCol(c *col) { sc.a.predCol(sc.rows, c) }

// predCol records that c's value decides which rows there are: its base
// columns become predicate columns of rows, and an uncertain c makes the
// rows uncertain.
func (a *analyzer) predCol(rows *rowInfo, c *col) {
	a.m.nodes(1)
	for _, e := range c.entries {
		a.m.sources(len(e.Sources))
		for _, s := range e.Sources {
			if !s.Relation.IsZero() {
				rows.preds[s] = true
			}
		}
	}
	if !c.certain {
		rows.certain = false
	}
}

// predicate records a row-shaping expression: its columns become predicate
// columns and its canonical form part of the row signature. It returns the
// canonical key.
func (sc *scope) predicate(tag string, e sqlparse.Expr) string {
	c := sc.exprCol(e, "")
	sc.addPredCol(c)
	key, ok := sc.a.canonText(c.canon)
	if !ok {
		key = "?" + c.sig
		sc.rows.certain = false
	}
	if tag != "" {
		sc.rows.sig.WriteString(" " + tag + "(" + key + ")")
	}
	return key
}

func (a *analyzer) result(top *rel) *Result {
	res := &Result{Complete: top.complete, RowCertain: top.rows.certain}
	outSources := map[Source]bool{}
	for _, c := range top.cols {
		pc := &Column{Name: c.name, Expr: c.expr, Signature: c.sig, Certain: c.certain, canon: c.canon}
		entries := newEntrySet(a.m, nil)
		for _, e := range c.entries {
			ss := append([]Source(nil), e.Sources...)
			sortSources(ss)
			entries.add([]Entry{{Mechanism: e.Mechanism, Sources: ss}})
			for _, s := range ss {
				outSources[s] = true
			}
		}
		pc.Entries = entries.list
		if c.certain && c.canon != nil {
			if text, ok := a.canonText(c.canon); ok {
				pc.Canonical = text
			} else {
				pc.Certain = false
			}
		}
		res.Columns = append(res.Columns, pc)
	}
	for s := range top.rows.preds {
		res.PredicateColumns = append(res.PredicateColumns, s)
		if !outSources[s] {
			res.FilterColumns = append(res.FilterColumns, s)
		}
	}
	sortSources(res.PredicateColumns)
	sortSources(res.FilterColumns)
	for r := range top.rows.rels {
		if !r.IsZero() {
			res.RowRelations = append(res.RowRelations, r)
		}
	}
	sort.Slice(res.RowRelations, func(i, j int) bool { return relationLess(res.RowRelations[i], res.RowRelations[j]) })
	for r := range a.allRels {
		res.Relations = append(res.Relations, r)
	}
	sort.Slice(res.Relations, func(i, j int) bool { return relationLess(res.Relations[i], res.Relations[j]) })
	res.RowSignature = top.rows.key()
	return res
}

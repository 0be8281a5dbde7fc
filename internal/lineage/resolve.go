package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// col is a column of a relation in scope: its lineage, its written
// signature and its canonical value.
type col struct {
	name    string
	entries []Entry
	sig     string        // hash of the derivation as written
	expr    string        // the defining expression, printed
	canon   sqlparse.Expr // canonical value; nil when unknown
	certain bool          // resolved against the catalog all the way down
}

// relKind tells what a FROM item is.
type relKind uint8

const (
	relBase    relKind = iota // a table or view named in the statement
	relDerived                // a CTE, a subquery, VALUES
	relFunc                   // a table function
)

// rel is a relation in scope.
type rel struct {
	kind     relKind
	base     Relation // relBase
	cols     []*col   // the columns known, in order
	known    map[string]*col
	complete bool // cols is the whole list
	// fallback are relations whose `*` this one passes on but could not
	// expand: a name not in cols may come from them.
	fallback []*rel
	extra    map[string]*col // columns made on demand for names not in cols
	rows     *rowInfo
	// relFunc: what the function reads, and its canonical call.
	funcSources []Source
	funcCanon   sqlparse.Expr
	funcCertain bool
	funcName    string
}

func (r *rel) add(c *col) {
	r.cols = append(r.cols, c)
	if _, dup := r.known[c.name]; !dup {
		r.known[c.name] = c
	}
}

func newRel(kind relKind) *rel {
	return &rel{kind: kind, known: map[string]*col{}, complete: true, rows: newRowInfo()}
}

// rowInfo is what shapes a relation's rows.
type rowInfo struct {
	preds   map[Source]bool
	rels    map[Relation]bool
	sig     strings.Builder
	certain bool
}

func newRowInfo() *rowInfo {
	return &rowInfo{preds: map[Source]bool{}, rels: map[Relation]bool{}, certain: true}
}

func (ri *rowInfo) merge(o *rowInfo) {
	for s := range o.preds {
		ri.preds[s] = true
	}
	for r := range o.rels {
		ri.rels[r] = true
	}
	if !o.certain {
		ri.certain = false
	}
}

// cteEnv is the chain of WITH lists in scope, innermost first.
type cteEnv struct {
	parent *cteEnv
	defs   map[string]*cteDef
}

type cteDef struct {
	cte   *sqlparse.CTE
	env   *cteEnv // the environment its body sees
	rel   *rel
	state uint8 // 0 not analysed, 1 in progress, 2 done
}

func (e *cteEnv) lookup(name string) *cteDef {
	for ; e != nil; e = e.parent {
		if d, ok := e.defs[name]; ok {
			return d
		}
	}
	return nil
}

type analyzer struct {
	catalog Catalog
	bases   map[Relation]*rel
	allRels map[Relation]bool
}

func newAnalyzer(c Catalog) *analyzer {
	return &analyzer{catalog: c, bases: map[Relation]*rel{}, allRels: map[Relation]bool{}}
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// baseRel returns the relation for a table name, with the catalog's
// columns when it knows them.
func (a *analyzer) baseRel(r Relation) *rel {
	if b, ok := a.bases[r]; ok {
		return b
	}
	b := newRel(relBase)
	b.base = r
	a.allRels[r] = true
	var cols []string
	ok := false
	if a.catalog != nil {
		cols, ok = a.catalog(r)
	}
	b.complete = ok
	for _, c := range cols {
		c = strings.ToLower(c)
		b.add(a.baseCol(r, c, true))
	}
	a.bases[r] = b
	return b
}

func (a *analyzer) baseCol(r Relation, c string, certain bool) *col {
	src := Source{Relation: r, Column: c}
	return &col{
		name:    c,
		entries: []Entry{{Mechanism: Direct, Sources: []Source{src}}},
		sig:     hashOf("B", r.String(), c),
		expr:    src.String(),
		canon:   &sqlparse.ColumnRef{Parts: []sqlparse.Ident{{Name: r.Name}, {Name: c}}},
		certain: certain,
	}
}

// has reports whether the relation is known to have column n.
func (r *rel) has(n string) bool {
	_, ok := r.known[n]
	return ok
}

// open reports whether the relation may have columns it does not list.
func (r *rel) open() bool {
	return !r.complete || r.kind == relFunc
}

// get returns column n of the relation, making an uncertain one when the
// relation does not list it.
func (a *analyzer) get(r *rel, n string) *col {
	if c, ok := r.known[n]; ok {
		return c
	}
	if c, ok := r.extra[n]; ok {
		return c
	}
	var c *col
	switch r.kind {
	case relBase:
		// A base relation the catalog does not list, or a column the catalog
		// does not have (a stale catalog): trust the name, flag it.
		c = a.baseCol(r.base, n, false)
	case relFunc:
		c = a.funcCol(r, n)
	default:
		c = a.fromFallback(r, n)
	}
	if r.extra == nil {
		r.extra = map[string]*col{}
	}
	r.extra[n] = c
	return c
}

func (a *analyzer) funcCol(r *rel, n string) *col {
	c := &col{name: n, certain: r.funcCertain, expr: r.funcName + "." + n}
	if len(r.funcSources) > 0 {
		c.entries = []Entry{{Mechanism: Derived, Sources: r.funcSources}}
	} else {
		// The function reads no column (range(…), generate_series(…)): its
		// output has no relation behind it.
		c.entries = []Entry{{Mechanism: Derived, Sources: []Source{{Column: n}}}}
	}
	c.sig = hashOf("F", r.funcName, n, hashSources(r.funcSources))
	if r.funcCanon != nil {
		c.canon = &sqlparse.Field{X: r.funcCanon, Name: n}
	} else {
		c.certain = false
	}
	return c
}

func hashSources(ss []Source) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.String())
		b.WriteByte(',')
	}
	return b.String()
}

// fromFallback finds n in the relations whose `*` a derived relation passed
// on without expanding.
func (a *analyzer) fromFallback(r *rel, n string) *col {
	for _, f := range r.fallback {
		if f.has(n) {
			return passthrough(a.get(f, n), n, n, false)
		}
	}
	for _, f := range r.fallback {
		if f.open() {
			return passthrough(a.get(f, n), n, n, false)
		}
	}
	return unresolvedCol(n)
}

func unresolvedCol(n string) *col {
	return &col{name: n, sig: hashOf("U", n), expr: n}
}

// passthrough is an output column that hands on src unchanged under name
// out; written is the reference as the query writes it.
func passthrough(src *col, out, written string, certain bool) *col {
	// The signature ignores how the reference is written: re-aliasing a
	// table or a CTE does not change what a pass-through carries.
	c := &col{
		name:    out,
		sig:     hashOf("P", src.sig),
		expr:    written,
		canon:   src.canon,
		certain: src.certain && certain,
	}
	c.entries = make([]Entry, 0, len(src.entries))
	for _, e := range src.entries {
		if e.Mechanism != Derived && len(e.Sources) > 0 {
			m := Renamed
			if e.Sources[0].Column == out {
				m = Direct
			}
			e = Entry{Mechanism: m, Sources: e.Sources}
		}
		c.entries = append(c.entries, e)
	}
	return c
}

// fromEntry is one FROM item of a SELECT.
type fromEntry struct {
	name    string   // alias, CTE name or table name
	written []string // a base table's name parts as written
	r       *rel
	hidden  map[string]bool // merged away by USING / NATURAL (for `*`)
}

// scope is a SELECT being resolved.
type scope struct {
	a       *analyzer
	parent  *scope
	env     *cteEnv
	entries []*fromEntry
	items   []*aliasItem
	// visible is how many select items an unqualified name may resolve
	// to (lateral column aliases): the items before the one being read,
	// or all of them in WHERE/GROUP BY/HAVING/QUALIFY/ORDER BY.
	visible int
	rows    *rowInfo
	merged  map[string]*col
	// windows are the SELECT's WINDOW definitions, by name.
	windows map[string]*sqlparse.Window
}

// window returns the named window a call's OVER refers to, merged with
// what the call adds (OVER (w ORDER BY …)); nil when it has no name.
func (sc *scope) window(w *sqlparse.Window) *sqlparse.Window {
	return sc.windowDepth(w, 0)
}

func (sc *scope) windowDepth(w *sqlparse.Window, depth int) *sqlparse.Window {
	if w == nil || w.Ref == nil || depth > len(sc.windows) {
		// Unnamed, or a definition that refers back to itself.
		return w
	}
	for s := sc; s != nil; s = s.parent {
		def, ok := s.windows[w.Ref.Name]
		if !ok {
			continue
		}
		def = s.windowDepth(def, depth+1) // a definition may build on another
		out := &sqlparse.Window{PartitionBy: def.PartitionBy, OrderBy: def.OrderBy, Frame: def.Frame, FrameExprs: def.FrameExprs}
		if len(w.PartitionBy) > 0 {
			out.PartitionBy = w.PartitionBy
		}
		if len(w.OrderBy) > 0 {
			out.OrderBy = w.OrderBy
		}
		if w.Frame != "" {
			out.Frame, out.FrameExprs = w.Frame, w.FrameExprs
		}
		return out
	}
	return w
}

type aliasItem struct {
	name string
	c    *col
}

// query resolves a query expression in env; parent is the scope a
// correlated subquery sees.
func (a *analyzer) query(q *sqlparse.Query, env *cteEnv, parent *scope, lateral *scope) *rel {
	if len(q.With) > 0 {
		layer := &cteEnv{parent: env, defs: map[string]*cteDef{}}
		for _, c := range q.With {
			d := &cteDef{cte: c}
			if q.Recursive {
				layer.defs[c.Name.Name] = d
				d.env = layer
			} else {
				// A CTE sees the ones before it, not itself or later ones.
				d.env = &cteEnv{parent: env, defs: copyDefs(layer.defs)}
				layer.defs[c.Name.Name] = d
			}
		}
		env = layer
	}
	tail := &queryTail{orderBy: q.OrderBy, limit: q.Limit, offset: q.Offset}
	return a.setExpr(q.Body, env, parent, lateral, tail)
}

func copyDefs(m map[string]*cteDef) map[string]*cteDef {
	out := make(map[string]*cteDef, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

type queryTail struct {
	orderBy       []*sqlparse.OrderItem
	limit, offset sqlparse.Expr
}

func (t *queryTail) limited() bool { return t != nil && (t.limit != nil || t.offset != nil) }

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
	case *sqlparse.SetOp:
		l := a.setExpr(x.Left, env, parent, lateral, nil)
		rr := a.setExpr(x.Right, env, parent, lateral, nil)
		r := a.setOp(x, l, rr)
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
	sc.limitClause(tail, nil)
	return r
}

func (a *analyzer) setOp(x *sqlparse.SetOp, l, r *rel) *rel {
	out := newRel(relDerived)
	out.complete = l.complete
	out.rows.merge(l.rows)
	out.rows.merge(r.rows)
	out.rows.sig.WriteString(x.Op)
	if x.All {
		out.rows.sig.WriteString(" ALL")
	}
	if x.ByName {
		out.rows.sig.WriteString(" BY NAME")
	}
	out.rows.sig.WriteString("(" + l.rows.sig.String() + "|" + r.rows.sig.String() + ")")
	if x.Op != "UNION" {
		// EXCEPT / INTERSECT: the right side's values decide which left rows
		// survive; it contributes no value.
		for _, c := range r.cols {
			for _, e := range c.entries {
				for _, s := range e.Sources {
					out.rows.preds[s] = true
				}
			}
			out.rows.sig.WriteString("[" + canonKey(c.canon) + "]")
			if !c.certain {
				out.rows.certain = false
			}
		}
		for _, c := range l.cols {
			out.add(passthrough(c, c.name, c.name, true))
		}
		out.fallback = l.fallback
		return out
	}
	right := r.cols
	if x.ByName {
		right = nil
		for _, c := range l.cols {
			right = append(right, r.known[c.name])
		}
	}
	for i, lc := range l.cols {
		var rc *col
		if i < len(right) {
			rc = right[i]
		}
		c := &col{name: lc.name, certain: lc.certain}
		c.entries = append(c.entries, lc.entries...)
		sigs := []string{"UNION", lc.sig}
		canonArgs := []sqlparse.Expr{lc.canon}
		if rc != nil {
			// The right branch's value arrives under the left branch's name.
			c.entries = mergeEntries(c.entries, passthrough(rc, lc.name, lc.name, true).entries)
			sigs = append(sigs, rc.sig)
			canonArgs = append(canonArgs, rc.canon)
			c.certain = c.certain && rc.certain
		} else {
			c.certain = false
		}
		c.sig = hashOf(sigs...)
		c.expr = lc.expr
		c.canon = unionCanon(canonArgs)
		if c.canon == nil {
			c.certain = false
		}
		out.add(c)
	}
	if !r.complete || len(r.cols) != len(l.cols) {
		out.rows.certain = out.rows.certain && r.complete
	}
	out.fallback = append(append([]*rel{}, l.fallback...), r.fallback...)
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

// mergeEntries appends the entries of b not already in a.
func mergeEntries(a, b []Entry) []Entry {
	for _, e := range b {
		dup := false
		for _, x := range a {
			if x.Mechanism == e.Mechanism && sameSources(x.Sources, e.Sources) {
				dup = true
				break
			}
		}
		if !dup {
			a = append(a, e)
		}
	}
	return a
}

func sameSources(a, b []Source) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// values is a VALUES list; names are the alias columns or column1…N.
func (a *analyzer) values(v *sqlparse.Values, alias *sqlparse.Alias, env *cteEnv, parent *scope) *rel {
	out := newRel(relDerived)
	width := 0
	for _, row := range v.Rows {
		width = max(width, len(row))
	}
	sc := &scope{a: a, parent: parent, env: env, rows: out.rows}
	for i := 0; i < width; i++ {
		name := "column" + strconv.Itoa(i+1)
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
		r = renameCols(r, d.cte.Columns)
	}
	d.rel, d.state = r, 2
	return r
}

// renameCols applies a column alias list (t(a, b), WITH x(a, b)).
func renameCols(r *rel, names []sqlparse.Ident) *rel {
	out := newRel(r.kind)
	out.base, out.complete, out.fallback, out.rows = r.base, r.complete, r.fallback, r.rows
	out.funcSources, out.funcCanon, out.funcCertain, out.funcName = r.funcSources, r.funcCanon, r.funcCertain, r.funcName
	for i, c := range r.cols {
		if i < len(names) {
			out.add(passthrough(c, names[i].Name, names[i].Name, true))
		} else {
			out.add(c)
		}
	}
	return out
}

// ---- SELECT ----

func (a *analyzer) selectCore(s *sqlparse.Select, env *cteEnv, parent, lateral *scope, tail *queryTail) *rel {
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
		sig.WriteString(sc.addFrom(t))
	}
	sig.WriteString(")")
	for _, it := range s.Items {
		sc.visible = len(sc.items)
		if it.Star {
			sc.expandStar(it, out)
			continue
		}
		name := outputName(it)
		c := sc.exprCol(it.Expr, name)
		out.add(c)
		sc.items = append(sc.items, &aliasItem{name: name, c: c})
	}
	sc.visible = len(sc.items)
	if s.Where != nil {
		sc.predicate("WHERE", s.Where)
	}
	if s.GroupByAll {
		sig.WriteString(" GROUP BY ALL")
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
	}
	sc.limitClause(tail, out)
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

func unparen(e sqlparse.Expr) sqlparse.Expr {
	for {
		p, ok := e.(*sqlparse.Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}

// limitClause: ORDER BY decides which rows survive only under LIMIT/OFFSET.
func (sc *scope) limitClause(tail *queryTail, out *rel) {
	if !tail.limited() {
		return
	}
	sig := &sc.rows.sig
	for _, o := range tail.orderBy {
		key := sc.orderKey(o.Expr)
		if o.Desc {
			key += " DESC"
		}
		if o.NullsFirst != nil {
			key += " NULLS" + strconv.FormatBool(*o.NullsFirst)
		}
		sig.WriteString(" ORDER(" + key + ")")
	}
	if tail.limit != nil {
		sig.WriteString(" LIMIT(" + sqlparse.Format(tail.limit) + ")")
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
			c := sc.items[n-1].c
			sc.addPredCol(c)
			return "#" + canonKey(c.canon)
		}
	}
	return sc.predicate("", e)
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

func (sc *scope) addPredCol(c *col) {
	for _, e := range c.entries {
		for _, s := range e.Sources {
			if !s.Relation.IsZero() {
				sc.rows.preds[s] = true
			}
		}
	}
	if !c.certain {
		sc.rows.certain = false
	}
}

// predicate records a row-shaping expression: its columns become predicate
// columns and its canonical form part of the row signature. It returns the
// canonical key.
func (sc *scope) predicate(tag string, e sqlparse.Expr) string {
	c := sc.exprCol(e, "")
	sc.addPredCol(c)
	key, ok := canonText(c.canon)
	if !ok {
		key = "?" + c.sig
		sc.rows.certain = false
	}
	if tag != "" {
		sc.rows.sig.WriteString(" " + tag + "(" + key + ")")
	}
	return key
}

// ---- FROM ----

// addFrom resolves a FROM item, adds its entries to the scope, and returns
// its row signature.
func (sc *scope) addFrom(t sqlparse.TableExpr) string {
	a := sc.a
	switch x := t.(type) {
	case *sqlparse.Table:
		written := make([]string, len(x.Name))
		for i, id := range x.Name {
			written[i] = id.Name
		}
		name := written[len(written)-1]
		alias := name
		if x.Alias != nil {
			alias = x.Alias.Name.Name
		}
		if len(written) == 1 {
			if d := sc.env.lookup(name); d != nil {
				r := a.cteRel(d)
				if x.Alias != nil && len(x.Alias.Columns) > 0 {
					r = renameCols(r, x.Alias.Columns)
				}
				sc.entries = append(sc.entries, &fromEntry{name: alias, r: r})
				sc.rows.merge(r.rows)
				return "(" + r.rows.sig.String() + ")"
			}
		}
		rel := relationOf(written)
		r := a.baseRel(rel)
		if x.Alias != nil && len(x.Alias.Columns) > 0 {
			r = renameCols(r, x.Alias.Columns)
		}
		sc.entries = append(sc.entries, &fromEntry{name: alias, written: written, r: r})
		sc.rows.rels[rel] = true
		return "T(" + rel.String() + ")"
	case *sqlparse.DerivedTable:
		var lateral *scope
		if x.Lateral {
			lateral = sc
		}
		r := a.query(x.Query, sc.env, sc.parent, lateral)
		name := ""
		if x.Alias != nil {
			name = x.Alias.Name.Name
			if len(x.Alias.Columns) > 0 {
				r = renameCols(r, x.Alias.Columns)
			}
		}
		sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
		sc.rows.merge(r.rows)
		return "(" + r.rows.sig.String() + ")"
	case *sqlparse.TableFunc:
		return sc.addTableFunc(x)
	case *sqlparse.ValuesTable:
		r := a.values(x.Values, x.Alias, sc.env, sc.parent)
		name := ""
		if x.Alias != nil {
			name = x.Alias.Name.Name
		}
		sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
		return r.rows.sig.String()
	case *sqlparse.Join:
		left := sc.addFrom(x.Left)
		nLeft := len(sc.entries)
		right := sc.addFrom(x.Right)
		var b strings.Builder
		b.WriteString("JOIN " + x.Kind)
		if x.Natural {
			b.WriteString(" NATURAL")
		}
		b.WriteString("(" + left + "," + right)
		using := x.Using
		if x.Natural {
			using = sc.commonColumns(nLeft)
		}
		if len(using) > 0 {
			b.WriteString(" USING(")
			for _, u := range using {
				b.WriteString(u.Name + ",")
				sc.using(u.Name, nLeft)
			}
			b.WriteString(")")
		}
		if x.On != nil {
			b.WriteString(" ON(" + sc.predicate("", x.On) + ")")
		}
		b.WriteString(")")
		return b.String()
	}
	return "?"
}

func relationOf(parts []string) Relation {
	var r Relation
	n := len(parts)
	r.Name = parts[n-1]
	if n >= 2 {
		r.Schema = parts[n-2]
	}
	if n >= 3 {
		r.Database = parts[n-3]
	}
	return r
}

func (sc *scope) addTableFunc(x *sqlparse.TableFunc) string {
	a := sc.a
	r := newRel(relFunc)
	r.complete = false
	r.funcName = strings.ToLower(sqlparse.FuncName(x.Func))
	// The arguments may read earlier FROM items (UNNEST(t.arr), FLATTEN).
	argCol := sc.exprCol(x.Func, "")
	for _, e := range argCol.entries {
		r.funcSources = mergeSources(r.funcSources, e.Sources)
	}
	sortSources(r.funcSources)
	r.funcCanon = argCol.canon
	r.funcCertain = argCol.certain
	name := r.funcName
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if x.Alias != nil {
		name = x.Alias.Name.Name
		if len(x.Alias.Columns) > 0 {
			for _, c := range x.Alias.Columns {
				r.add(a.funcCol(r, c.Name))
			}
		} else if isScalarTableFunc(r.funcName) {
			// UNNEST(x) AS v: v names the value too.
			r.add(a.funcCol(r, name))
		}
	}
	if x.WithOffset != nil {
		r.add(a.funcCol(r, x.WithOffset.Name))
	}
	sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
	for _, s := range r.funcSources {
		sc.rows.rels[s.Relation] = true
	}
	return "F(" + canonKey(r.funcCanon) + ")"
}

func isScalarTableFunc(name string) bool {
	switch name {
	case "unnest", "generate_series", "range", "generate_array", "generate_date_array", "generate_timestamp_array", "json_array_elements", "json_array_elements_text", "jsonb_array_elements", "jsonb_array_elements_text", "regexp_split_to_table", "string_to_table":
		return true
	}
	return false
}

// commonColumns are the names a NATURAL join matches on: known columns of
// both sides.
func (sc *scope) commonColumns(nLeft int) []sqlparse.Ident {
	left := map[string]bool{}
	for _, f := range sc.entries[:nLeft] {
		for _, c := range f.r.cols {
			left[c.name] = true
		}
	}
	var out []sqlparse.Ident
	seen := map[string]bool{}
	for _, f := range sc.entries[nLeft:] {
		for _, c := range f.r.cols {
			if left[c.name] && !seen[c.name] {
				seen[c.name] = true
				out = append(out, sqlparse.Ident{Name: c.name})
			}
		}
	}
	return out
}

// using records JOIN … USING (u): both sides' u decide the rows; an
// unqualified u means the left one; `*` shows it once.
func (sc *scope) using(u string, nLeft int) {
	var left, right *col
	for _, f := range sc.entries[:nLeft] {
		if f.r.has(u) || (left == nil && f.r.open()) {
			if left == nil || f.r.has(u) {
				left = sc.a.get(f.r, u)
			}
		}
	}
	for _, f := range sc.entries[nLeft:] {
		if f.r.has(u) || f.r.open() {
			right = sc.a.get(f.r, u)
			if f.hidden == nil {
				f.hidden = map[string]bool{}
			}
			f.hidden[u] = true
			break
		}
	}
	for _, c := range []*col{left, right} {
		if c != nil {
			sc.addPredCol(c)
		}
	}
	if left != nil {
		if sc.merged == nil {
			sc.merged = map[string]*col{}
		}
		sc.merged[u] = left
	}
}

// expandStar adds the columns of `*` or `t.*`.
func (sc *scope) expandStar(it *sqlparse.SelectItem, out *rel) {
	exclude := map[string]bool{}
	for _, e := range it.Exclude {
		exclude[e.Name] = true
	}
	replace := map[string]*sqlparse.SelectItem{}
	for _, r := range it.Replace {
		replace[r.Alias.Name] = r
	}
	rename := map[string]string{}
	for _, r := range it.Rename {
		rename[r[0].Name] = r[1].Name
	}
	var entries []*fromEntry
	if len(it.Qualifier) == 0 {
		entries = sc.entries
	} else if f := sc.entryFor(identNames(it.Qualifier)); f != nil {
		entries = []*fromEntry{f}
	} else {
		out.complete = false
		return
	}
	for _, f := range entries {
		for _, c := range f.r.cols {
			if exclude[c.name] || (len(it.Qualifier) == 0 && f.hidden[c.name]) {
				continue
			}
			var oc *col
			switch {
			case replace[c.name] != nil:
				oc = sc.exprCol(replace[c.name].Expr, c.name)
			case rename[c.name] != "":
				oc = passthrough(c, rename[c.name], c.name, true)
			default:
				oc = passthrough(c, c.name, c.name, true)
			}
			out.add(oc)
			sc.items = append(sc.items, &aliasItem{name: oc.name, c: oc})
		}
		switch {
		case f.r.kind == relFunc && len(f.r.cols) == 0 && isScalarTableFunc(f.r.funcName):
			// SELECT * FROM range(…): one column named after the function.
			oc := passthrough(sc.a.get(f.r, f.name), f.name, f.name, true)
			out.add(oc)
			sc.items = append(sc.items, &aliasItem{name: oc.name, c: oc})
		case !f.r.complete && (f.r.kind != relFunc || len(f.r.cols) == 0):
			// read_csv(…), a relation the catalog does not list: columns
			// unknown.
			out.complete = false
			out.fallback = append(out.fallback, f.r)
		}
	}
}

func identNames(ids []sqlparse.Ident) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Name
	}
	return out
}

// entryFor finds the FROM item a qualifier names: its alias (or CTE/table
// name), or a table's written name or a suffix of it.
func (sc *scope) entryFor(q []string) *fromEntry {
	if len(q) == 1 {
		for _, f := range sc.entries {
			if f.name == q[0] {
				return f
			}
		}
	}
	for _, f := range sc.entries {
		if len(f.written) >= len(q) && equalStrings(f.written[len(f.written)-len(q):], q) {
			return f
		}
	}
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---- names ----

// resolve finds the column a reference means, searching this scope, its
// select-list aliases, then enclosing scopes (correlated subqueries).
func (sc *scope) resolve(ref *sqlparse.ColumnRef) (*col, bool) {
	parts := identNames(ref.Parts)
	for s := sc; s != nil; s = s.parent {
		if c, ok := s.resolveHere(parts, s == sc); ok {
			return c, true
		}
	}
	// A qualified name whose qualifier is no relation: a struct field of a
	// column (col.field).
	if len(parts) >= 2 {
		for s := sc; s != nil; s = s.parent {
			if c, ok := s.resolveHere(parts[:1], s == sc); ok {
				return c, true
			}
		}
	}
	return nil, false
}

func (sc *scope) resolveHere(parts []string, aliases bool) (*col, bool) {
	if len(parts) == 1 {
		n := parts[0]
		if c, ok := sc.merged[n]; ok {
			return c, true
		}
		// 1. a FROM item that lists the column
		for _, f := range sc.entries {
			if f.r.has(n) {
				return sc.a.get(f.r, n), true
			}
		}
		// 2. a select-list alias (lateral column alias)
		if aliases {
			for i := 0; i < sc.visible && i < len(sc.items); i++ {
				if sc.items[i].name == n {
					return sc.items[i].c, true
				}
			}
		}
		// 3. a FROM item that may have it but does not say
		var open []*fromEntry
		for _, f := range sc.entries {
			if f.r.open() {
				open = append(open, f)
			}
		}
		switch len(open) {
		case 0:
			return nil, false
		case 1:
			return sc.a.get(open[0].r, n), true
		}
		// Several candidates: the name may come from any of them.
		c := &col{name: n, sig: hashOf("A", n)}
		for _, f := range open {
			oc := sc.a.get(f.r, n)
			c.entries = mergeEntries(c.entries, oc.entries)
		}
		return c, true
	}
	f := sc.entryFor(parts[:len(parts)-1])
	if f == nil {
		return nil, false
	}
	n := parts[len(parts)-1]
	return sc.a.get(f.r, n), true
}

// ---- expressions ----

// exprCol resolves an expression into a column: a bare reference passes
// its column through; anything else is derived from every column it reads.
func (sc *scope) exprCol(e sqlparse.Expr, name string) *col {
	if ref, ok := unparen(e).(*sqlparse.ColumnRef); ok {
		src, found := sc.resolve(ref)
		written := sqlparse.Format(ref)
		if !found {
			c := unresolvedCol(written)
			c.name = name
			return c
		}
		if len(ref.Parts) >= 2 && sc.qualifierIsColumn(ref) {
			// col.field: a part of the column's value.
			return sc.derived(e, name)
		}
		return passthrough(src, name, written, true)
	}
	return sc.derived(e, name)
}

// qualifierIsColumn reports whether a dotted reference was resolved as a
// struct field of a column rather than as relation.column.
func (sc *scope) qualifierIsColumn(ref *sqlparse.ColumnRef) bool {
	q := identNames(ref.Parts[:len(ref.Parts)-1])
	for s := sc; s != nil; s = s.parent {
		if s.entryFor(q) != nil {
			return false
		}
	}
	return true
}

// derived builds a computed column from e.
func (sc *scope) derived(e sqlparse.Expr, name string) *col {
	c := &col{name: name, certain: true}
	var sources []Source
	seenSource := map[Source]bool{}
	addSources := func(ss []Source) {
		for _, s := range ss {
			if !seenSource[s] {
				seenSource[s] = true
				sources = append(sources, s)
			}
		}
	}
	subSigs := map[*sqlparse.Query]string{}
	refs := map[*sqlparse.ColumnRef]*col{}
	var windowText []string
	var visit func(e sqlparse.Expr)
	visit = func(e sqlparse.Expr) {
		walkExpr(e, func(x sqlparse.Expr) bool {
			switch n := x.(type) {
			case *sqlparse.ColumnRef:
				rc, ok := sc.resolve(n)
				if !ok {
					rc = unresolvedCol(sqlparse.Format(n))
				}
				refs[n] = rc
				for _, en := range rc.entries {
					addSources(en.Sources)
				}
				if !rc.certain {
					c.certain = false
				}
			case *sqlparse.Func:
				if n.Over != nil && n.Over.Ref != nil {
					if w := sc.window(n.Over); w != n.Over {
						for _, p := range w.PartitionBy {
							visit(p)
						}
						for _, o := range w.OrderBy {
							visit(o.Expr)
						}
						windowText = append(windowText, n.Over.Ref.Name+"="+windowString(w))
					}
				}
			case *sqlparse.Lambda:
				// Lambda parameters are not columns: resolve the body with
				// them bound to nothing.
				lam := &scope{a: sc.a, parent: sc, env: sc.env, rows: newRowInfo()}
				for _, p := range n.Params {
					lam.entries = append(lam.entries, &fromEntry{name: "\x00lambda", r: lambdaRel(p.Name)})
				}
				inner := lam.derived(n.Body, "")
				for _, en := range inner.entries {
					addSources(en.Sources)
				}
				if !inner.certain {
					c.certain = false
				}
				return false
			case *sqlparse.Subquery, *sqlparse.Exists, *sqlparse.In, *sqlparse.Quantified, *sqlparse.Array:
				if q := subqueryOf(n); q != nil {
					r := sc.a.query(q, sc.env, sc, nil)
					var b strings.Builder
					for _, oc := range r.cols {
						for _, en := range oc.entries {
							addSources(en.Sources)
						}
						b.WriteString(oc.sig + ",")
					}
					for s := range r.rows.preds {
						addSources([]Source{s})
					}
					for rr := range r.rows.rels {
						sc.rows.rels[rr] = true
					}
					subSigs[q] = hashOf("Q", b.String(), r.rows.sig.String())
					// A subquery's value is not reduced to a canonical form.
					c.certain = false
				}
			}
			return true
		})
	}
	visit(e)
	sortSources(sources)
	c.entries = []Entry{{Mechanism: Derived, Sources: sources}}
	var b strings.Builder
	pr := &sqlparse.Printer{
		Column: func(b *strings.Builder, ref *sqlparse.ColumnRef) bool {
			if rc := refs[ref]; rc != nil {
				b.WriteString(sqlparse.Format(ref) + "{" + rc.sig + "}")
				return true
			}
			return false
		},
		Query: func(b *strings.Builder, q *sqlparse.Query) bool {
			b.WriteString("{" + subSigs[q] + "}")
			return true
		},
	}
	pr.Expr(&b, e)
	c.sig = hashOf("D", b.String(), strings.Join(windowText, ";"))
	c.expr = sqlparse.Format(e)
	if c.certain {
		c.canon = canonicalize(e, func(ref *sqlparse.ColumnRef) sqlparse.Expr {
			if rc := refs[ref]; rc != nil {
				return rc.canon
			}
			return nil
		}, sc.window)
		if c.canon == nil {
			c.certain = false
		}
	}
	if c.canon == nil {
		// Still a usable row-signature key: the text as written.
		c.canon = &sqlparse.ColumnRef{Parts: []sqlparse.Ident{{Name: "?" + c.sig}}}
	}
	return c
}

func windowString(w *sqlparse.Window) string {
	var b strings.Builder
	(&sqlparse.Printer{}).Window(&b, w)
	return b.String()
}

// lambdaRel is the relation a lambda parameter resolves in: one column
// with no source.
func lambdaRel(name string) *rel {
	r := newRel(relDerived)
	r.add(&col{name: name, sig: hashOf("L", name), expr: name,
		canon: &sqlparse.ColumnRef{Parts: []sqlparse.Ident{{Name: "$" + name}}}, certain: true})
	return r
}

func subqueryOf(e sqlparse.Expr) *sqlparse.Query {
	switch n := e.(type) {
	case *sqlparse.Subquery:
		return n.Query
	case *sqlparse.Exists:
		return n.Query
	case *sqlparse.In:
		return n.Query
	case *sqlparse.Quantified:
		return n.Query
	case *sqlparse.Array:
		return n.Query
	}
	return nil
}

func mergeSources(dst, src []Source) []Source {
	for _, s := range src {
		found := false
		for _, d := range dst {
			if d == s {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, s)
		}
	}
	return dst
}

func sortSources(ss []Source) {
	sort.Slice(ss, func(i, j int) bool { return sourceLess(ss[i], ss[j]) })
}

// walkExpr calls f on e and its sub-expressions (not into subqueries'
// bodies: f sees the subquery node itself). f returns false to skip a
// node's children.
func walkExpr(e sqlparse.Expr, f func(sqlparse.Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	w := func(xs ...sqlparse.Expr) {
		for _, x := range xs {
			walkExpr(x, f)
		}
	}
	switch x := e.(type) {
	case *sqlparse.Interval:
		w(x.Value)
	case *sqlparse.Unary:
		w(x.X)
	case *sqlparse.Binary:
		w(x.L, x.R)
	case *sqlparse.Paren:
		w(x.X)
	case *sqlparse.Func:
		w(x.Args...)
		for _, o := range x.OrderBy {
			w(o.Expr)
		}
		for _, o := range x.WithinGroup {
			w(o.Expr)
		}
		w(x.Filter)
		if x.Over != nil {
			w(x.Over.PartitionBy...)
			for _, o := range x.Over.OrderBy {
				w(o.Expr)
			}
			w(x.Over.FrameExprs...)
		}
	case *sqlparse.NamedArg:
		w(x.Value)
	case *sqlparse.Cast:
		w(x.X)
	case *sqlparse.Case:
		w(x.Operand)
		for _, wh := range x.Whens {
			w(wh.Cond, wh.Result)
		}
		w(x.Else)
	case *sqlparse.In:
		w(x.X)
		w(x.List...)
	case *sqlparse.Between:
		w(x.X, x.Lo, x.Hi)
	case *sqlparse.Like:
		w(x.X, x.Pattern, x.Escape)
	case *sqlparse.Is:
		w(x.X, x.DistinctFrom)
	case *sqlparse.Quantified:
		w(x.X, x.Array)
	case *sqlparse.Array:
		w(x.Elems...)
	case *sqlparse.Struct:
		w(x.Values...)
	case *sqlparse.Row:
		w(x.Elems...)
	case *sqlparse.Subscript:
		w(x.X, x.Index, x.Upper)
	case *sqlparse.Field:
		w(x.X)
	case *sqlparse.Extract:
		w(x.X)
	case *sqlparse.Collate:
		w(x.X)
	case *sqlparse.AtTimeZone:
		w(x.X, x.Zone)
	}
}

// ---- result ----

func (a *analyzer) result(top *rel) *Result {
	res := &Result{Complete: top.complete, RowCertain: top.rows.certain}
	outSources := map[Source]bool{}
	for _, c := range top.cols {
		pc := &Column{Name: c.name, Expr: c.expr, Signature: c.sig, Certain: c.certain}
		for _, e := range c.entries {
			ss := append([]Source(nil), e.Sources...)
			sortSources(ss)
			pc.Entries = mergeEntries(pc.Entries, []Entry{{Mechanism: e.Mechanism, Sources: ss}})
			for _, s := range ss {
				outSources[s] = true
			}
		}
		if c.certain && c.canon != nil {
			if text, ok := canonText(c.canon); ok {
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
	res.RowSignature = hashOf("R", top.rows.sig.String())
	return res
}

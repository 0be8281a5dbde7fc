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
	// hash is key() as of when sig was hashedLen bytes long.
	hash      string
	hashedLen int
}

// key is the row signature as a relation that reads these rows writes it
// into its own: a hash, so that a CTE read in several places, or read by
// CTEs that are themselves read in several places, adds a fixed length
// each time instead of its whole signature, and a chain of CTEs each
// reading the ones before it has signatures that grow linearly, not
// exponentially. Equal keys mean equal signatures, as with every other
// signature here.
func (ri *rowInfo) key() string {
	if ri.hash == "" || ri.hashedLen != ri.sig.Len() {
		ri.hash, ri.hashedLen = hashOf("R", ri.sig.String()), ri.sig.Len()
	}
	return ri.hash
}

func newRowInfo() *rowInfo {
	return &rowInfo{preds: map[Source]bool{}, rels: map[Relation]bool{}, certain: true}
}

// mergeRows adds what shapes o's rows to ri.
func (a *analyzer) mergeRows(ri, o *rowInfo) {
	a.m.nodes(1 + len(o.rels))
	a.m.sources(len(o.preds))
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

type analyzer struct {
	catalog Catalog
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

func newAnalyzer(c Catalog, m *meter) *analyzer {
	return &analyzer{catalog: c, m: m, bases: map[Relation]*rel{}, allRels: map[Relation]bool{}, subqueries: map[subqueryKey]*rel{}}
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
	a.m.nodes(1 + len(cols))
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
	a.m.nodes(1)
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
	a.m.nodes(len(r.fallback))
	for _, f := range r.fallback {
		if f.has(n) {
			return a.passthrough(a.get(f, n), n, n, false)
		}
	}
	for _, f := range r.fallback {
		if f.open() {
			return a.passthrough(a.get(f, n), n, n, false)
		}
	}
	return unresolvedCol(n)
}

func unresolvedCol(n string) *col {
	return &col{name: n, sig: hashOf("U", n), expr: n}
}

// passthrough is an output column that hands on src unchanged under name
// out; written is the reference as the query writes it.
func (a *analyzer) passthrough(src *col, out, written string, certain bool) *col {
	a.m.nodes(1 + len(src.entries))
	for _, e := range src.entries {
		a.m.sources(len(e.Sources))
	}
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
	// index finds FROM items by name once there are many of them.
	index *entryIndex
	items []*aliasItem
	// firstItem is the index of the first select item with each name.
	firstItem map[string]int
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
		sc.a.m.nodes(1)
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

// addItem appends a select item, indexing its name the first time.
func (sc *scope) addItem(name string, c *col) {
	if sc.firstItem == nil {
		sc.firstItem = map[string]int{}
	}
	if _, dup := sc.firstItem[name]; !dup {
		sc.firstItem[name] = len(sc.items)
	}
	sc.items = append(sc.items, &aliasItem{name: name, c: c})
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
	tail := &queryTail{orderBy: q.OrderBy, limit: q.Limit, offset: q.Offset}
	return a.setExpr(q.Body, env, parent, lateral, tail)
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
	sc.limitClause(tail, nil)
	return r
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
	if x.Op != "UNION" {
		// EXCEPT / INTERSECT: the other sides' values decide which rows of
		// the first survive; they contribute no value.
		for _, r := range rest {
			for _, c := range r.cols {
				for _, e := range c.entries {
					a.m.sources(len(e.Sources))
					for _, s := range e.Sources {
						out.rows.preds[s] = true
					}
				}
				out.rows.sig.WriteString("[" + a.canonKey(c.canon) + "]")
				if !c.certain {
					out.rows.certain = false
				}
			}
		}
		for _, c := range l.cols {
			out.add(a.passthrough(c, c.name, c.name, true))
		}
		out.fallback = l.fallback
		return out
	}
	for i, lc := range l.cols {
		c := &col{name: lc.name, certain: lc.certain}
		entries := newEntrySet(a.m, lc.entries)
		sigs := []string{"UNION", lc.sig}
		canonArgs := []sqlparse.Expr{lc.canon}
		for _, r := range rest {
			var rc *col
			if x.ByName {
				rc = r.known[lc.name]
			} else if i < len(r.cols) {
				rc = r.cols[i]
			}
			if rc == nil {
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

func unionCanon(args []sqlparse.Expr) sqlparse.Expr {
	for _, a := range args {
		if a == nil {
			return nil
		}
	}
	return &sqlparse.Func{Name: []sqlparse.Ident{{Name: "union"}}, Args: args}
}

// entrySet gathers a column's entries without duplicates. A short list is
// searched; a long one (a UNION of many branches) is indexed, so that
// gathering n entries costs n steps, not n².
type entrySet struct {
	m    *meter
	list []Entry
	seen map[string]bool // entryKey of every entry, once the list is long
}

// shortEntries is how long a list is searched before it is indexed.
const shortEntries = 8

func newEntrySet(m *meter, first []Entry) *entrySet {
	s := &entrySet{m: m}
	s.add(first)
	return s
}

// add appends the entries not already in the set.
func (s *entrySet) add(entries []Entry) {
	for _, e := range entries {
		s.m.nodes(1)
		s.m.sources(len(e.Sources))
		if s.seen == nil && len(s.list) < shortEntries {
			dup := false
			for _, x := range s.list {
				if x.Mechanism == e.Mechanism && sameSources(x.Sources, e.Sources) {
					dup = true
					break
				}
			}
			if !dup {
				s.list = append(s.list, e)
			}
			continue
		}
		if s.seen == nil {
			s.seen = make(map[string]bool, 2*len(s.list))
			for _, x := range s.list {
				s.seen[entryKey(x)] = true
			}
		}
		if k := entryKey(e); !s.seen[k] {
			s.seen[k] = true
			s.list = append(s.list, e)
		}
	}
}

func entryKey(e Entry) string {
	var b strings.Builder
	b.WriteByte(byte('0' + e.Mechanism))
	for _, s := range e.Sources {
		b.WriteByte(0)
		b.WriteString(s.String())
	}
	return b.String()
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
		r = a.renameCols(r, d.cte.Columns)
	}
	d.rel, d.state = r, 2
	return r
}

// renameCols applies a column alias list (t(a, b), WITH x(a, b)).
func (a *analyzer) renameCols(r *rel, names []sqlparse.Ident) *rel {
	a.m.nodes(1 + len(r.cols))
	out := newRel(r.kind)
	out.base, out.complete, out.fallback, out.rows = r.base, r.complete, r.fallback, r.rows
	out.funcSources, out.funcCanon, out.funcCertain, out.funcName = r.funcSources, r.funcCanon, r.funcCertain, r.funcName
	for i, c := range r.cols {
		if i < len(names) {
			out.add(a.passthrough(c, names[i].Name, names[i].Name, true))
		} else {
			out.add(c)
		}
	}
	return out
}

// ---- SELECT ----

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
	for _, it := range s.Items {
		sc.visible = len(sc.items)
		if it.Star {
			sc.expandStar(it, out)
			continue
		}
		name := outputName(it)
		c := sc.exprCol(it.Expr, name)
		out.add(c)
		sc.addItem(name, c)
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
			return "#" + sc.a.canonKey(c.canon)
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
	sc.a.m.nodes(1)
	for _, e := range c.entries {
		sc.a.m.sources(len(e.Sources))
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

// ---- FROM ----

// addFrom resolves a FROM item, adds its entries to the scope, and writes
// its row signature to sig. A relation read here (a CTE, a subquery)
// writes the key of its own signature, once resolved.
func (sc *scope) addFrom(t sqlparse.TableExpr, sig *strings.Builder) {
	a := sc.a
	a.m.nodes(1)
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
					r = a.renameCols(r, x.Alias.Columns)
				}
				sc.entries = append(sc.entries, &fromEntry{name: alias, r: r})
				a.mergeRows(sc.rows, r.rows)
				sig.WriteString("(" + r.rows.key() + ")")
				return
			}
		}
		rel := relationOf(written)
		r := a.baseRel(rel)
		if x.Alias != nil && len(x.Alias.Columns) > 0 {
			r = a.renameCols(r, x.Alias.Columns)
		}
		sc.entries = append(sc.entries, &fromEntry{name: alias, written: written, r: r})
		sc.rows.rels[rel] = true
		sig.WriteString("T(" + rel.String() + ")")
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
				r = a.renameCols(r, x.Alias.Columns)
			}
		}
		sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
		a.mergeRows(sc.rows, r.rows)
		sig.WriteString("(" + r.rows.key() + ")")
	case *sqlparse.TableFunc:
		sig.WriteString(sc.addTableFunc(x))
	case *sqlparse.ValuesTable:
		r := a.values(x.Values, x.Alias, sc.env, sc.parent)
		name := ""
		if x.Alias != nil {
			name = x.Alias.Name.Name
		}
		sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
		sig.WriteString(r.rows.sig.String())
	case *sqlparse.Join:
		sig.WriteString("JOIN " + x.Kind)
		if x.Natural {
			sig.WriteString(" NATURAL")
		}
		sig.WriteString("(")
		sc.addFrom(x.Left, sig)
		nLeft := len(sc.entries)
		sig.WriteString(",")
		sc.addFrom(x.Right, sig)
		using := x.Using
		if x.Natural {
			using = sc.commonColumns(nLeft)
		}
		if len(using) > 0 {
			sig.WriteString(" USING(")
			for _, u := range using {
				sig.WriteString(u.Name + ",")
				sc.using(u.Name, nLeft)
			}
			sig.WriteString(")")
		}
		if x.On != nil {
			sig.WriteString(" ON(" + sc.predicate("", x.On) + ")")
		}
		sig.WriteString(")")
	default:
		sig.WriteString("?")
	}
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
	seen := map[Source]bool{}
	for _, e := range argCol.entries {
		a.m.sources(len(e.Sources))
		for _, s := range e.Sources {
			if !seen[s] {
				seen[s] = true
				r.funcSources = append(r.funcSources, s)
			}
		}
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
	return "F(" + a.canonKey(r.funcCanon) + ")"
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
	for _, f := range sc.entries {
		sc.a.m.nodes(1 + len(f.r.cols))
	}
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
	sc.a.m.nodes(1 + len(sc.entries))
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
				oc = sc.a.passthrough(c, rename[c.name], c.name, true)
			default:
				oc = sc.a.passthrough(c, c.name, c.name, true)
			}
			out.add(oc)
			sc.addItem(oc.name, oc)
		}
		switch {
		case f.r.kind == relFunc && len(f.r.cols) == 0 && isScalarTableFunc(f.r.funcName):
			// SELECT * FROM range(…): one column named after the function.
			oc := sc.a.passthrough(sc.a.get(f.r, f.name), f.name, f.name, true)
			out.add(oc)
			sc.addItem(oc.name, oc)
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

// shortScope is how many FROM items a scope searches one by one before it
// indexes them: a join of many relations looks each name up in constant
// time.
const shortScope = 8

// entryIndex indexes a scope's FROM items, the first one winning each
// name as a search in order would.
type entryIndex struct {
	indexed int                   // how many of the entries are indexed
	byName  map[string]*fromEntry // the first item with each alias
	byTable map[string]*fromEntry // the first table written with each last name part
	open    []*fromEntry          // the items that may have columns they do not list
	// columns are the unqualified names looked up so far: the first item
	// listing each, or nil after searching the first upto items. Only the
	// names a statement reads are searched for, each once, however many
	// columns its relations have.
	columns map[string]columnFound
}

type columnFound struct {
	f    *fromEntry
	upto int
}

// indexed brings the scope's index up to date with its entries (they are
// only ever appended) and returns it; nil while the scope is short.
func (sc *scope) indexed() *entryIndex {
	if len(sc.entries) <= shortScope {
		return nil
	}
	x := sc.index
	if x == nil {
		x = &entryIndex{byName: map[string]*fromEntry{}, byTable: map[string]*fromEntry{}, columns: map[string]columnFound{}}
		sc.index = x
	}
	first := func(m map[string]*fromEntry, k string, f *fromEntry) {
		if _, ok := m[k]; !ok {
			m[k] = f
		}
	}
	for ; x.indexed < len(sc.entries); x.indexed++ {
		f := sc.entries[x.indexed]
		sc.a.m.nodes(1)
		first(x.byName, f.name, f)
		if len(f.written) > 0 {
			first(x.byTable, f.written[len(f.written)-1], f)
		}
		if f.r.open() {
			x.open = append(x.open, f)
		}
	}
	return x
}

// entryWith is the first FROM item that lists column n.
func (sc *scope) entryWith(n string) *fromEntry {
	x := sc.indexed()
	if x == nil {
		sc.a.m.nodes(len(sc.entries))
		for _, f := range sc.entries {
			if f.r.has(n) {
				return f
			}
		}
		return nil
	}
	found := x.columns[n]
	if found.f == nil && found.upto < len(sc.entries) {
		sc.a.m.nodes(len(sc.entries) - found.upto)
		for _, f := range sc.entries[found.upto:] {
			if f.r.has(n) {
				found.f = f
				break
			}
		}
		found.upto = len(sc.entries)
		x.columns[n] = found
	}
	return found.f
}

// openEntries are the FROM items that may have columns they do not list.
func (sc *scope) openEntries() []*fromEntry {
	if x := sc.indexed(); x != nil {
		return x.open
	}
	var open []*fromEntry
	for _, f := range sc.entries {
		if f.r.open() {
			open = append(open, f)
		}
	}
	return open
}

// entryFor finds the FROM item a qualifier names: its alias (or CTE/table
// name), or a table's written name or a suffix of it.
func (sc *scope) entryFor(q []string) *fromEntry {
	if x := sc.indexed(); x != nil && len(q) == 1 {
		if f := x.byName[q[0]]; f != nil {
			return f
		}
		return x.byTable[q[0]]
	}
	sc.a.m.nodes(1 + len(sc.entries))
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
		sc.a.m.nodes(1)
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
		if f := sc.entryWith(n); f != nil {
			return sc.a.get(f.r, n), true
		}
		// 2. a select-list alias (lateral column alias)
		if aliases {
			if i, ok := sc.firstItem[n]; ok && i < sc.visible {
				return sc.items[i].c, true
			}
		}
		// 3. a FROM item that may have it but does not say
		open := sc.openEntries()
		switch len(open) {
		case 0:
			return nil, false
		case 1:
			return sc.a.get(open[0].r, n), true
		}
		// Several candidates: the name may come from any of them.
		c := &col{name: n, sig: hashOf("A", n)}
		entries := newEntrySet(sc.a.m, nil)
		for _, f := range open {
			entries.add(sc.a.get(f.r, n).entries)
		}
		c.entries = entries.list
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
		return sc.a.passthrough(src, name, written, true)
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
		sc.a.m.sources(len(ss))
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
		sqlparse.Inspect(e, func(x sqlparse.Node) bool {
			if _, ok := x.(sqlparse.Expr); ok {
				sc.a.m.nodes(1)
			}
			switch n := x.(type) {
			case nil:
				return false
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
			case *sqlparse.Query:
				r := sc.subquery(n)
				var b strings.Builder
				for _, oc := range r.cols {
					for _, en := range oc.entries {
						addSources(en.Sources)
					}
					b.WriteString(oc.sig + ",")
				}
				sc.a.m.nodes(len(r.rows.rels))
				for s := range r.rows.preds {
					addSources([]Source{s})
				}
				for rr := range r.rows.rels {
					sc.rows.rels[rr] = true
				}
				subSigs[n] = hashOf("Q", b.String(), r.rows.key())
				// A subquery's value is not reduced to a canonical form.
				c.certain = false
				return false
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
		c.canon = canonicalize(sc.a.m, e, func(ref *sqlparse.ColumnRef) sqlparse.Expr {
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

// subquery resolves an expression's subquery in this scope, once.
func (sc *scope) subquery(q *sqlparse.Query) *rel {
	k := subqueryKey{q, sc}
	if r, ok := sc.a.subqueries[k]; ok {
		return r
	}
	r := sc.a.query(q, sc.env, sc, nil)
	sc.a.subqueries[k] = r
	return r
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

func sortSources(ss []Source) {
	sort.Slice(ss, func(i, j int) bool { return sourceLess(ss[i], ss[j]) })
}

// ---- result ----

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

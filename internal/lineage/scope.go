package lineage

import (
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

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

// addFrom resolves a FROM item, adds its entries to the scope, and writes
// its row signature to sig. A relation read here (a CTE, a subquery)
// writes the key of its own signature, once resolved.
func (sc *scope) addFrom(t sqlparse.TableExpr, sig *strings.Builder) {
	a := sc.a
	a.m.nodes(1)
	switch x := t.(type) {
	case *sqlparse.Table:
		sc.addTable(x, sig)
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
		sig.WriteString("(" + r.rows.key() + ")" + x.Chosen)
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
		sc.addJoin(x, sig)
	case *sqlparse.Pivot, *sqlparse.Unpivot:
		sc.addTurned(x, sig)
	default:
		sig.WriteString("?")
	}
}

// addTable adds a table, or a CTE when it names one in scope.
func (sc *scope) addTable(x *sqlparse.Table, sig *strings.Builder) {
	a := sc.a
	written := make([]string, len(x.Name))
	for i, id := range x.Name {
		written[i] = id.Name
	}
	name := written[len(written)-1]
	alias := name
	if x.Alias != nil {
		alias = x.Alias.Name.Name
	}
	if sc.arrayPath(written) {
		// BigQuery's and Redshift's FROM t, t.items: the elements of an
		// earlier item's array column, as UNNEST(t.items) AS items.
		as := x.Alias
		if as == nil {
			as = &sqlparse.Alias{Name: x.Name[len(x.Name)-1]}
		}
		unnest := &sqlparse.Func{Name: []sqlparse.Ident{{Name: "unnest"}}, Args: []sqlparse.Expr{&sqlparse.ColumnRef{Parts: x.Name, Pos: x.Pos}}, Pos: x.Pos}
		sig.WriteString(sc.addTableFunc(&sqlparse.TableFunc{Func: unnest, Alias: as, Pos: x.Pos}) + x.Chosen)
		return
	}
	if len(written) == 1 {
		if d := sc.env.lookup(name); d != nil {
			r := a.cteRel(d)
			if x.Alias != nil && len(x.Alias.Columns) > 0 {
				r = a.renameCols(r, x.Alias.Columns)
			}
			sc.entries = append(sc.entries, &fromEntry{name: alias, r: r})
			a.mergeRows(sc.rows, r.rows)
			sig.WriteString("(" + r.rows.key() + ")" + x.Chosen)
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
	sig.WriteString("T(" + rel.String() + ")" + x.Chosen)
}

// arrayPath reports whether a FROM item's name, written, starts with the
// name of an earlier item of the same FROM clause, which BigQuery and
// Redshift read as that item's array column to unnest.
func (sc *scope) arrayPath(written []string) bool {
	return len(written) >= 2 && sc.a.dialect.ArrayPaths() && sc.entryFor(written[:1]) != nil
}

// addJoin adds both sides of a join and what its USING, NATURAL or ON
// reads.
func (sc *scope) addJoin(x *sqlparse.Join, sig *strings.Builder) {
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
	if x.Kind == "SEMI" || x.Kind == "ANTI" {
		// The right side only chooses the left's rows: its columns are
		// not the join's, for `*` or for a name.
		sc.entries = sc.entries[:nLeft]
		sc.index = nil
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
	r.funcSources = a.sourcesOf(argCol)
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
		} else if cols := a.dialect.GeneratorColumns(r.funcName); cols != nil {
			for _, c := range cols {
				r.add(a.funcCol(r, c))
			}
		} else if isScalarTableFunc(r.funcName) {
			// UNNEST(x) AS v: v names the value too, but in DuckDB.
			fn := r.funcName
			if i := strings.LastIndexByte(fn, '.'); i >= 0 {
				fn = fn[i+1:]
			}
			r.add(a.funcCol(r, a.dialect.FunctionColumn(fn, name)))
		}
	}
	if x.WithOffset != nil {
		r.add(a.funcCol(r, x.WithOffset.Name))
	}
	sc.entries = append(sc.entries, &fromEntry{name: name, r: r})
	// What the arguments read decides how many rows the function gives
	// (UNNEST(t.arr), range(t.n)), as a join's keys decide its rows.
	for _, s := range r.funcSources {
		sc.rows.rels[s.Relation] = true
		sc.rows.preds[s] = true
	}
	return "F(" + a.canonKey(r.funcCanon) + ")"
}

// sourcesOf is every source of cols' entries, once each, sorted.
func (a *analyzer) sourcesOf(cols ...*col) []Source {
	var out []Source
	seen := map[Source]bool{}
	for _, c := range cols {
		for _, e := range c.entries {
			a.m.sources(len(e.Sources))
			for _, s := range e.Sources {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	sortSources(out)
	return out
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
	replace := map[string]*sqlparse.SelectItem{}
	for _, r := range it.Replace {
		replace[r.Alias.Name] = r
	}
	rename := map[string]string{}
	for _, r := range it.Rename {
		rename[r[0].Name] = r[1].Name
	}
	for _, p := range sc.starPicks(it, nil, 0, out) {
		var oc *col
		switch c := p.c; {
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
}

// A starPick is a column a star picks, and the FROM item it is of.
type starPick struct {
	f *fromEntry
	c *col
}

// starPicks are the columns the star it picks: of its FROM items (or the
// one it qualifies), but those it excludes, those a USING merged away and,
// with its match or keep (when not nil), those whose names they do not
// keep. Testing a name costs the work budget its patterns' length
// (keepCost is keep's), so that a long pattern over a wide relation is
// bounded like any other product. A FROM item whose columns are not all
// known makes out incomplete and one of its fallbacks; nil out is for a
// caller that only reads.
func (sc *scope) starPicks(it *sqlparse.SelectItem, keep func(string) bool, keepCost int, out *rel) []starPick {
	incomplete := func(r *rel) {
		if out != nil {
			out.complete = false
			if r != nil {
				out.fallback = append(out.fallback, r)
			}
		}
	}
	exclude := map[string]bool{}
	for _, e := range it.Exclude {
		exclude[e.Name] = true
	}
	match := func(string) bool { return true }
	cost := keepCost
	if it.Match != nil {
		match, _ = it.Match.Matcher() // the parser refused a pattern it cannot match with
		cost += len(it.Match.Pattern)
	}
	var entries []*fromEntry
	if len(it.Qualifier) == 0 {
		entries = sc.entries
	} else if f := sc.entryFor(identNames(it.Qualifier)); f != nil {
		entries = []*fromEntry{f}
	} else {
		incomplete(nil)
		return nil
	}
	var picks []starPick
	for _, f := range entries {
		for _, c := range f.r.cols {
			if cost > 0 {
				sc.a.m.nodes(cost)
			}
			if exclude[c.name] || (len(it.Qualifier) == 0 && f.hidden[c.name]) || !match(c.name) || keep != nil && !keep(c.name) {
				continue
			}
			picks = append(picks, starPick{f, c})
		}
		switch {
		case f.r.kind == relFunc && len(f.r.cols) == 0 && isScalarTableFunc(f.r.funcName):
			// SELECT * FROM range(…): one column named after the function.
			if match(f.name) && (keep == nil || keep(f.name)) {
				picks = append(picks, starPick{f, sc.a.get(f.r, f.name)})
			}
		case !f.r.complete && (f.r.kind != relFunc || len(f.r.cols) == 0):
			// read_csv(…), a relation the catalog does not list: columns
			// unknown.
			incomplete(f.r)
		}
	}
	return picks
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
		if len(f.written) >= len(q) && slices.Equal(f.written[len(f.written)-len(q):], q) {
			return f
		}
	}
	return nil
}

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
	// A field of a FROM item's column (t.col.field), then a field of a
	// column (col.field): a qualified name whose qualifier is no relation.
	if len(parts) >= 3 {
		for s := sc; s != nil; s = s.parent {
			if c, ok := s.resolveHere(parts[:2], false); ok {
				return c, true
			}
		}
	}
	if len(parts) >= 2 {
		for s := sc; s != nil; s = s.parent {
			if c, ok := s.resolveHere(parts[:1], s == sc); ok {
				return c, true
			}
		}
	}
	// A FROM item's name that is no column's: its whole row, as BigQuery,
	// PostgreSQL and DuckDB read it (to_json_string(c), row_to_json(c)).
	if len(parts) == 1 {
		for s := sc; s != nil; s = s.parent {
			if f := s.entryFor(parts); f != nil {
				return sc.a.wholeRow(f), true
			}
		}
	}
	return nil, false
}

// wholeRow is the value of f's whole row: derived from every column of it,
// and uncertain, as its value is all of them in an order the catalog
// decides.
func (a *analyzer) wholeRow(f *fromEntry) *col {
	a.m.nodes(1 + len(f.r.cols))
	var sig strings.Builder
	for _, c := range f.r.cols {
		sig.WriteString(c.sig + ",")
	}
	return &col{name: f.name, expr: f.name, sig: hashOf("W", sig.String()),
		entries: []Entry{{Mechanism: Derived, Sources: a.sourcesOf(f.r.cols...)}}}
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

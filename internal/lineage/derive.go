package lineage

import (
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// exprCol resolves an expression into a column: a bare reference passes
// its column through; anything else is derived from every column it reads.
func (sc *scope) exprCol(e sqlparse.Expr, name string) *col {
	if p, ok := unparen(e).(*sqlparse.Param); ok {
		switch c, ok := sc.positional(p); {
		case c != nil:
			return sc.a.passthrough(c, name, p.Text, true)
		case ok: // a column the catalog does not list
			c := unresolvedCol(p.Text)
			c.name = name
			return c
		}
	}
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

// derived builds a computed column from e: its sources are every column
// e reads (through the named windows its calls use, lambdas' bodies and
// subqueries), its signature e as written with each reference and
// subquery replaced by the signature of what it reads, its canonical value
// e with each reference replaced by that column's.
func (sc *scope) derived(e sqlparse.Expr, name string) *col {
	d := &derivation{sc: sc, c: &col{name: name, certain: true}, seen: map[Source]bool{},
		refs: map[*sqlparse.ColumnRef]*col{}, subSigs: map[*sqlparse.Query]string{}}
	d.visit(e)
	sortSources(d.sources)
	c := d.c
	c.entries = []Entry{{Mechanism: Derived, Sources: d.sources}}
	c.sig = d.signature(e)
	c.expr = sqlparse.Format(e)
	c.canon = d.canonical(e)
	return c
}

// derivation is what derived gathers while it walks an expression.
type derivation struct {
	sc         *scope
	c          *col
	sources    []Source
	seen       map[Source]bool
	refs       map[*sqlparse.ColumnRef]*col // the column each reference resolves to
	subSigs    map[*sqlparse.Query]string   // the signature of each subquery
	windowText []string                     // the named windows the calls use, inlined
}

func (d *derivation) visit(e sqlparse.Expr) { sqlparse.Inspect(e, d.node) }

// node takes in one node of the expression; false skips its children.
func (d *derivation) node(n sqlparse.Node) bool {
	if _, ok := n.(sqlparse.Expr); ok {
		d.sc.a.m.nodes(1)
	}
	switch x := n.(type) {
	case nil:
		return false
	case *sqlparse.ColumnRef:
		rc, ok := d.sc.resolve(x)
		if !ok {
			rc = unresolvedCol(sqlparse.Format(x))
		}
		d.refs[x] = rc
		d.reads(rc)
	case *sqlparse.Param:
		if c, ok := d.sc.positional(x); ok {
			if c != nil {
				d.reads(c)
			}
			d.c.certain = false // its value is whichever column the catalog puts there
		}
	case *sqlparse.Columns: // outside a select item: every column it picks
		for _, p := range d.sc.columnPicks(x, nil) {
			d.reads(p.c)
		}
		return false
	case *sqlparse.Func:
		d.namedWindow(x)
		d.starArgs(x)
	case *sqlparse.Lambda:
		d.lambda(x)
		return false
	case *sqlparse.Query:
		d.subquery(x)
		return false
	}
	return true
}

// add records sources the value reads.
func (d *derivation) add(ss []Source) {
	d.sc.a.m.sources(len(ss))
	for _, s := range ss {
		if !d.seen[s] {
			d.seen[s] = true
			d.sources = append(d.sources, s)
		}
	}
}

// reads records that the value reads column c.
func (d *derivation) reads(c *col) {
	for _, en := range c.entries {
		d.add(en.Sources)
	}
	if !c.certain {
		d.c.certain = false
	}
}

// positional is the column Snowflake's $n names, the n-th of the FROM
// items' columns (a staged file's, a VALUES list's, a table's): ok is
// true for such a name, c nil when the catalog does not list that many
// columns; ok is false for any other parameter or dialect.
func (sc *scope) positional(p *sqlparse.Param) (c *col, ok bool) {
	n, ok := sc.a.dialect.PositionalColumn(p)
	if !ok {
		return nil, false
	}
	picks := sc.starPicks(&sqlparse.SelectItem{Star: true}, nil, 0, nil)
	sc.a.m.nodes(len(picks))
	if n <= len(picks) {
		return picks[n-1].c, true
	}
	return nil, true
}

// starArgs reads what a call's * and t.* stand for: every column of the
// rows (object_construct(*), hash(t.*)), where count's read none.
func (d *derivation) starArgs(f *sqlparse.Func) {
	counts := func() bool { return len(f.Name) == 1 && strings.EqualFold(f.Name[0].Name, "count") }
	if f.Star && !counts() {
		d.readsRow(nil)
	}
	for _, a := range f.Args {
		if s, ok := a.(*sqlparse.Star); ok && !counts() {
			d.readsRow(s.Qualifier)
		}
	}
}

// readsRow reads every column of the FROM items, or of the one qualifier
// names, as a call's * does: the value is then uncertain, made of a list
// of columns the catalog decides.
func (d *derivation) readsRow(qualifier []sqlparse.Ident) {
	for _, p := range d.sc.starPicks(&sqlparse.SelectItem{Star: true, Qualifier: qualifier}, nil, 0, nil) {
		d.reads(p.c)
	}
	d.c.certain = false
}

// namedWindow reads the partition and order of the named window a call's
// OVER refers to, which are part of the call's value.
func (d *derivation) namedWindow(f *sqlparse.Func) {
	if f.Over == nil || f.Over.Ref == nil {
		return
	}
	w := d.sc.window(f.Over)
	if w == f.Over {
		return
	}
	for _, p := range w.PartitionBy {
		d.visit(p)
	}
	for _, o := range w.OrderBy {
		d.visit(o.Expr)
	}
	d.windowText = append(d.windowText, f.Over.Ref.Name+"="+windowString(w))
}

// lambda resolves a lambda's body with its parameters bound to nothing:
// they are not columns.
func (d *derivation) lambda(l *sqlparse.Lambda) {
	sc := d.sc
	lam := &scope{a: sc.a, parent: sc, env: sc.env, rows: newRowInfo()}
	for _, p := range l.Params {
		lam.entries = append(lam.entries, &fromEntry{name: "\x00lambda", r: lambdaRel(p.Name)})
	}
	d.reads(lam.derived(l.Body, ""))
}

// subquery reads what a subquery's columns and rows read. Its value is not
// reduced to a canonical form.
func (d *derivation) subquery(q *sqlparse.Query) {
	r := d.sc.subquery(q)
	var b strings.Builder
	for _, oc := range r.cols {
		for _, en := range oc.entries {
			d.add(en.Sources)
		}
		b.WriteString(oc.sig + ",")
	}
	d.sc.a.m.nodes(len(r.rows.rels))
	for s := range r.rows.preds {
		d.add([]Source{s})
	}
	for rr := range r.rows.rels {
		d.sc.rows.rels[rr] = true
	}
	d.subSigs[q] = hashOf("Q", b.String(), r.rows.key())
	d.c.certain = false
}

// signature hashes e as written, each reference printed with the
// signature of its column and each subquery as its own signature.
func (d *derivation) signature(e sqlparse.Expr) string {
	var b strings.Builder
	pr := &sqlparse.Printer{
		Column: func(b *strings.Builder, ref *sqlparse.ColumnRef) bool {
			if rc := d.refs[ref]; rc != nil {
				b.WriteString(sqlparse.Format(ref) + "{" + rc.sig + "}")
				return true
			}
			return false
		},
		Query: func(b *strings.Builder, q *sqlparse.Query) bool {
			b.WriteString("{" + d.subSigs[q] + "}")
			return true
		},
	}
	pr.Expr(&b, e)
	return hashOf("D", b.String(), strings.Join(d.windowText, ";"))
}

// canonical is e's canonical value when everything it reads has one;
// otherwise the column is uncertain and its value stands for itself by
// its signature, still a usable row-signature key.
func (d *derivation) canonical(e sqlparse.Expr) sqlparse.Expr {
	if d.c.certain {
		canon := canonicalize(d.sc.a.m, e, func(ref *sqlparse.ColumnRef) sqlparse.Expr {
			if rc := d.refs[ref]; rc != nil {
				return rc.canon
			}
			return nil
		}, d.sc.window)
		if canon != nil {
			return canon
		}
		d.c.certain = false
	}
	return &sqlparse.ColumnRef{Parts: []sqlparse.Ident{{Name: "?" + d.c.sig}}}
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

package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
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
				if x.Mechanism == e.Mechanism && slices.Equal(x.Sources, e.Sources) {
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

package propagate

import (
	"context"
	"fmt"
	"slices"

	"github.com/celine-eu/governanced/internal/lineage"
)

// Inferred is the governance a column carries.
type Inferred struct {
	// Levels are the strongest classification and the strictest access
	// level among what the column's value is computed from, its own
	// relation's declaration aside: none when nothing it is computed from
	// declares any.
	Levels
	// Complete is false when part of the column's lineage is not known
	// (a model on the way whose SQL cannot be read, a column a model's
	// lineage does not list): then Levels are a lower bound.
	Complete bool
	// Through are the functions every path carrying Levels passes through,
	// sorted; ThroughKnown is false when some such path's functions are
	// not known (they count as none). Empty when Levels are none.
	Through      []string
	ThroughKnown bool
	// Path is how the strongest of those levels reached the column: first
	// the column of the relation that declares them, then one hop per
	// model, ending at the column itself. Empty when Levels are none. At
	// most MaxPath hops: PathOmitted counts the hops left out after the
	// first.
	Path        []Hop
	PathOmitted int
	// RowSet are Levels counting the columns that choose rows as well, on
	// every model on the way; RowSetComplete is Complete for them.
	RowSet         Levels
	RowSetComplete bool
}

// Hop is one step of a path: a column of a relation, and how the column
// before it reached it.
type Hop struct {
	Relation string `json:"relation"`          // the relation's name
	Dataset  string `json:"dataset,omitempty"` // its dataset id
	Column   string `json:"column"`
	// Mechanism is how the previous hop's value reached this column
	// (direct_passthrough, renamed_passthrough, derived_recompute); ""
	// on the first hop, whose relation declares the levels (Declared).
	Mechanism string   `json:"mechanism,omitempty"`
	Declared  *Levels  `json:"declared,omitempty"`
	Through   []string `json:"through,omitempty"`
}

// Result is the governance inferred for every column of a graph.
type Result struct {
	Graph *Graph
	// Declared is each relation's declared governance, by index.
	Declared []Declared
	states   [][]state
	colIndex []map[string]int32
}

// state is what a column carries, as ranks.
type state struct {
	class, access       uint8
	rowClass, rowAccess uint8
	complete            bool
	rowComplete         bool
	throughKnown        bool
	through             []string
	path                *hop
}

// hop is a path as a list from its end, so that columns share the paths of
// the columns they read instead of copying them.
type hop struct {
	rel     int32
	column  string
	mech    lineage.Mechanism // 0 on the first hop
	through []string
	prev    *hop
	first   *hop  // the path's first hop (itself on the first)
	length  int32 // the hops up to this one
}

func (h *hop) then(rel int32, column string, mech lineage.Mechanism, through []string) *hop {
	return &hop{rel: rel, column: column, mech: mech, through: through, prev: h, first: h.first, length: h.length + 1}
}

func firstHop(rel int32, column string) *hop {
	h := &hop{rel: rel, column: column, length: 1}
	h.first = h
	return h
}

// MaxPath is the most hops an Inferred.Path lists: the first, then the
// last MaxPath-1; Inferred.PathOmitted counts those left out between. A
// project is rarely a tenth as deep, and a chain of n models would
// otherwise list n²/2 hops over its columns.
const MaxPath = 64

// MaxThrough is the most functions Inferred.Through tracks: a column whose
// paths pass through more has them unknown (ThroughKnown false), rather than
// lists growing with the depth of a chain.
const MaxThrough = 64

// Infer works out what every column of g carries, given the rules that
// declare each relation's governance (nil: none declares anything). A
// declared level outside the format's enums is an error naming the
// relation. It stops with ctx's error when ctx ends.
//
// Each relation is worked out once, after the relations it reads (a
// relation reading itself — an incremental model — is read as it was, so
// the read adds nothing; relations in a cycle read each other's columns as
// not yet known, incomplete), so the work is in proportion to the columns
// and their inputs.
func Infer(ctx context.Context, g *Graph, rules Rules) (*Result, error) {
	n := len(g.Relations)
	res := &Result{Graph: g, Declared: make([]Declared, n), states: make([][]state, n), colIndex: make([]map[string]int32, n)}
	in := &inferrer{res: res, g: g, declClass: make([]uint8, n), declAccess: make([]uint8, n), done: make([]bool, n)}
	for i, r := range g.Relations {
		if r.Kind == Derived {
			idx := make(map[string]int32, len(r.Columns))
			for j, c := range r.Columns {
				if _, dup := idx[c.Name]; !dup {
					idx[c.Name] = int32(j)
				}
			}
			res.colIndex[i] = idx
		}
		if rules == nil || r.Key == "" {
			continue
		}
		rule, ok := rules.Rule(r.Key)
		if !ok || rule == nil {
			continue
		}
		d, err := DeclaredBy(rule)
		if err != nil {
			return nil, fmt.Errorf("the governance of %s (%s): %w", r.Name, r.Key, err)
		}
		res.Declared[i] = d
		in.declClass[i], in.declAccess[i] = classificationRank(d.Classification), accessRank(d.AccessLevel)
	}
	for k, ri := range topoOrder(g) {
		if k%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		in.relation(ri)
		in.done[ri] = true
	}
	return res, nil
}

// topoOrder lists the Derived relations, each after the Derived relations
// it reads (Kahn's algorithm, ties in index order); those left in a cycle
// come last, in index order.
func topoOrder(g *Graph) []int {
	n := len(g.Relations)
	indegree := make([]int, n)
	readers := make([][]int, n)
	var reads []int
	for i, r := range g.Relations {
		if r.Kind != Derived {
			continue
		}
		reads = reads[:0]
		add := func(s int) {
			if s != i && s >= 0 && s < n && g.Relations[s].Kind == Derived && !slices.Contains(reads, s) {
				reads = append(reads, s)
			}
		}
		for _, c := range r.Columns {
			for _, in := range c.Inputs {
				add(in.Relation)
			}
		}
		for _, ref := range r.RowInputs {
			add(ref.Relation)
		}
		for _, s := range reads {
			readers[s] = append(readers[s], i)
			indegree[i]++
		}
	}
	order := make([]int, 0, n)
	placed := make([]bool, n)
	for i, r := range g.Relations {
		if r.Kind == Derived && indegree[i] == 0 {
			order = append(order, i)
			placed[i] = true
		}
	}
	for k := 0; k < len(order); k++ {
		for _, r := range readers[order[k]] {
			if indegree[r]--; indegree[r] == 0 {
				order = append(order, r)
				placed[r] = true
			}
		}
	}
	for i, r := range g.Relations {
		if r.Kind == Derived && !placed[i] {
			order = append(order, i)
		}
	}
	return order
}

type inferrer struct {
	res                   *Result
	g                     *Graph
	declClass, declAccess []uint8
	done                  []bool
	contribs              []contrib // reused between columns
}

// contrib is what one input brings to a column: what it carries (its path
// up to the input column itself) and the input.
type contrib struct {
	state
	input *Input
}

func (in *inferrer) relation(ri int) {
	r := in.g.Relations[ri]
	// What decides the rows reaches every column's row-set levels.
	rows := contrib{state: state{complete: true, rowComplete: true}}
	for _, ref := range r.RowInputs {
		c, ok := in.contribution(ri, ref, nil, false)
		if !ok {
			continue
		}
		rows.rowClass, rows.rowAccess = max(rows.rowClass, c.rowClass), max(rows.rowAccess, c.rowAccess)
		rows.rowComplete = rows.rowComplete && c.rowComplete
	}
	states := make([]state, len(r.Columns))
	for j, col := range r.Columns {
		states[j] = in.column(ri, col, &rows)
	}
	in.res.states[ri] = states
}

func (in *inferrer) column(ri int, col *Column, rows *contrib) state {
	st := state{complete: true, throughKnown: true, rowClass: rows.rowClass, rowAccess: rows.rowAccess, rowComplete: rows.rowComplete}
	cs := in.contribs[:0]
	for k := range col.Inputs {
		inp := &col.Inputs[k]
		c, ok := in.contribution(ri, inp.Ref, inp.Through, inp.ThroughKnown)
		if !ok {
			continue
		}
		c.input = inp
		cs = append(cs, c)
		st.class, st.access = max(st.class, c.class), max(st.access, c.access)
		st.rowClass, st.rowAccess = max(st.rowClass, c.rowClass), max(st.rowAccess, c.rowAccess)
		st.complete = st.complete && c.complete
		st.rowComplete = st.rowComplete && c.rowComplete
	}
	in.contribs = cs
	if st.class == 0 && st.access == 0 {
		return st
	}
	var best *contrib
	for k := range cs {
		c := &cs[k]
		if !(st.class > 0 && c.class == st.class || st.access > 0 && c.access == st.access) {
			continue
		}
		if best == nil {
			st.through = c.through
		} else {
			st.through = intersect(st.through, c.through)
		}
		st.throughKnown = st.throughKnown && c.throughKnown
		if best == nil || c.class > best.class || c.class == best.class && c.access > best.access {
			best = c
		}
	}
	if !st.throughKnown {
		st.through = nil // what is known of them is not the answer
	}
	st.path = best.path.then(int32(ri), col.Name, best.input.Mechanism, best.input.Through)
	return st
}

// contribution is what column ref brings to a column of relation ri, whose
// value passes through the functions through on the way; false for a
// relation reading itself.
func (in *inferrer) contribution(ri int, ref Ref, through []string, throughKnown bool) (contrib, bool) {
	s := ref.Relation
	if s == ri || s < 0 || s >= len(in.g.Relations) {
		return contrib{}, false
	}
	dc, da := in.declClass[s], in.declAccess[s]
	c := contrib{state: state{class: dc, access: da, rowClass: dc, rowAccess: da, complete: true, rowComplete: true}}
	var up *state
	switch in.g.Relations[s].Kind {
	case Opaque:
		c.complete, c.rowComplete = false, false
	case Derived:
		if j, ok := in.res.colIndex[s][ref.Column]; ok && in.done[s] {
			up = &in.res.states[s][j]
		} else {
			// In a cycle, or a column the relation's lineage does not list.
			c.complete, c.rowComplete = false, false
		}
	}
	if up != nil {
		c.class, c.access = max(dc, up.class), max(da, up.access)
		c.rowClass, c.rowAccess = max(dc, up.rowClass), max(da, up.rowAccess)
		c.complete, c.rowComplete = up.complete, up.rowComplete
	}
	if c.class == 0 && c.access == 0 {
		return c, true
	}
	// Where the relation read declares the levels itself, they start there,
	// whatever its own inputs passed through.
	if up == nil || dc > 0 && dc == c.class || da > 0 && da == c.access {
		c.through, c.throughKnown = through, throughKnown
		c.path = firstHop(int32(s), ref.Column)
		return c, true
	}
	c.through, c.throughKnown = union(up.through, through), up.throughKnown && throughKnown
	if !c.throughKnown || len(c.through) > MaxThrough {
		c.through, c.throughKnown = nil, false
	}
	c.path = up.path
	return c, true
}

// union and intersect are set operations on sorted lists; they return one
// of their arguments when it is the answer, and never modify them.
func union(a, b []string) []string {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

func intersect(a, b []string) []string {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	if len(out) == len(a) {
		return a
	}
	return out
}

// Column is what column name of relation rel carries; false when rel is
// not a Derived relation or has no such column.
func (r *Result) Column(rel int, name string) (Inferred, bool) {
	if rel < 0 || rel >= len(r.states) {
		return Inferred{}, false
	}
	j, ok := r.colIndex[rel][name]
	if !ok {
		return Inferred{}, false
	}
	return r.inferred(&r.states[rel][j]), true
}

func (r *Result) inferred(st *state) Inferred {
	out := Inferred{
		Levels:         Levels{classificationOf(st.class), accessOf(st.access)},
		Complete:       st.complete,
		Through:        st.through,
		ThroughKnown:   st.throughKnown,
		RowSet:         Levels{classificationOf(st.rowClass), accessOf(st.rowAccess)},
		RowSetComplete: st.rowComplete,
	}
	if out.Through == nil {
		out.Through = []string{}
	}
	if st.path == nil {
		return out
	}
	n := min(int(st.path.length), MaxPath)
	out.Path = make([]Hop, n)
	out.PathOmitted = int(st.path.length) - n
	h := st.path
	for i := n - 1; i > 0; i-- {
		out.Path[i] = r.hop(h)
		h = h.prev
	}
	out.Path[0] = r.hop(st.path.first)
	return out
}

func (r *Result) hop(h *hop) Hop {
	rel := r.Graph.Relations[h.rel]
	hp := Hop{Relation: rel.Name, Dataset: rel.Key, Column: h.column, Through: h.through}
	if h.mech == 0 {
		d := r.Declared[h.rel].Levels
		hp.Declared = &d
	} else {
		hp.Mechanism = h.mech.String()
	}
	return hp
}

package policy

import (
	"context"
	"slices"

	"github.com/celine-eu/governanced/internal/jsonvalue"
)

// truth is the three-valued result of spec §5.3, with the cause of an unknown
// kept so the right knob resolves it.
type truth uint8

const (
	tFalse truth = iota
	tTrue
	tMissing // U(missing): absent meta, unresolved reach, unknown mechanism
	tError   // U(error): operator/type mismatch
)

// and is Kleene's strong conjunction; between two unknowns, error dominates (D-21).
func and(a, b truth) truth {
	switch {
	case a == tFalse || b == tFalse:
		return tFalse
	case a == tTrue:
		return b
	case b == tTrue:
		return a
	case a == tError || b == tError:
		return tError
	}
	return tMissing
}

func or(a, b truth) truth {
	switch {
	case a == tTrue || b == tTrue:
		return tTrue
	case a == tFalse:
		return b
	case b == tFalse:
		return a
	case a == tError || b == tError:
		return tError
	}
	return tMissing
}

func not(a truth) truth {
	switch a {
	case tTrue:
		return tFalse
	case tFalse:
		return tTrue
	}
	return a
}

// subject is what one evaluation of a rule sees: a change (scope change) or
// every change (scope aggregate), and the reach matches it records.
type subject struct {
	cs     *Changeset
	change *Change // nil for an aggregate evaluation
	// matched are the reached objects proven to match, each once: an
	// aggregate rule over a pull request whose changes reach the same
	// objects many times keeps one entry per object.
	matched map[reachRef]struct{}
	// ctx is looked at between changes; stopped is set once it has ended,
	// and then the result is not used.
	ctx     context.Context
	stopped bool
}

// reachRef is a reached object: a model or an exposure (column ""), or a
// model's column.
type reachRef struct{ name, column string }

func (s *subject) match(r reachRef) {
	if s.matched == nil {
		s.matched = map[reachRef]struct{}{}
	}
	s.matched[r] = struct{}{}
}

// matchedNames are the matched objects as a hit names them (a column as
// model.column), sorted, each once.
func (s *subject) matchedNames() []string {
	out := make([]string, 0, len(s.matched))
	for r := range s.matched {
		if r.column == "" {
			out = append(out, r.name)
		} else {
			out = append(out, r.name+"."+r.column)
		}
	}
	return dedupSorted(out)
}

// metaView is the object a meta leaf reads: a subject column, a reached model,
// column or exposure (spec §5.1).
type metaView struct {
	primary  map[string]any
	fallback map[string]any // model meta behind column meta
	exposure *Exposure
	name     string // exposure name
}

func (v *metaView) lookup(path []string) (any, bool) {
	if v.exposure != nil {
		switch path[0] {
		case "name":
			if len(path) > 1 {
				return nil, false
			}
			return v.name, true
		case "type":
			if len(path) > 1 || v.exposure.Type == nil {
				return nil, false
			}
			return v.exposure.Type, true
		case "owner":
			if v.exposure.Owner == nil {
				return nil, false
			}
			if len(path) == 1 {
				return v.exposure.Owner, true
			}
			owner, ok := v.exposure.Owner.(map[string]any)
			if !ok {
				return nil, false
			}
			return lookupPath(owner, path[1:])
		}
		return lookupPath(v.exposure.Meta, path)
	}
	if x, ok := lookupPath(v.primary, path); ok {
		return x, true
	}
	return lookupPath(v.fallback, path)
}

func (cs *Changeset) modelMeta(name string) map[string]any {
	if m := cs.Models[name]; m != nil {
		return m.Meta
	}
	return nil
}

func (cs *Changeset) columnView(model, column string) metaView {
	m := cs.Models[model]
	if m == nil {
		return metaView{}
	}
	v := metaView{fallback: m.Meta}
	if c := m.Columns[column]; c != nil {
		v.primary = c.Meta
	}
	return v
}

func (p *predicate) eval(s *subject) truth {
	switch p.node {
	case nodeAll:
		r := tTrue
		for _, c := range p.children {
			// No short-circuit: reach leaves in a losing branch still record
			// their matches (D-26).
			r = and(r, c.eval(s))
		}
		return r
	case nodeAny:
		r := tFalse
		for _, c := range p.children {
			r = or(r, c.eval(s))
		}
		return r
	case nodeNot:
		return not(p.children[0].eval(s))
	}
	if s.change != nil {
		return p.evalLeaf(s, s.change)
	}
	// Aggregate scope: each leaf is existential over the pull request (D-22).
	r := tFalse
	for i, c := range s.cs.Changes {
		if i%256 == 255 && s.ctx.Err() != nil {
			s.stopped = true
			return r
		}
		r = or(r, p.evalLeaf(s, c))
	}
	return r
}

func (p *predicate) evalLeaf(s *subject, c *Change) truth {
	switch p.node {
	case nodeChange:
		var v any
		switch p.field {
		case fieldKind:
			v = c.Kind
		case fieldSemantic:
			v = c.SemanticOrIndeterminate()
		case fieldBreaking:
			v = c.Breaking()
		case fieldModel:
			v = c.Model
		case fieldColumn:
			v = c.Column
		}
		return p.apply(v, true)
	case nodeMeta:
		view := s.cs.columnView(c.Model, c.Column)
		v, ok := view.lookup(p.key)
		return p.apply(v, ok)
	case nodeStructural:
		return p.evalStructural(c)
	}
	return p.evalReach(s, c)
}

func (p *predicate) evalStructural(c *Change) truth {
	if p.fact == factProvableTestBreak {
		return boolTruth(c.ProvableTestBreak)
	}
	r := &c.Reach
	if !r.Resolved {
		return tMissing
	}
	if p.fact == factTouchesExposure {
		return boolTruth(len(r.Exposures) > 0)
	}
	return boolTruth(len(r.Models) > 0 || len(r.Columns) > 0 || len(r.Exposures) > 0)
}

func boolTruth(b bool) truth {
	if b {
		return tTrue
	}
	return tFalse
}

// evalReach is spec §5.4: count proven matches against min_count, letting
// unknown matches and an incomplete list keep the answer open.
func (p *predicate) evalReach(s *subject, c *Change) truth {
	r := &c.Reach
	if !r.Resolved {
		return tMissing
	}
	var t tally
	incomplete := false
	switch p.reachKind {
	case reachModel:
		for i := range r.Models {
			m := &r.Models[i]
			match := p.mechanismTest(m.Mechanisms)
			if match != tFalse && p.where != nil {
				view := metaView{primary: s.cs.modelMeta(m.Name)}
				match = and(match, p.where.evalWhere(&view))
			}
			if t.add(match) {
				s.match(reachRef{name: m.Name})
			}
		}
	case reachColumn:
		incomplete = !r.ColumnsKnownComplete()
		for i := range r.Columns {
			col := &r.Columns[i]
			match := tTrue
			if p.mechanisms != nil {
				match = tMissing
				if col.Mechanism != nil {
					match = p.mechanismTest([]string{*col.Mechanism})
				}
			}
			if match != tFalse && p.where != nil {
				view := s.cs.columnView(col.Model, col.Column)
				match = and(match, p.where.evalWhere(&view))
			}
			if t.add(match) {
				s.match(reachRef{name: col.Model, column: col.Column})
			}
		}
	case reachExposure:
		for i := range r.Exposures {
			e := &r.Exposures[i]
			match := tTrue
			if p.where != nil {
				exp := s.cs.Exposures[e.Name]
				if exp == nil {
					exp = &Exposure{}
				}
				view := metaView{exposure: exp, name: e.Name}
				match = p.where.evalWhere(&view)
			}
			if t.add(match) {
				s.match(reachRef{name: e.Name})
			}
		}
	}
	switch {
	case t.proven >= p.minCount:
		return tTrue
	case incomplete || t.proven+t.undecided >= p.minCount:
		return t.cause()
	}
	return tFalse
}

// tally counts the per-object matches of one reach leaf.
type tally struct {
	proven, undecided int
	anyError          bool
}

// add counts one match and reports whether it was proven (and so recorded).
func (t *tally) add(match truth) bool {
	switch match {
	case tTrue:
		t.proven++
		return true
	case tError:
		t.anyError = true
		t.undecided++
	case tMissing:
		t.undecided++
	}
	return false
}

// cause is the unknown a reach resolves to: error if any undecided object
// failed on a type mismatch, else missing (an incomplete list with no
// undecided object is missing too).
func (t *tally) cause() truth {
	if t.anyError {
		return tError
	}
	return tMissing
}

// mechanismTest is m(o) of spec §5.4. A mechanism outside the taxonomy is as
// unknown as a missing one: it cannot prove the filter either way.
func (p *predicate) mechanismTest(objMechanisms []string) truth {
	if p.mechanisms == nil {
		return tTrue
	}
	if len(objMechanisms) == 0 {
		return tMissing
	}
	r := tFalse
	for _, m := range objMechanisms {
		switch {
		case slices.Contains(p.mechanisms, m):
			return tTrue
		case !slices.Contains(mechanisms, m):
			r = tMissing
		}
	}
	return r
}

// evalWhere evaluates an inner reach predicate (all/any/not/meta only) against
// one reached object.
func (p *predicate) evalWhere(v *metaView) truth {
	switch p.node {
	case nodeAll:
		r := tTrue
		for _, c := range p.children {
			if r = and(r, c.evalWhere(v)); r == tFalse {
				return r // nothing under where records matches, so stopping is invisible
			}
		}
		return r
	case nodeAny:
		r := tFalse
		for _, c := range p.children {
			if r = or(r, c.evalWhere(v)); r == tTrue {
				return r
			}
		}
		return r
	case nodeNot:
		return not(p.children[0].evalWhere(v))
	}
	x, ok := v.lookup(p.key)
	return p.apply(x, ok)
}

// apply is the operator table of spec §5.2. present is false for a missing key.
func (p *predicate) apply(v any, present bool) truth {
	switch p.op {
	case opExists:
		return boolTruth(present)
	case opAbsent:
		return boolTruth(!present)
	case opIsTrue:
		return boolTruth(present && truthy(v))
	case opIsFalse:
		return boolTruth(present && !truthy(v))
	}
	if !present {
		return tMissing
	}
	switch p.op {
	case opEq:
		return boolTruth(jsonvalue.Equal(v, p.value))
	case opNe:
		return boolTruth(!jsonvalue.Equal(v, p.value))
	case opIn, opNotIn:
		switch v.(type) {
		case []any, map[string]any:
			return tError
		}
		in := containsValue(p.list, v)
		return boolTruth(in == (p.op == opIn))
	case opMatches:
		s, ok := v.(string)
		if !ok {
			return tError
		}
		return boolTruth(p.re.MatchString(s))
	case opGt, opGe, opLt, opLe:
		if _, ok := asNumber(v); !ok {
			return tError
		}
		c := compareNumbers(v, p.value)
		switch p.op {
		case opGt:
			return boolTruth(c > 0)
		case opGe:
			return boolTruth(c >= 0)
		case opLt:
			return boolTruth(c < 0)
		}
		return boolTruth(c <= 0)
	}
	list, ok := v.([]any)
	if !ok {
		return tError
	}
	switch p.op {
	case opIntersects:
		for _, x := range list {
			if containsValue(p.list, x) {
				return tTrue
			}
		}
		return tFalse
	case opSubsetOf, opNotSubsetOf:
		subset := true
		for _, x := range list {
			if !containsValue(p.list, x) {
				subset = false
				break
			}
		}
		return boolTruth(subset == (p.op == opSubsetOf))
	}
	for _, x := range p.list { // superset_of
		if !containsValue(list, x) {
			return tFalse
		}
	}
	return tTrue
}

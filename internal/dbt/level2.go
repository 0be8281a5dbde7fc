package dbt

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/sqlparse"
)

// DetailRowSetChanged is the detail of a logic_changed column whose own
// derivation is unchanged but whose rows are chosen differently (D-36).
const DetailRowSetChanged = "row set changed"

// BuildLevel2 produces the level-2 changeset of spec §8.8 (precision
// "column"): per-column logic changes from lineage signatures and row-set
// signatures, semantic classification from canonical expressions, and
// reach walked over column lineage with a mechanism per reached column.
//
// A model whose SQL cannot be analysed (python, not compiled, unparsable,
// an adapter without a parser) falls back to level 1 for its own changes,
// and wherever it lies below a change it is reached with unknown
// mechanisms and makes the column reach incomplete, so a policy never reads
// "not found" as proof. So does a model whose lineage is over
// in.LineageBudget. The returned warnings say which models fell back and
// why.
//
// It stops early with ctx's error when ctx ends.
func BuildLevel2(ctx context.Context, in Inputs) (*policy.Changeset, []string, error) {
	cs, warnings, _, err := buildLevel2(ctx, in)
	return cs, warnings, err
}

// buildLevel2 is BuildLevel2 with the state it walked, for tests to count.
func buildLevel2(ctx context.Context, in Inputs) (*policy.Changeset, []string, *level2, error) {
	b, warnings, err := newBuilder(in)
	if err != nil {
		return nil, nil, nil, err
	}
	l2 := newLevel2(ctx, b, newLineageSide(b.base), newLineageSide(b.head))
	more, err := l2.analyseCandidates(in)
	if err != nil {
		return nil, nil, nil, err
	}
	warnings = append(warnings, more...)
	l2.targets = l2.inferTargets(in.Rules != nil)
	cs, warning, err := b.changeset(ctx, l2, in.ReachBudget)
	if err != nil {
		return nil, nil, nil, err
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	if in.Rules != nil {
		if err := l2.attachInferred(ctx, cs, in.Rules, l2.targets.sides, in.Parallelism, in.LineageBudget); err != nil {
			return nil, nil, nil, err
		}
	}
	return cs, warnings, l2, nil
}

// analyseCandidates reads the lineage level 2 needs: of every relation
// with a candidate change (a level-1 change), on both sides, and of
// everything below it. It returns the warnings of the models it could not
// read.
func (l2 *level2) analyseCandidates(in Inputs) ([]string, error) {
	var warnings []string
	for _, ls := range []*lineageSide{l2.head, l2.base} {
		if !ls.dialectOK {
			warnings = append(warnings, fmt.Sprintf("adapter %q has no SQL parser (known: %s): its models are compared at model level and reach every descendant with unknown mechanisms",
				ls.m.AdapterType, strings.Join(sqlparse.Dialects(), ", ")))
			break
		}
	}
	for _, uid := range l2.order {
		if len(l2.builder.diff(uid)) > 0 {
			l2.candidates[uid] = true
		}
	}
	starts := make([]string, 0, len(l2.candidates))
	for uid := range l2.candidates {
		starts = append(starts, uid)
	}
	work := map[*lineageSide][]string{}
	for _, ls := range []*lineageSide{l2.base, l2.head} {
		need := map[string]bool{}
		for _, uid := range starts {
			if _, ok := ls.relations[uid]; ok {
				need[uid] = true
			}
		}
		ls.below(starts, func(d string) { need[d] = true })
		for uid := range need {
			work[ls] = append(work[ls], uid)
		}
		slices.Sort(work[ls])
	}
	if err := analyse(l2.ctx, work, in.Parallelism, in.LineageBudget); err != nil {
		return nil, err
	}
	return append(warnings, l2.unanalysedWarnings(work)...), nil
}

func (l2 *level2) precision() string { return "column" }

func (l2 *level2) changes(uid string) []columnChange {
	if !l2.candidates[uid] {
		return nil
	}
	return l2.diff(uid)
}

// reach is the column reach of a change; the changed column, and the
// columns it reaches, are gathered for their inferred governance.
func (l2 *level2) reach(uid string, c columnChange, over bool) (*walked, error) {
	removed := c.kind == policy.KindRemoved
	l2.targets.add(removed, uid, c.column)
	if over {
		return &walked{reach: policy.Reach{Models: []policy.ReachedModel{}, ColumnsComplete: boolPtr(false), Exposures: []policy.ReachedExposure{}}}, nil
	}
	w := l2.reachOf(uid, c.column, removed, c.rowSet)
	if l2.err != nil {
		return nil, l2.err
	}
	for _, rc := range w.reach.Columns {
		l2.targets.add(removed, l2.targets.uidOf[rc.Model], rc.Column)
	}
	return w, nil
}

type level2 struct {
	*builder
	base, head *lineageSide
	// candidates are the relations with a level-1 change, whose lineage
	// is read.
	candidates map[string]bool
	// targets gathers the columns the changeset names, for their
	// inferred governance.
	targets *changedColumns
	reached map[l2ReachKey]*walked
	// mechanismSets are the mechanism lists reached models share.
	mechanismSets map[mechanismBits][]string
	// walkSteps counts the items the walks took from their queues: the
	// edges they crossed.
	walkSteps int
	// ctx is looked at while walking; err is its error once a walk has
	// stopped for it.
	ctx context.Context
	err error
}

func newLevel2(ctx context.Context, b *builder, base, head *lineageSide) *level2 {
	return &level2{builder: b, base: base, head: head, candidates: map[string]bool{}, reached: map[l2ReachKey]*walked{},
		mechanismSets: map[mechanismBits][]string{}, ctx: ctx}
}

func (l2 *level2) unanalysedWarnings(work map[*lineageSide][]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, ls := range []*lineageSide{l2.head, l2.base} {
		if !ls.dialectOK {
			continue
		}
		for _, uid := range work[ls] {
			ml := ls.models[uid]
			if ml == nil || ml.analysed() || ls.relations[uid].ResourceType == "seed" {
				continue
			}
			msg := fmt.Sprintf("%s: column lineage unavailable (%s); it counts as reached with unknown mechanisms", l2.nameOf(uid), ml.reason)
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
		}
	}
	slices.Sort(out)
	return out
}

// diff is spec §8.4 with §8.8's logic diff: structural kinds as level 1;
// a model whose compiled SQL changed has only the columns whose derivation
// or row set changed marked logic_changed, each classified.
func (l2 *level2) diff(uid string) []columnChange {
	b := l2.builder
	baseNode, inBase := b.base.relations[uid]
	headNode, inHead := b.head.relations[uid]
	bml, hml := l2.base.models[uid], l2.head.models[uid]
	if !inBase || !inHead || !logicChanged(baseNode, headNode) || !bml.analysed() || !hml.analysed() {
		// Added or removed whole, unchanged SQL, or SQL level 2 cannot
		// read: the level-1 diff.
		return b.diff(uid)
	}
	cc := columnChanges{}
	baseCols, baseCat := b.base.columns(uid)
	headCols, headCat := b.head.columns(uid)
	structural := baseCat && headCat
	if structural {
		cc.structural(baseCols, headCols)
	} else {
		headCols, _ = l2.head.columnSet(uid)
		baseCols, _ = l2.base.columnSet(uid)
	}
	existed := columnNames(baseCols)
	rowChanged := bml.res.RowSignature != hml.res.RowSignature
	rowSemantic := policy.SemanticMeaningChanged
	if !bml.res.RowCertain || !hml.res.RowCertain {
		rowSemantic = policy.SemanticIndeterminate
	}
	for _, c := range headCols {
		if !existed[c.name] {
			if !structural {
				cc.set(columnChange{column: c.name, kind: policy.KindLogicChanged, semantic: policy.SemanticIndeterminate})
			}
			continue // a column new in head is added, not logic_changed (D-32)
		}
		if ch, ok := logicChange(c.name, bml.res, hml.res, rowChanged, rowSemantic); ok {
			cc.set(ch)
		}
	}
	return cc.sorted()
}

// logicChange is a column's logic change when its value changed or the
// model's rows did (D-36), classified.
func logicChange(column string, base, head *lineage.Result, rowChanged bool, rowSemantic string) (columnChange, bool) {
	bc, hc := base.Column(column), head.Column(column)
	valueChanged := signature(bc) != signature(hc)
	if !valueChanged && !rowChanged {
		return columnChange{}, false
	}
	ch := columnChange{column: column, kind: policy.KindLogicChanged, rowSet: rowChanged}
	var parts []string
	if valueChanged {
		parts = append(parts, valueSemantic(bc, hc))
	} else {
		ch.detail = DetailRowSetChanged
	}
	if rowChanged {
		parts = append(parts, rowSemantic)
	}
	ch.semantic = combineSemantics(parts)
	return ch, true
}

func signature(c *lineage.Column) string {
	if c == nil {
		return ""
	}
	return c.Signature
}

// valueSemantic compares a column's canonical values (spec §8.8, M-6):
// equal → equivalent, different → meaning_changed, either side not
// resolvable → indeterminate.
func valueSemantic(base, head *lineage.Column) string {
	if base == nil || head == nil || !base.Certain || !head.Certain || base.Canonical == "" || head.Canonical == "" {
		return policy.SemanticIndeterminate
	}
	if base.Canonical == head.Canonical {
		return policy.SemanticEquivalent
	}
	return policy.SemanticMeaningChanged
}

// combineSemantics: a proven difference anywhere is meaning_changed;
// otherwise anything undecided is indeterminate; equivalent only when every
// part is.
func combineSemantics(parts []string) string {
	out := policy.SemanticEquivalent
	for _, p := range parts {
		switch p {
		case policy.SemanticMeaningChanged:
			return p
		case policy.SemanticIndeterminate:
			out = p
		}
	}
	return out
}

package dbt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
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
	if in.Base == nil || in.Head == nil {
		return nil, nil, nil, errors.New("the changeset builder needs both a base and a head manifest")
	}
	b := &builder{
		base:       newSide(in.Base, in.BaseCatalog),
		head:       newSide(in.Head, in.HeadCatalog),
		governance: in.Governance,
		reach:      map[reachKey]*walked{},
	}
	var warnings []string
	warnings = append(warnings, in.Base.Warnings...)
	warnings = append(warnings, in.Head.Warnings...)
	b.nameNodes()
	b.indexBaseTests()
	l2 := newLevel2(ctx, b, newLineageSide(b.base), newLineageSide(b.head))
	for _, ls := range []*lineageSide{l2.head, l2.base} {
		if !ls.dialectOK {
			warnings = append(warnings, fmt.Sprintf("adapter %q has no SQL parser (known: %s): its models are compared at model level and reach every descendant with unknown mechanisms",
				ls.m.AdapterType, strings.Join(supportedAdapters(), ", ")))
			break
		}
	}

	// Which models level 2 must read: every node with a candidate change,
	// on both sides, and everything below it.
	candidates := map[string]bool{}
	for _, uid := range b.order {
		if len(b.diff(uid)) > 0 {
			candidates[uid] = true
		}
	}
	work := map[*lineageSide][]string{}
	starts := make([]string, 0, len(candidates))
	for uid := range candidates {
		starts = append(starts, uid)
	}
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
		sort.Strings(work[ls])
	}
	if err := analyse(ctx, work, in.Parallelism, in.LineageBudget); err != nil {
		return nil, nil, nil, err
	}
	warnings = append(warnings, l2.unanalysedWarnings(work)...)

	cs := &policy.Changeset{
		ChangesetVersion: 1,
		Source:           "two-manifest",
		Precision:        "column",
		Models:           map[string]*policy.Model{},
		Exposures:        map[string]*policy.Exposure{},
		Changes:          []*policy.Change{},
	}
	spent := newReachBudget(in.ReachBudget)
	targets := l2.inferTargets(in.Rules != nil)
	for _, uid := range b.order {
		if !candidates[uid] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		changes := l2.diff(uid)
		if len(changes) == 0 {
			continue
		}
		model := b.addModel(cs, uid)
		_, inHead := b.head.relations[uid]
		for _, c := range changes {
			change := &policy.Change{Model: b.names[uid], Column: c.column, Kind: c.kind}
			if c.detail != "" {
				detail := c.detail
				change.Detail = &detail
			}
			if c.kind == policy.KindLogicChanged {
				semantic := c.semantic
				if semantic == "" {
					semantic = policy.SemanticIndeterminate
				}
				change.Semantic = &semantic
			}
			if c.kind == policy.KindRemoved {
				change.BrokenTests = b.brokenTests(uid, c.column, inHead)
				change.ProvableTestBreak = len(change.BrokenTests) > 0
				if _, known := model.Columns[c.column]; inHead && !known {
					if meta := b.base.docColumn(uid, c.column).MergedMeta(); len(meta) > 0 {
						model.Columns[c.column] = &policy.Column{Meta: meta}
					}
				}
			}
			cs.Changes = append(cs.Changes, change)
			targets.add(c.kind == policy.KindRemoved, uid, c.column)
			if !spent.allows() {
				change.Reach = policy.Reach{Models: []policy.ReachedModel{}, ColumnsComplete: boolPtr(false), Exposures: []policy.ReachedExposure{}}
				continue
			}
			w := l2.reachOf(uid, c.column, c.kind == policy.KindRemoved, c.rowSet)
			if l2.err != nil {
				return nil, nil, nil, l2.err
			}
			change.Reach = w.reach
			for _, rc := range w.reach.Columns {
				targets.add(c.kind == policy.KindRemoved, targets.uidOf[rc.Model], rc.Column)
			}
			spent.spend(&change.Reach)
			for _, m := range w.models {
				b.addModel(cs, m)
			}
			for _, e := range w.exposures {
				b.addExposure(cs, e)
			}
		}
	}
	if w := spent.warning(); w != "" {
		warnings = append(warnings, w)
	}
	if in.Rules != nil {
		if err := l2.attachInferred(ctx, cs, in.Rules, targets.sides, in.Parallelism, in.LineageBudget); err != nil {
			return nil, nil, nil, err
		}
	}
	sort.SliceStable(cs.Changes, func(i, j int) bool {
		a, c := cs.Changes[i], cs.Changes[j]
		if a.Model != c.Model {
			return a.Model < c.Model
		}
		if a.Column != c.Column {
			return a.Column < c.Column
		}
		return a.Kind < c.Kind
	})
	return cs, warnings, l2, nil
}

func supportedAdapters() []string {
	return []string{"bigquery", "duckdb", "postgres", "redshift", "snowflake"}
}

type level2 struct {
	*builder
	base, head *lineageSide
	reached    map[l2ReachKey]*walked
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
	return &level2{builder: b, base: base, head: head, reached: map[l2ReachKey]*walked{},
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
	sort.Strings(out)
	return out
}

// l2Change is one column change with what level 2 knows of it.
type l2Change struct {
	columnChange
	semantic string
	rowSet   bool // the model's rows changed (D-36)
}

// diff is spec §8.4 with §8.8's logic diff: structural kinds as level 1;
// a model whose compiled SQL changed has only the columns whose derivation
// or row set changed marked logic_changed, each classified.
func (l2 *level2) diff(uid string) []l2Change {
	b := l2.builder
	_, inBase := b.base.relations[uid]
	headNode, inHead := b.head.relations[uid]
	if !inBase || !inHead {
		var out []l2Change
		for _, c := range b.diff(uid) {
			out = append(out, l2Change{columnChange: c})
		}
		return out
	}
	baseNode := b.base.relations[uid]
	bml, hml := l2.base.models[uid], l2.head.models[uid]
	if !logicChanged(baseNode, headNode) || !bml.analysed() || !hml.analysed() {
		// Unchanged SQL, or SQL level 2 cannot read: the level-1 diff.
		var out []l2Change
		for _, c := range b.diff(uid) {
			out = append(out, l2Change{columnChange: c})
		}
		return out
	}
	kinds := map[string]l2Change{}
	set := func(c l2Change) {
		if prev, ok := kinds[c.column]; ok && kindPriority[prev.kind] >= kindPriority[c.kind] {
			return
		}
		kinds[c.column] = c
	}
	baseCols, baseCat := b.base.columns(uid)
	headCols, headCat := b.head.columns(uid)
	structural := baseCat && headCat
	baseTypes := map[string]string{}
	for _, c := range baseCols {
		baseTypes[c.name] = c.typ
	}
	if structural {
		headSet := map[string]bool{}
		for _, c := range headCols {
			headSet[c.name] = true
			bt, ok := baseTypes[c.name]
			switch {
			case !ok:
				set(l2Change{columnChange: columnChange{column: c.name, kind: policy.KindAdded}})
			case bt != "" && c.typ != "" && !strings.EqualFold(bt, c.typ):
				set(l2Change{columnChange: columnChange{column: c.name, kind: policy.KindTypeChanged, detail: bt + " -> " + c.typ}})
			}
		}
		for _, c := range baseCols {
			if !headSet[c.name] {
				set(l2Change{columnChange: columnChange{column: c.name, kind: policy.KindRemoved}})
			}
		}
	} else {
		headCols, _ = l2.head.columnSet(uid)
		baseCols, _ = l2.base.columnSet(uid)
		baseTypes = map[string]string{}
		for _, c := range baseCols {
			baseTypes[c.name] = c.typ
		}
	}
	rowChanged := bml.res.RowSignature != hml.res.RowSignature
	rowSemantic := policy.SemanticMeaningChanged
	if !bml.res.RowCertain || !hml.res.RowCertain {
		rowSemantic = policy.SemanticIndeterminate
	}
	for _, c := range headCols {
		if _, existed := baseTypes[c.name]; !existed {
			if !structural {
				set(l2Change{columnChange: columnChange{column: c.name, kind: policy.KindLogicChanged}, semantic: policy.SemanticIndeterminate})
			}
			continue // a column new in head is added, not logic_changed (D-32)
		}
		bc, hc := bml.res.Column(c.name), hml.res.Column(c.name)
		valueChanged := signature(bc) != signature(hc)
		if !valueChanged && !rowChanged {
			continue
		}
		ch := l2Change{columnChange: columnChange{column: c.name, kind: policy.KindLogicChanged}, rowSet: rowChanged}
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
		set(ch)
	}
	out := make([]l2Change, 0, len(kinds))
	for _, c := range kinds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].column < out[j].column })
	return out
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

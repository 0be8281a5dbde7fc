package dbt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/propagate"
)

// Inputs are a pull request's dbt artifacts: base and head manifests
// (required) and catalogs (optional; without them the structural diff cannot
// run and column sets come from documented columns only).
type Inputs struct {
	Base, Head               *Manifest
	BaseCatalog, HeadCatalog *Catalog
	// Governance, when set, is consulted for the relation each model writes,
	// and the resolved rule is merged into the model's meta under
	// "governance" (policy.WithGovernance).
	Governance policy.GovernanceLookup
	// Rules, when set, are the same governance as rules (BuildLevel2
	// only): each changed or reached column's meta then carries the
	// governance it inherits along column lineage under
	// governance.inferred (propagate.Inferred.Meta).
	Rules propagate.Rules
	// Parallelism bounds how many models level 2 analyses at once
	// (BuildLevel2); 0 means GOMAXPROCS.
	Parallelism int
	// LineageBudget bounds the lineage work of each model's SQL at level 2
	// (zero fields: lineage.DefaultBudget's); a model over it falls back to
	// level 1.
	LineageBudget lineage.Budget
	// ReachBudget bounds the reach the changeset carries, in entries
	// summed over the changes (0: DefaultReachBudget); the changes past it
	// have an unresolved reach.
	ReachBudget int
}

// A changeset is built by one pipeline at either precision (spec §8): the
// relations of base ∪ head are named, each one's column changes are found,
// every change gets its broken tests and its reach, the models and
// exposures named get their entries, and the changes are sorted. What the
// precision decides is a level: which changes a relation has, and how far
// each reaches.
type level interface {
	// precision is the changeset's precision: "model" or "column".
	precision() string
	// changes are a relation's column changes, sorted by column.
	changes(uid string) []columnChange
	// reach is how far change c of relation uid reaches. Once the
	// changeset's reach budget is spent (over), it is not walked and is
	// unresolved.
	reach(uid string, c columnChange, over bool) (*walked, error)
}

// columnChange is one change of a column: its kind, the detail of a type
// change, and what level 2 knows of a logic change (its semantic, "" for
// not known, and whether it is the model's rows that changed, D-36).
type columnChange struct {
	column, kind, detail string
	semantic             string
	rowSet               bool
}

// newBuilder starts a changeset of two manifests: their relations named and
// the base's tests indexed. The warnings are the manifests' own.
func newBuilder(in Inputs) (*builder, []string, error) {
	if in.Base == nil || in.Head == nil {
		return nil, nil, errors.New("the changeset builder needs both a base and a head manifest")
	}
	b := &builder{
		base:       newSide(in.Base, in.BaseCatalog),
		head:       newSide(in.Head, in.HeadCatalog),
		governance: in.Governance,
		modelReach: map[reachKey]*walked{},
	}
	var warnings []string
	warnings = append(warnings, in.Base.Warnings...)
	warnings = append(warnings, in.Head.Warnings...)
	b.nameNodes()
	b.indexBaseTests()
	return b, warnings, nil
}

// changeset runs the pipeline at lv's precision. Besides the changeset it
// returns the reach budget's warning ("" when the budget held). It stops
// early with ctx's error when ctx ends.
func (b *builder) changeset(ctx context.Context, lv level, reachBudget int) (*policy.Changeset, string, error) {
	cs := &policy.Changeset{
		ChangesetVersion: 1,
		Source:           "two-manifest",
		Precision:        lv.precision(),
		Models:           map[string]*policy.Model{},
		Exposures:        map[string]*policy.Exposure{},
		Changes:          []*policy.Change{},
	}
	spent := newReachBudget(reachBudget)
	for _, uid := range b.order {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		changes := lv.changes(uid)
		if len(changes) == 0 {
			continue
		}
		model := b.addModel(cs, uid)
		for _, c := range changes {
			change := b.change(uid, c, model)
			cs.Changes = append(cs.Changes, change)
			over := !spent.allows()
			w, err := lv.reach(uid, c, over)
			if err != nil {
				return nil, "", err
			}
			change.Reach = w.reach
			if over {
				continue
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
	return cs, spent.warning(), nil
}

// change is a column change as the changeset writes it: a logic change
// with its semantic (indeterminate when the level cannot tell), a removed
// column with the base tests it provably breaks and, when the model
// survives without documenting the column, the meta it had, by which the
// policy judges it (spec §8.6).
func (b *builder) change(uid string, c columnChange, model *policy.Model) *policy.Change {
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
		_, inHead := b.head.relations[uid]
		change.BrokenTests = b.brokenTests(uid, c.column, inHead)
		change.ProvableTestBreak = len(change.BrokenTests) > 0
		if _, known := model.Columns[c.column]; inHead && !known {
			if meta := b.base.docColumn(uid, c.column).MergedMeta(); len(meta) > 0 {
				model.Columns[c.column] = &policy.Column{Meta: meta}
			}
		}
	}
	return change
}

// kindPriority is upstream ChangeKind.priority: one column keeps its most
// severe kind.
var kindPriority = map[string]int{
	policy.KindRemoved:      5,
	policy.KindTypeChanged:  4,
	policy.KindLogicChanged: 3,
	policy.KindAdded:        1,
}

// columnChanges gathers a relation's changes, one per column: the most
// severe kind found.
type columnChanges map[string]columnChange

func (cc columnChanges) set(c columnChange) {
	if prev, ok := cc[c.column]; ok && kindPriority[prev.kind] >= kindPriority[c.kind] {
		return
	}
	cc[c.column] = c
}

// whole marks every column of a relation added or removed whole, "*" when
// none is known.
func (cc columnChanges) whole(cols []column, kind string) {
	if len(cols) == 0 {
		cc.set(columnChange{column: "*", kind: kind})
	}
	for _, c := range cols {
		cc.set(columnChange{column: c.name, kind: kind})
	}
}

// structural compares the catalogs' columns of a relation on both sides:
// columns added, removed, or of another type.
func (cc columnChanges) structural(baseCols, headCols []column) {
	baseTypes := make(map[string]string, len(baseCols))
	for _, c := range baseCols {
		baseTypes[c.name] = c.typ
	}
	inHead := make(map[string]bool, len(headCols))
	for _, c := range headCols {
		inHead[c.name] = true
		bt, ok := baseTypes[c.name]
		switch {
		case !ok:
			cc.set(columnChange{column: c.name, kind: policy.KindAdded})
		case bt != "" && c.typ != "" && !strings.EqualFold(bt, c.typ):
			cc.set(columnChange{column: c.name, kind: policy.KindTypeChanged, detail: bt + " -> " + c.typ})
		}
	}
	for _, c := range baseCols {
		if !inHead[c.name] {
			cc.set(columnChange{column: c.name, kind: policy.KindRemoved})
		}
	}
}

func (cc columnChanges) sorted() []columnChange {
	out := make([]columnChange, 0, len(cc))
	for _, c := range cc {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].column < out[j].column })
	return out
}

// columnNames is the set of the columns' names.
func columnNames(cols []column) map[string]bool {
	names := make(map[string]bool, len(cols))
	for _, c := range cols {
		names[c.name] = true
	}
	return names
}

// DefaultReachBudget is Inputs.ReachBudget when it is zero. A chain of
// 3,000 changed models, each reaching every model below it by one column,
// carries 9.0 million entries and fits: building that changeset and a
// verdict on it allocates 774 MB (BenchmarkChainedModels), and a
// changeset's reach costs memory in proportion.
const DefaultReachBudget = 10_000_000

// reachBudget bounds the reach a changeset carries: the entries (reached
// models, columns and exposures) of every change's reach, summed. A change
// near the top of a long chain reaches everything below it, so the sum
// grows with the square of the chain; once it is spent, the changes left
// carry an unresolved reach, which a policy treats fail-safe, and a warning
// says how many.
type reachBudget struct {
	limit, left int
	over        int // changes whose reach was not computed
}

func newReachBudget(limit int) *reachBudget {
	if limit <= 0 {
		limit = DefaultReachBudget
	}
	return &reachBudget{limit: limit, left: limit}
}

// allows reports whether the next change may have its reach computed.
func (rb *reachBudget) allows() bool {
	if rb.left > 0 {
		return true
	}
	rb.over++
	return false
}

func (rb *reachBudget) spend(r *policy.Reach) {
	rb.left -= len(r.Models) + len(r.Columns) + len(r.Exposures)
}

// warning says which changes lost their reach, "" when none did.
func (rb *reachBudget) warning() string {
	if rb.over == 0 {
		return ""
	}
	return fmt.Sprintf("%d changes have an unresolved reach: the changeset's reach is over its budget of %d reached entries (models, columns and exposures, summed over the changes)", rb.over, rb.limit)
}

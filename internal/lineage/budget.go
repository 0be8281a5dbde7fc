package lineage

import (
	"context"
	"fmt"
)

// Budget bounds the work of analysing one statement, so that no statement,
// however it is built, costs more than a known amount of time and memory.
// A statement over it is a *BudgetError: its lineage is unknown, as a
// statement that does not parse has none.
//
// Resolving a statement visits each CTE and subquery once, so the work
// grows with the statement's size, except where the statement itself asks
// for more: values whose canonical forms are large (each up to
// maxCanonNodes), columns that carry many sources through many levels,
// names looked up among many FROM items. The budget is what bounds those.
type Budget struct {
	// Nodes bounds the nodes visited: expression and canonical-form nodes,
	// columns made, FROM items and scopes searched for a name, row-set
	// entries merged. 0 means DefaultBudget's.
	Nodes int
	// Sources bounds the sources carried: every column made counts the
	// sources it carries, every derived column the sources it gathers.
	// 0 means DefaultBudget's.
	Sources int
}

// DefaultBudget is the budget of Analyze and AnalyzeQuery when Options
// leaves it zero. No statement of the lineage corpus, of the real dbt
// projects under testdata or of a generated 500-model project needs more
// than 2,761 nodes or 370 sources (TestWorkOfTheCorpus, in
// internal/dbt): the default is over 300 times that, and a SELECT of
// 8,000 computed columns needs a quarter of it.
var DefaultBudget = Budget{Nodes: 1_000_000, Sources: 400_000}

// Work is what resolving a statement cost, in the units of Budget.
type Work struct {
	Nodes, Sources int
}

// BudgetError is a statement whose lineage costs more than its Budget: the
// analysis stopped there and has no result.
type BudgetError struct {
	What  string // "nodes" or "sources"
	Limit int
}

func (e *BudgetError) Error() string {
	what := "node visits"
	if e.What == "sources" {
		what = "carried sources"
	}
	return fmt.Sprintf("the statement's lineage takes more than %d %s to resolve, the budget of one statement", e.Limit, what)
}

// meter counts an analysis' work against its budget and looks at its
// context now and then; past either it unwinds the analysis with a stop,
// which AnalyzeQuery recovers.
type meter struct {
	ctx    context.Context
	budget Budget
	work   Work
	// untilCheck is how many nodes may be visited before the next look at
	// the context.
	untilCheck int
}

// stop carries why an analysis ended early through the panic that unwinds
// it; no other panic is recovered.
type stop struct{ err error }

// checkEvery is how many nodes an analysis visits between two looks at its
// context: a few hundred microseconds of work.
const checkEvery = 4096

func newMeter(ctx context.Context, b Budget) *meter {
	if b.Nodes <= 0 {
		b.Nodes = DefaultBudget.Nodes
	}
	if b.Sources <= 0 {
		b.Sources = DefaultBudget.Sources
	}
	return &meter{ctx: ctx, budget: b, untilCheck: checkEvery}
}

// nodes counts n nodes visited.
func (m *meter) nodes(n int) {
	m.work.Nodes += n
	if m.work.Nodes > m.budget.Nodes {
		panic(stop{&BudgetError{What: "nodes", Limit: m.budget.Nodes}})
	}
	if m.untilCheck -= n; m.untilCheck <= 0 {
		m.untilCheck = checkEvery
		if err := m.ctx.Err(); err != nil {
			panic(stop{err})
		}
	}
}

// sources counts n sources carried.
func (m *meter) sources(n int) {
	m.work.Sources += n
	if m.work.Sources > m.budget.Sources {
		panic(stop{&BudgetError{What: "sources", Limit: m.budget.Sources}})
	}
}

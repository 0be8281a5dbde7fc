package graph

import (
	"cmp"
	"slices"
)

// Kind is what a finding reports (graph.md §6.1).
type Kind string

// The finding kinds, in report order (their rank).
const (
	Unresolved         Kind = "unresolved"
	ScheduleInversion  Kind = "schedule-inversion"
	ScheduleCollision  Kind = "schedule-collision"
	ScheduleUnverified Kind = "schedule-unverified"
	MultipleProducers  Kind = "multiple-producers"
	Cycle              Kind = "cycle"
	SelfDependency     Kind = "self-dependency"
	InactiveProducer   Kind = "inactive-producer"
	NotDeployed        Kind = "not-deployed"
	ExternalSatisfied  Kind = "external-satisfied"
)

var kinds = []Kind{
	Unresolved, ScheduleInversion, ScheduleCollision, ScheduleUnverified, MultipleProducers,
	Cycle, SelfDependency, InactiveProducer, NotDeployed, ExternalSatisfied,
}

// Kinds lists every kind in rank order: what a metric or a status count
// enumerates, zeros included.
func Kinds() []Kind { return slices.Clone(kinds) }

// FromSchedules reports whether the kind comes from the schedule checks (§7):
// a graph built without a deployment's flows (Options.CheckSchedules false,
// as the server builds it) never reports one.
func (k Kind) FromSchedules() bool {
	switch k {
	case ScheduleInversion, ScheduleCollision, ScheduleUnverified, NotDeployed:
		return true
	}
	return false
}

// Rank is the kind's place in report order.
func (k Kind) Rank() int {
	if i := slices.Index(kinds, k); i >= 0 {
		return i
	}
	return len(kinds)
}

// Actionable reports whether --strict fails on the kind (§9): every kind but
// external-satisfied (a wider scan closed the graph) and schedule-unverified
// (advisory).
func (k Kind) Actionable() bool { return k != ExternalSatisfied && k != ScheduleUnverified }

// Finding is one thing the graph reports. Which of Pipeline and Dataset a
// kind carries is fixed (§6.1); HasPipeline and HasDataset say it, and the
// other is "" (null in JSON).
type Finding struct {
	Kind     Kind
	Pipeline string
	Dataset  string
	Detail   string
}

// HasPipeline reports whether the finding names a pipeline (all kinds but
// multiple-producers and cycle).
func (f *Finding) HasPipeline() bool { return f.Kind != MultipleProducers && f.Kind != Cycle }

// HasDataset reports whether the finding names a dataset (all kinds but
// cycle and not-deployed).
func (f *Finding) HasDataset() bool { return f.Kind != Cycle && f.Kind != NotDeployed }

// sortFindings orders findings by (rank, pipeline, dataset), a missing one
// reading as "", ties keeping the order they were produced in (§6 step 6).
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Kind.Rank(), b.Kind.Rank()),
			cmp.Compare(a.Pipeline, b.Pipeline), cmp.Compare(a.Dataset, b.Dataset))
	})
}

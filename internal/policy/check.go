package policy

import "context"

// Check is the engine as one call, for callers that hold a policy as bytes
// (the CLI, the HTTP service): load and validate the policy, then evaluate it
// on the changeset. An invalid policy is an *Error and nothing is evaluated;
// when ctx ends first, the error is ctx's.
func Check(ctx context.Context, policy []byte, policyFile string, cs *Changeset) (*Result, error) {
	p, err := Load(policy, policyFile)
	if err != nil {
		return nil, err
	}
	return Evaluate(ctx, p, cs)
}

// Legacy verdicts, reported when no policy resolves (spec §2.1): the
// safe/review/block ruling of dbt-column-lineage before the policy engine.
const (
	LegacySafe   = "safe"
	LegacyReview = "review"
	LegacyBlock  = "block"
)

// Impact is the aggregate reach of a changeset, as the legacy gates read it.
type Impact struct {
	Changes           int `json:"changes"`
	ProvableBreaks    int `json:"provable_break_count"`
	AffectedModels    int `json:"affected_models"`
	AffectedColumns   int `json:"affected_columns"`
	AffectedExposures int `json:"affected_exposures"`
	// Recomputing counts reached models whose values are recomputed or whose
	// rows are filtered, or whose mechanism is unknown (which may be either).
	Recomputing int `json:"recomputing_models"`
	// Unresolved counts changes whose reach could not be computed.
	Unresolved int `json:"unresolved_changes"`
}

// Summarize counts what the changeset reaches, each downstream object once.
func Summarize(cs *Changeset) Impact {
	im := Impact{Changes: len(cs.Changes)}
	models, columns, exposures, recompute := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range cs.Changes {
		if c.ProvableTestBreak {
			im.ProvableBreaks++
		}
		if !c.Reach.Resolved {
			im.Unresolved++
			continue
		}
		for _, m := range c.Reach.Models {
			models[m.Name] = true
			if mechanismMayMatch(m.Mechanisms, []string{MechanismDerivedRecompute, MechanismRowsetFilter}) {
				recompute[m.Name] = true
			}
		}
		for _, col := range c.Reach.Columns {
			columns[col.Model+"."+col.Column] = true
		}
		for _, e := range c.Reach.Exposures {
			exposures[e.Name] = true
		}
	}
	im.AffectedModels, im.AffectedColumns, im.AffectedExposures, im.Recomputing = len(models), len(columns), len(exposures), len(recompute)
	return im
}

// LegacyVerdict is dbt-column-lineage's decide_verdict over a changeset: block
// on a provable test break, review when something downstream recomputes, is
// filtered, is an exposure or cannot be resolved, else safe.
func (im Impact) LegacyVerdict() string {
	switch {
	case im.ProvableBreaks > 0:
		return LegacyBlock
	case im.Recomputing > 0 || im.AffectedExposures > 0 || im.Unresolved > 0:
		return LegacyReview
	}
	return LegacySafe
}

// GateTripped reports whether a legacy --fail-on gate (tests, exposures,
// critical, any) trips on this impact; "none" never trips.
func (im Impact) GateTripped(gate string) bool {
	switch gate {
	case "tests":
		return im.ProvableBreaks > 0
	case "exposures":
		return im.AffectedExposures > 0
	case "critical":
		return im.Recomputing > 0
	case "any":
		return im.AffectedModels > 0 || im.AffectedColumns > 0 || im.AffectedExposures > 0 || im.Unresolved > 0
	}
	return false
}

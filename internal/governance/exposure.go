package governance

// ConflictSentence is the exposure conflict's fixed text (governance-format.md §10).
const ConflictSentence = "dataspace.expose is true but expose is false — a dataset that is not in the catalogue cannot be discovered or negotiated in the dataspace. Set expose: true to offer it, or dataspace.expose: false to withdraw it."

// EffectiveExpose is the catalogue gate: listed in the catalogue and served by
// the API. A stated expose decides; none falls back to dataspace.expose.
func EffectiveExpose(r *Rule) bool { return effectiveExpose(r.Expose, DataspaceExpose(r)) }

// effectiveExpose is the catalogue gate of a rule whose expose is expose
// and whose dataspace gate is offered: expose when stated, else the
// dataspace gate.
func effectiveExpose(expose OptBool, offered bool) bool {
	if expose.Stated() {
		return expose.Value()
	}
	return offered
}

// DataspaceExpose is the dataspace gate: offered into the dataspace. No fallback
// to expose in either direction.
func DataspaceExpose(r *Rule) bool {
	return r.Dataspace != nil && r.Dataspace.Expose
}

// ExposureConflict returns ConflictSentence when a rule offers a dataset into
// the dataspace that it keeps out of the catalogue, else "". It is reported,
// never raised, so a caller can collect every conflict in a run.
func ExposureConflict(r *Rule) string { return exposureConflict(r.Expose, DataspaceExpose(r)) }

// exposureConflict is the conflict of a rule whose expose is expose and
// whose dataspace gate is offered: kept out of the catalogue, offered.
func exposureConflict(expose OptBool, offered bool) string {
	if expose == False && offered {
		return ConflictSentence
	}
	return ""
}

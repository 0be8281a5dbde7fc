package propagate

// MetaKey is where a changeset column's meta carries its inference:
// governance.inferred, beside the relation's own rule under governance.
const MetaKey = "inferred"

// Meta is the inference as a policy reads it, a JSON object:
//
//   - classification, access_level: the levels the column carries; null
//     when nothing it is computed from declares one; absent when part of
//     its lineage is unknown and what is known is below the top of the
//     scale (pii, restricted), so that a rule reading them falls to its
//     fail-safe instead of reading a lower bound as the answer;
//   - through: the functions every path carrying those levels passes
//     through (md5, sha2, a masking function); absent when some path's
//     functions, or some path, are unknown;
//   - complete: false when part of the column's lineage is unknown;
//   - rowset: {classification, access_level, complete} counting the columns
//     that choose rows too, with the same rules;
//   - path: the hops, each {relation, dataset, column, mechanism, through},
//     the first with the levels its relation declares (declared); at most
//     MaxPath, and path_omitted counts those left out after the first.
func (in Inferred) Meta() map[string]any {
	out := map[string]any{"complete": in.Complete}
	levels(out, in.Levels, in.Complete)
	if in.Complete && in.ThroughKnown {
		through := make([]any, len(in.Through))
		for i, f := range in.Through {
			through[i] = f
		}
		out["through"] = through
	}
	rowset := map[string]any{"complete": in.RowSetComplete}
	levels(rowset, in.RowSet, in.RowSetComplete)
	out["rowset"] = rowset
	path := make([]any, len(in.Path))
	for i, h := range in.Path {
		hop := map[string]any{"relation": h.Relation, "column": h.Column}
		if h.Dataset != "" {
			hop["dataset"] = h.Dataset
		}
		if h.Mechanism != "" {
			hop["mechanism"] = h.Mechanism
		}
		if h.Declared != nil {
			declared := map[string]any{}
			levels(declared, *h.Declared, true)
			hop["declared"] = declared
		}
		if len(h.Through) > 0 {
			through := make([]any, len(h.Through))
			for j, f := range h.Through {
				through[j] = f
			}
			hop["through"] = through
		}
		path[i] = hop
	}
	out["path"] = path
	if in.PathOmitted > 0 {
		out["path_omitted"] = in.PathOmitted
	}
	return out
}

// levels sets classification and access_level on m: the value, null for
// none, or nothing when the value is a lower bound that could still rise.
func levels(m map[string]any, l Levels, complete bool) {
	set := func(key, value string, top bool) {
		switch {
		case complete && value == "":
			m[key] = nil
		case complete || top:
			m[key] = value
		}
	}
	set("classification", l.Classification, classificationRank(l.Classification) == topClassification)
	set("access_level", l.AccessLevel, accessRank(l.AccessLevel) == topAccess)
}

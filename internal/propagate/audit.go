package propagate

import (
	"fmt"
	"sort"
)

// AuditOptions say what the audit reports.
type AuditOptions struct {
	// MinClassification and MinAccessLevel are the levels from which a
	// column's data counts as sensitive, as written (PII and secret are
	// read as the format reads them); "" is DefaultMinClassification and
	// DefaultMinAccessLevel.
	MinClassification, MinAccessLevel string
	// RowSet counts the columns that choose a model's rows as well
	// (Inferred.RowSet) instead of only those its values are computed from.
	RowSet bool
}

// The default thresholds: sensitive or personal data (red, pii), or data
// that needs explicit authorisation (restricted).
const (
	DefaultMinClassification = "red"
	DefaultMinAccessLevel    = "restricted"
)

// Finding is a column whose inferred governance is above what its relation
// declares, at a sensitive level.
type Finding struct {
	Relation string `json:"relation"` // the relation's name
	Dataset  string `json:"dataset"`  // its dataset id
	File     string `json:"file,omitempty"`
	Column   string `json:"column"`
	Inferred Levels `json:"inferred"`
	Declared Levels `json:"declared"`
	// Above lists what the column carries above its declaration:
	// "classification", "access_level" or both.
	Above []string `json:"above"`
	// Exposed lists where the relation is exposed: "catalogue",
	// "dataspace"; empty when it is in neither.
	Exposed []string `json:"exposed"`
	// Complete is false when part of the column's lineage is not known:
	// it carries at least Inferred.
	Complete bool     `json:"complete"`
	Through  []string `json:"through"`
	Path     []Hop    `json:"path"`
	// PathOmitted counts the hops left out of Path after its first
	// (Inferred.PathOmitted).
	PathOmitted int `json:"path_omitted,omitempty"`
}

// Code is the finding's rule: inferred-above-declared, or
// inferred-above-declared-exposed when the relation is in the catalogue or
// offered into the dataspace.
func (f *Finding) Code() string {
	if len(f.Exposed) > 0 {
		return CodeExposed
	}
	return CodeAboveDeclared
}

// Finding codes.
const (
	CodeAboveDeclared = "inferred-above-declared"
	CodeExposed       = "inferred-above-declared-exposed"
)

// Ungoverned is a relation no governance rule applies to, whose columns
// carry sensitive data.
type Ungoverned struct {
	Relation string   `json:"relation"`
	Dataset  string   `json:"dataset"`
	Columns  []string `json:"columns"`
}

// Unanalysed is a governed relation whose lineage is not known, so its
// columns could not be audited.
type Unanalysed struct {
	Relation string `json:"relation"`
	Dataset  string `json:"dataset"`
	Reason   string `json:"reason"`
}

// Report is the audit of a project.
type Report struct {
	// Thresholds are the levels from which data counts as sensitive,
	// normalised.
	Thresholds Levels `json:"thresholds"`
	RowSet     bool   `json:"rowset"`
	// Findings are sorted by relation and column.
	Findings []Finding `json:"findings"`
	// Ungoverned and Unanalysed are what the audit could not judge; they
	// are not findings.
	Ungoverned []Ungoverned `json:"ungoverned"`
	Unanalysed []Unanalysed `json:"unanalysed"`
	Summary    Summary      `json:"summary"`
}

// Summary counts what the audit looked at and found.
type Summary struct {
	Relations int `json:"relations"` // governed relations whose columns were audited
	Columns   int `json:"columns"`   // their columns
	Findings  int `json:"findings"`
	Exposed   int `json:"exposed"` // findings in exposed relations
	// Incomplete counts the audited columns whose lineage is partly
	// unknown.
	Incomplete int `json:"incomplete"`
}

// Audit reports every column of a governed model whose inferred
// classification or access level is above what its relation declares (a
// level the rule leaves unset counts as none) and at a sensitive level, with
// the relation's exposure and the path by which the data came. An
// unrecognised threshold is an error.
func Audit(res *Result, opts AuditOptions) (*Report, error) {
	minClass, minAccess := opts.MinClassification, opts.MinAccessLevel
	if minClass == "" {
		minClass = DefaultMinClassification
	}
	if minAccess == "" {
		minAccess = DefaultMinAccessLevel
	}
	th, err := NormalizeLevels(minClass, minAccess)
	if err != nil {
		return nil, fmt.Errorf("threshold %w", err)
	}
	rep := &Report{Thresholds: th, RowSet: opts.RowSet, Findings: []Finding{}, Ungoverned: []Ungoverned{}, Unanalysed: []Unanalysed{}}
	tc, ta := classificationRank(th.Classification), accessRank(th.AccessLevel)
	for ri, r := range res.Graph.Relations {
		d := res.Declared[ri]
		if r.Kind == Opaque && d.Governed {
			rep.Unanalysed = append(rep.Unanalysed, Unanalysed{Relation: r.Name, Dataset: r.Key, Reason: r.Reason})
		}
		if r.Kind != Derived {
			continue
		}
		dc, da := classificationRank(d.Classification), accessRank(d.AccessLevel)
		var sensitive []string
		if d.Governed {
			rep.Summary.Relations++
			rep.Summary.Columns += len(r.Columns)
		}
		for j, col := range r.Columns {
			if j > 0 && res.colIndex[ri][col.Name] != int32(j) {
				continue // a repeated name: the first is the column
			}
			st := &res.states[ri][j]
			class, access, complete := st.class, st.access, st.complete
			if opts.RowSet {
				class, access, complete = st.rowClass, st.rowAccess, st.rowComplete
			}
			if !d.Governed {
				if class >= tc || access >= ta {
					sensitive = append(sensitive, col.Name)
				}
				continue
			}
			if !complete {
				rep.Summary.Incomplete++
			}
			var above []string
			if class >= tc && class > dc {
				above = append(above, "classification")
			}
			if access >= ta && access > da {
				above = append(above, "access_level")
			}
			if len(above) == 0 {
				continue
			}
			inf := res.inferred(st)
			f := Finding{Relation: r.Name, Dataset: r.Key, File: r.File, Column: col.Name,
				Inferred: Levels{classificationOf(class), accessOf(access)}, Declared: d.Levels,
				Above: above, Exposed: []string{}, Complete: complete, Through: inf.Through, Path: inf.Path, PathOmitted: inf.PathOmitted}
			if opts.RowSet {
				// The path shows how the value's levels came; the rows' are
				// those of the model's predicates.
				f.Through = []string{}
			}
			if d.Catalogue {
				f.Exposed = append(f.Exposed, "catalogue")
			}
			if d.Dataspace {
				f.Exposed = append(f.Exposed, "dataspace")
			}
			if len(f.Exposed) > 0 {
				rep.Summary.Exposed++
			}
			rep.Findings = append(rep.Findings, f)
		}
		if len(sensitive) > 0 {
			rep.Ungoverned = append(rep.Ungoverned, Ungoverned{Relation: r.Name, Dataset: r.Key, Columns: sensitive})
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Relation != b.Relation {
			return a.Relation < b.Relation
		}
		return a.Column < b.Column
	})
	sort.Slice(rep.Ungoverned, func(i, j int) bool { return rep.Ungoverned[i].Relation < rep.Ungoverned[j].Relation })
	sort.Slice(rep.Unanalysed, func(i, j int) bool { return rep.Unanalysed[i].Relation < rep.Unanalysed[j].Relation })
	rep.Summary.Findings = len(rep.Findings)
	return rep, nil
}

package diff

import (
	"encoding/json"

	"github.com/celine-eu/governanced/internal/check"
)

// ReportVersion is the version of the report's JSON shape.
const ReportVersion = 1

// Report is what changes from a base tree to a head tree. Every list is
// sorted (apps and datasets by app, then key) and empty rather than nil.
type Report struct {
	Version int  `json:"diff_version"`
	Base    Side `json:"base"`
	Head    Side `json:"head"`
	// Kinds counts each kind that occurred: datasets for a dataset's
	// kinds, findings for new-error and new-warning. Report order.
	Kinds    []KindCount     `json:"kinds"`
	Apps     []AppChange     `json:"apps"`
	Datasets []DatasetChange `json:"datasets"`
	Findings Findings        `json:"findings"`
}

// Side describes one tree of the diff.
type Side struct {
	Revision string `json:"revision"`
	Root     string `json:"root,omitempty"`
	// OK is true when the tree's check passed (no error, and under
	// --strict no warning): a server with the same options would serve
	// it. A head that is not OK would be refused by a reload, the base
	// going on being served.
	OK       bool `json:"ok"`
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	Apps     int  `json:"apps"`     // materialised
	Datasets int  `json:"datasets"` // sources keys of the materialised apps
}

// KindCount is how often a kind occurred.
type KindCount struct {
	Kind  Kind `json:"kind"`
	Count int  `json:"count"`
	Risky bool `json:"risky"`
}

// App statuses.
const (
	AppAdded      = "added"      // only the head holds the app
	AppRemoved    = "removed"    // only the base holds it
	AppUnresolved = "unresolved" // a side holds it but could not materialise it: its datasets are not compared
)

// AppChange is an app added, removed, or not comparable.
type AppChange struct {
	App    string `json:"app"`
	Status string `json:"status"`
	// File is the base's display path, in the head for an added or
	// unresolved app, in the base for a removed one.
	File string `json:"file"`
	// Unresolved says which side could not be materialised: "base",
	// "head" or "both"; "" unless Status is unresolved.
	Unresolved string `json:"unresolved,omitempty"`
}

// Dataset statuses.
const (
	Added   = "added"   // the base does not resolve the key's name in its app
	Removed = "removed" // the head does not
	Changed = "changed" // both do, to rules that differ
)

// DatasetChange is one dataset key whose resolution differs.
type DatasetChange struct {
	App     string `json:"app"`
	Dataset string `json:"dataset"` // the sources key
	Pattern bool   `json:"pattern"` // a glob key
	Status  string `json:"status"`
	// Base and Head say how the name resolved on each side: the match and
	// where the key it matched is declared. Nil on the side that does not
	// resolve it.
	Base *Resolution `json:"base"`
	Head *Resolution `json:"head"`
	// Kinds are the kinds this dataset counts for, in report order.
	Kinds []Kind `json:"kinds"`
	// Derived are the derived changes (every kind but dataset-added,
	// dataset-removed and field-changed), with the field that decided each.
	Derived []Derived `json:"derived"`
	// Fields are every field that changed, for a changed dataset: applying
	// them to the base's resolved rule gives the head's.
	Fields []FieldChange `json:"fields"`
	// Rule is the resolved rule (its served JSON) of an added dataset in
	// the head, of a removed one in the base; absent for a changed one.
	Rule json.RawMessage `json:"rule,omitempty"`
}

// Resolution is how a name found its rule on one side.
type Resolution struct {
	Match Match `json:"match"`
	// Where the matched key is declared.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Match is the key a name matched: "exact" (the name is the key) or
// "glob" (the longest glob key matching it), as the service's rule body
// says it.
type Match struct {
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
}

// Derived is one derived change of a dataset: a kind, the field that
// decided it, its old and new value for people, and where the head states
// the new value (or, when the head states nothing there, where the base
// stated the old one).
type Derived struct {
	Kind  Kind   `json:"kind"`
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
	// Origin is the head's statement of Field; nil when the head states
	// nothing there.
	Origin *Origin `json:"origin"`
	// BaseOrigin is the base's statement of Field; nil likewise.
	BaseOrigin *Origin `json:"base_origin"`
}

// FieldChange is one field of a resolved rule that changed.
type FieldChange struct {
	// Field is the path dotted, as the service's provenance names it
	// ("access_level", "dcat.themes", "extra.<key>").
	Field string `json:"field"`
	// Path is the same as its segments (an extra key may hold a dot).
	Path []string `json:"path"`
	// Old and New are the JSON values; absent when the rule does not
	// state the field (null is a stated null).
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
	// Origin is where the head states the new value; nil when it states
	// none. BaseOrigin is where the base stated the old one.
	Origin     *Origin `json:"origin"`
	BaseOrigin *Origin `json:"base_origin"`
}

// Origin is where a value is written: the service's provenance entry.
type Origin struct {
	Layer  string `json:"layer"` // defaults, source, overlay.defaults, overlay.source
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Findings are the check findings (errors and warnings) the head gains and
// loses. Findings are matched on what they say and where — severity, code,
// file, JSON path, dataset and subject — not on line, column or message,
// which move when unrelated lines do; a finding stated twice counts twice.
type Findings struct {
	Added    []check.Finding `json:"added"`
	Resolved []check.Finding `json:"resolved"`
}

// Count is how often k occurred.
func (r *Report) Count(k Kind) int {
	for _, c := range r.Kinds {
		if c.Kind == k {
			return c.Count
		}
	}
	return 0
}

// Occurred are the kinds of ks that occurred, in report order: what makes
// a gate naming ks fail.
func (r *Report) Occurred(ks []Kind) []Kind {
	var out []Kind
	for _, c := range r.Kinds {
		for _, k := range ks {
			if c.Kind == k && c.Count > 0 {
				out = append(out, k)
			}
		}
	}
	return out
}

// Empty reports whether nothing changes: no app, dataset or finding.
func (r *Report) Empty() bool {
	return len(r.Apps) == 0 && len(r.Datasets) == 0 && len(r.Findings.Added) == 0 && len(r.Findings.Resolved) == 0
}

package check

import (
	"cmp"
	"encoding/json"
	"slices"
)

// Severity is how much a finding weighs (check.md §10).
type Severity string

// The three severities. An error fails the run; a warning fails it under
// Strict; an info never does.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding codes (check.md §9.1). They are a contract: CI scripts and
// dashboards match on them.
const (
	CodePathNoMatch                 = "path-no-match"
	CodeNoGovernanceInDir           = "no-governance-in-dir"
	CodeOverlayDirNotFound          = "overlay-dir-not-found"
	CodeLoadError                   = "load-error"
	CodeNotAMapping                 = "not-a-mapping"
	CodeDuplicateKey                = "duplicate-key"
	CodeSchemaViolation             = "schema-violation"
	CodeUnknownKey                  = "unknown-key"
	CodeIgnoredKey                  = "ignored-key"
	CodeNonStringKey                = "non-string-key"
	CodeLegacyRowFilterInvalid      = "legacy-row-filter-invalid"
	CodeAccessLevelSecret           = "access-level-secret"
	CodeOverlayConflict             = "overlay-conflict"
	CodeOverlayUnused               = "overlay-unused"
	CodeSemanticSkipped             = "semantic-skipped"
	CodeRowFilterUnknownHandler     = "row-filter-unknown-handler"
	CodeRowFilterMissingArg         = "row-filter-missing-arg"
	CodeRowFilterUnknownArg         = "row-filter-unknown-arg"
	CodeRowFilterInvalidArg         = "row-filter-invalid-arg"
	CodeExposureConflict            = "exposure-conflict"
	CodeRowPolicyUndeclared         = "row-policy-undeclared"
	CodeLegacyRowFilter             = "legacy-row-filter"
	CodeLegacyRowFilterShadowed     = "legacy-row-filter-shadowed"
	CodeConsentWithoutSubjectFilter = "consent-without-subject-filter"
	CodeConsentFilterNotDelegable   = "consent-filter-not-delegable"
	CodeOwnerUnresolved             = "owner-unresolved"
	CodeOwnerDIDMissing             = "owner-did-missing"
	CodeOwnersFileNotFound          = "owners-file-not-found"
	CodeOwnersSchemaViolation       = "owners-schema-violation"
	CodeOwnersDuplicateID           = "owners-duplicate-id"
	CodeOwnersShadowed              = "owners-shadowed"
	CodeOwnersAliasShadowsID        = "owners-alias-shadows-id"
	CodeOwnersAliasConflict         = "owners-alias-conflict"
	CodePlaceholdersInvalid         = "placeholders-invalid"
	CodeOwnersNotLoaded             = "owners-not-loaded"
	CodeOwnersNotChecked            = "owners-not-checked"
)

// Finding is one problem, located as precisely as the input allows. Nullable
// members are pointers (Path "" is the document root, which is not "no path");
// File "" and Line 0 mean none, since neither is a real value.
type Finding struct {
	Severity Severity
	Code     string
	File     string // display path (check.md §3.4), the argument text for path-no-match, "" for none
	Line     int    // 1-based; 0 for none
	Column   int
	path     *string // RFC 6901 pointer into File (Path), or keyPath
	Dataset  *string // the source key the finding is about
	Subject  *string // what the finding names: a key, a keyword, a handler, an owner
	Message  string  // for people; never normative
}

// keyPath is the path of a finding about a source key as a whole: its
// Dataset's entry under sources, made when asked for (Path) rather than
// held, since most findings of a large tree are such findings and each
// would hold a path of its own.
var keyPath = new(string)

// Path is the RFC 6901 pointer into File the finding is at; nil for
// none. A finding about a source key as a whole makes it on each call.
func (f Finding) Path() *string {
	if f.path == keyPath {
		return ptr("sources", *f.Dataset)
	}
	return f.path
}

// comparedPaths are a's and b's paths as the report compares them, when
// their datasets are the same: two paths made from the same key are
// equal, and are compared without being made.
func comparedPaths(a, b Finding) (*string, *string) {
	if a.path == keyPath && b.path == keyPath {
		return a.Dataset, a.Dataset
	}
	return a.Path(), b.Path()
}

// MarshalJSON renders the finding as check.md §11.1 does: every key present,
// null where there is nothing.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Severity Severity `json:"severity"`
		Code     string   `json:"code"`
		File     *string  `json:"file"`
		Line     *int     `json:"line"`
		Column   *int     `json:"column"`
		Path     *string  `json:"path"`
		Dataset  *string  `json:"dataset"`
		Subject  *string  `json:"subject"`
		Message  string   `json:"message"`
	}{f.Severity, f.Code, nonEmpty(f.File), nonZero(f.Line), nonZero(f.Column), f.Path(), f.Dataset, f.Subject, f.Message})
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func str(s string) *string { return &s }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Inputs echo the options as given (check.md §11.1). Placeholders is the file
// given; a map handed over already parsed is not echoed.
type Inputs struct {
	Paths        []string `json:"paths"`
	OverlayDir   *string  `json:"overlay_dir"`
	OverlayName  *string  `json:"overlay_name"`
	Owners       []string `json:"owners"`
	Placeholders *string  `json:"placeholders"`
	Dataspace    bool     `json:"dataspace"`
	// InferFromDir is false when a base without an overlay name is left
	// unchanged (Options.NoInferFromDir).
	InferFromDir bool `json:"infer_from_dir"`
}

// Summary counts the findings and what was checked.
type Summary struct {
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	Infos       int `json:"infos"`
	Bases       int `json:"bases"`
	Overlays    int `json:"overlays"`
	OwnersFiles int `json:"owners_files"`
	Datasets    int `json:"datasets"`
}

// Report is the result of a check (check.md §11.1), as every client sees it.
type Report struct {
	ReportVersion int       `json:"report_version"`
	OK            bool      `json:"ok"`
	ExitCode      int       `json:"exit_code"`
	Strict        bool      `json:"strict"`
	Inputs        Inputs    `json:"inputs"`
	Summary       Summary   `json:"summary"`
	Findings      []Finding `json:"findings"`
}

// HasErrors reports whether the report holds an error finding, whatever
// Strict says: the server refuses to activate such a tree.
func (r *Report) HasErrors() bool { return r.Summary.Errors > 0 }

// finish collapses identical findings, orders them (check.md §11.4) and fills
// in the counts and the verdict.
func (r *Report) finish(findings []Finding) {
	slices.SortStableFunc(findings, compareFindings)
	out := findings[:0]
	for i, f := range findings {
		if i > 0 && sameFinding(out[len(out)-1], f) {
			continue
		}
		out = append(out, f)
	}
	r.Findings = slices.Clip(out)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case Error:
			r.Summary.Errors++
		case Warning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
	}
	r.OK = r.Summary.Errors == 0 && !(r.Strict && r.Summary.Warnings > 0)
	if !r.OK {
		r.ExitCode = 1
	}
}

// ShareFindings points each result's Findings at the run of r.Findings
// that holds them, when r was made from results (Plan.Report) and they
// are one run there: a caller keeping both the report and the results (a
// server keeps the results to report again on its next reload) then holds
// each finding once. The findings a result keeps this way are sorted and
// collapsed as the report has them; a result whose findings are not one
// run of the report keeps a copy of its own, so that none holds on to a
// report it was not made into. A result's findings that are not sorted
// already are sorted in place: the caller owns results.
func (r *Report) ShareFindings(results []UnitResult) {
	for i := range results {
		results[i].Findings = r.run(results[i].Findings)
	}
}

func (r *Report) run(fs []Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	if !slices.IsSortedFunc(fs, compareFindings) {
		slices.SortStableFunc(fs, compareFindings)
	}
	lo, found := slices.BinarySearchFunc(r.Findings, fs[0], compareFindings)
	if !found {
		return slices.Clone(fs)
	}
	k := lo
	for j, f := range fs {
		if j > 0 && sameFinding(fs[j-1], f) {
			continue // collapsed, as the report did
		}
		if k == len(r.Findings) || r.Findings[k] != f {
			return slices.Clone(fs)
		}
		k++
	}
	return r.Findings[lo:k:k]
}

// sameFinding is the identity of §11.4. Sorting puts identical findings next
// to each other because every member of the identity is a sort key.
func sameFinding(a, b Finding) bool {
	if a.Severity != b.Severity || a.Code != b.Code || a.File != b.File ||
		a.Line != b.Line || a.Column != b.Column ||
		!eqPtr(a.Dataset, b.Dataset) || !eqPtr(a.Subject, b.Subject) {
		return false
	}
	pa, pb := comparedPaths(a, b)
	return eqPtr(pa, pb)
}

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// compareFindings is the report order of check.md §11.4. Null members sort as
// the empty string; the identity members a null would otherwise collide with
// come last so that identical findings stay adjacent.
func compareFindings(a, b Finding) int {
	if c := cmp.Compare(boolRank(a.File != ""), boolRank(b.File != "")); c != 0 {
		return c
	}
	if c := cmp.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(boolRank(a.Line == 0), boolRank(b.Line == 0)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Column, b.Column); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Severity.rank(), b.Severity.rank()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if c := cmp.Compare(deref(a.Dataset), deref(b.Dataset)); c != 0 {
		return c
	}
	pa, pb := comparedPaths(a, b)
	for _, p := range [][2]*string{{pa, pb}, {a.Subject, b.Subject}} {
		if c := cmp.Compare(deref(p[0]), deref(p[1])); c != 0 {
			return c
		}
	}
	for _, p := range [][2]*string{{a.Dataset, b.Dataset}, {pa, pb}, {a.Subject, b.Subject}} {
		if c := cmp.Compare(boolRank(p[0] != nil), boolRank(p[1] != nil)); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Message, b.Message)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

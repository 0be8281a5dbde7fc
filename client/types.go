package client

import (
	"encoding/json"
	"time"
)

// The answers of governanced, as openapi.yaml describes them. Each type
// carries every property of its schema (TestTypesCarryOpenAPI): a field
// the server adds fails that test until it is carried here.

// Rule is a resolved governance rule in its set-field view: only what the
// files state after merging. A field no file states is nil; absent and an
// explicit null are both nil, as both are None in the library, and a list
// stated empty is empty but not nil.
type Rule struct {
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	// Expose is the catalogue gate as written: nil when unstated, which
	// does not mean false. Decide visibility with Exposure.Expose (the
	// library's effective_expose), never with this.
	Expose             *bool       `json:"expose,omitempty"`
	License            *string     `json:"license,omitempty"`
	Attribution        *string     `json:"attribution,omitempty"`
	Ownership          []RuleOwner `json:"ownership"`
	AccessLevel        *string     `json:"access_level,omitempty"` // as written: secret stays secret (NormalizeAccessLevel folds it)
	AccessRequirements *string     `json:"access_requirements,omitempty"`
	Classification     *string     `json:"classification,omitempty"`
	Tags               []string    `json:"tags"`
	RetentionDays      *int64      `json:"retention_days,omitempty"`
	DocumentationURL   *string     `json:"documentation_url,omitempty"`
	SourceSystem       *string     `json:"source_system,omitempty"`
	// RowFilters are the row-level filters, each an object with a handler
	// and its arguments, as written.
	RowFilters       []map[string]any `json:"row_filters"`
	UserFilterColumn *string          `json:"user_filter_column,omitempty"`
	Dcat             *Dcat            `json:"dcat,omitempty"`
	Ontology         *Ontology        `json:"ontology,omitempty"`
	Dataspace        *Dataspace       `json:"dataspace,omitempty"`
	// Extra holds the keys outside the grammar, as written.
	Extra map[string]any `json:"extra,omitempty"`
}

// RuleOwner is one item of a rule's ownership: an owner id once the
// registry resolved the name, else the name as written.
type RuleOwner struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Dcat is the DCAT-AP metadata of a rule.
type Dcat struct {
	PublisherURI       *string           `json:"publisher_uri,omitempty"`
	Themes             []string          `json:"themes"`
	LanguageURIs       []string          `json:"language_uris"`
	SpatialURIs        []string          `json:"spatial_uris"`
	AccrualPeriodicity *string           `json:"accrual_periodicity,omitempty"`
	ConformsTo         *string           `json:"conforms_to,omitempty"`
	Temporal           *TemporalCoverage `json:"temporal,omitempty"`
}

// TemporalCoverage is a rule's dcat.temporal.
type TemporalCoverage struct {
	Start *string `json:"start,omitempty"`
	End   *string `json:"end,omitempty"`
}

// Ontology binds a rule to a semantic mapping.
type Ontology struct {
	Spec     *string `json:"spec,omitempty"`
	SpecFile *string `json:"spec_file,omitempty"`
}

// Dataspace is a rule's dataspace block, in the set-field view: nil is a
// field the files do not state, which the library reads as its default
// (false, and "use" for OdrlAction).
type Dataspace struct {
	Medallion        *string  `json:"medallion,omitempty"`
	ContractRequired *bool    `json:"contract_required,omitempty"`
	ConsentRequired  *bool    `json:"consent_required,omitempty"`
	OdrlAction       *string  `json:"odrl_action,omitempty"`
	Purpose          []string `json:"purpose"`
	// Expose is whether the block offers the dataset into the dataspace;
	// Exposure.DataspaceExpose is the gate to decide with.
	Expose *bool `json:"expose,omitempty"`
}

// Exposure is a rule's two gates, as the library's exposure functions
// answer them.
type Exposure struct {
	// Expose is effective_expose: listed in the catalogue and served by
	// the API.
	Expose bool `json:"expose"`
	// DataspaceExpose is dataspace_expose: offered into the dataspace.
	DataspaceExpose bool `json:"dataspace_expose"`
	// Conflict is exposure_conflict's sentence, nil when the gates agree.
	Conflict *string `json:"conflict"`
}

// Match says how a dataset name found its rule.
type Match struct {
	Kind    string `json:"kind"`              // exact, glob or defaults
	Pattern string `json:"pattern,omitempty"` // the sources key; empty for defaults
}

// Origin is where a field's value was written.
type Origin struct {
	Layer      string   `json:"layer"` // defaults, source, overlay.defaults, overlay.source
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Column     int      `json:"column"`
	MergedFrom []Origin `json:"merged_from,omitempty"`
}

// RuleBody is the answer of GET /datasets/{id}/rule.
type RuleBody struct {
	Revision string   `json:"revision"`
	Dataset  string   `json:"dataset"`
	App      string   `json:"app"`
	Match    Match    `json:"match"`
	Rule     Rule     `json:"rule"`
	Exposure Exposure `json:"exposure"`
	// IsEmpty is the library's is_empty(rule): the rule states nothing a
	// lineage facet carries, so an extractor emits none.
	IsEmpty bool `json:"is_empty"`
	// Provenance is where each set field came from (with Explain only).
	Provenance map[string]Origin `json:"provenance,omitempty"`
}

// ExposureBody is the answer of GET /datasets/{id}/exposure.
type ExposureBody struct {
	Revision        string  `json:"revision"`
	Dataset         string  `json:"dataset"`
	App             string  `json:"app"`
	Expose          bool    `json:"expose"`
	DataspaceExpose bool    `json:"dataspace_expose"`
	Conflict        *string `json:"conflict"`
}

// Facet is the OpenLineage governance dataset facet of a rule (GET
// /datasets/{id}/facet, the library's build_facet): camelCase keys, a value
// the rule does not carry omitted. Marshalled again it is the same object.
type Facet struct {
	Producer           string           `json:"_producer"`
	SchemaURL          string           `json:"_schemaURL"`
	Title              *string          `json:"title,omitempty"`
	Description        *string          `json:"description,omitempty"`
	License            *string          `json:"license,omitempty"`
	Attribution        *string          `json:"attribution,omitempty"`
	Owners             []string         `json:"owners,omitempty"`
	AccessLevel        *string          `json:"accessLevel,omitempty"`
	AccessRequirements *string          `json:"accessRequirements,omitempty"`
	Classification     *string          `json:"classification,omitempty"`
	Tags               []string         `json:"tags,omitempty"`
	RetentionDays      *int64           `json:"retentionDays,omitempty"`
	DocumentationURL   *string          `json:"documentationUrl,omitempty"`
	SourceSystem       *string          `json:"sourceSystem,omitempty"`
	RowFilters         []map[string]any `json:"rowFilters,omitempty"`
	Medallion          *string          `json:"medallion,omitempty"`
	ContractRequired   bool             `json:"contractRequired,omitempty"`
	ConsentRequired    bool             `json:"consentRequired,omitempty"`
	OdrlAction         *string          `json:"odrlAction,omitempty"`
	Purpose            []string         `json:"purpose,omitempty"`
}

// DatasetItem is one sources key of the served tree (GET /datasets).
type DatasetItem struct {
	ID              string  `json:"id"`
	App             string  `json:"app"`
	Pattern         bool    `json:"pattern"` // a glob key
	Expose          bool    `json:"expose"`
	DataspaceExpose bool    `json:"dataspace_expose"`
	Conflict        *string `json:"conflict"`
	// Search says how a search by words (DatasetFilter.Query) found the
	// dataset; nil otherwise.
	Search *DatasetSearch `json:"search,omitempty"`
	Rule   *RuleBody      `json:"rule,omitempty"` // with DatasetFilter.IncludeRule
}

// DatasetSearch is how a search by words found a dataset.
type DatasetSearch struct {
	// Score ranks the answer, higher first; compare scores of one answer
	// only.
	Score int `json:"score"`
	// Fields are those a word was found in: key, title, tag, owner, app,
	// source_system, description.
	Fields []string `json:"fields"`
}

// DatasetList is one page of GET /datasets.
type DatasetList struct {
	Revision string        `json:"revision"`
	Items    []DatasetItem `json:"items"`
	Next     *string       `json:"next"`
}

// OwnerEntry is one owner of the merged registry.
type OwnerEntry struct {
	ID           string             `json:"id"`
	Type         string             `json:"type"`
	Aliases      []string           `json:"aliases"`
	Name         string             `json:"name,omitempty"`
	Role         string             `json:"role,omitempty"`
	DID          string             `json:"did,omitempty"`
	URL          string             `json:"url,omitempty"`
	Organization *OwnerOrganization `json:"organization,omitempty"`
}

// OwnerOrganization is what an identity provider creates for an owner.
type OwnerOrganization struct {
	Create     bool              `json:"create"`
	Role       string            `json:"role,omitempty"`
	Attributes map[string]string `json:"attributes"`
}

// OwnerList is the answer of GET /owners.
type OwnerList struct {
	Revision string       `json:"revision"`
	Items    []OwnerEntry `json:"items"`
}

// Owner is the answer of GET /owners/{key}: the entry and its published
// identifier (the DID, else the URL; nil when it has neither).
type Owner struct {
	OwnerEntry
	Revision     string  `json:"revision"`
	CanonicalURI *string `json:"canonical_uri"`
}

// Finding is one finding of the tree check.
type Finding struct {
	Severity string  `json:"severity"` // error, warning or info
	Code     string  `json:"code"`
	File     *string `json:"file"`
	Line     *int    `json:"line"`
	Column   *int    `json:"column"`
	Path     *string `json:"path"` // an RFC 6901 pointer into File
	Dataset  *string `json:"dataset"`
	Subject  *string `json:"subject"`
	Message  string  `json:"message"`
}

// Report is the tree check's report: GET /report of the served tree, or
// POST /validate of a document.
type Report struct {
	ReportVersion int           `json:"report_version"`
	OK            bool          `json:"ok"`
	ExitCode      int           `json:"exit_code"`
	Strict        bool          `json:"strict"`
	Inputs        ReportInputs  `json:"inputs"`
	Summary       ReportSummary `json:"summary"`
	Findings      []Finding     `json:"findings"`
}

// ReportInputs are the options the check ran with.
type ReportInputs struct {
	Paths        []string `json:"paths"`
	OverlayDir   *string  `json:"overlay_dir"`
	OverlayName  *string  `json:"overlay_name"`
	Owners       []string `json:"owners"`
	Placeholders *string  `json:"placeholders"`
	Dataspace    bool     `json:"dataspace"`
	// InferFromDir is false when a base with no overlay name is served
	// unchanged rather than paired with the overlay named after its app.
	InferFromDir bool `json:"infer_from_dir"`
}

// ReportSummary counts a report's findings and inputs.
type ReportSummary struct {
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	Infos       int `json:"infos"`
	Bases       int `json:"bases"`
	Overlays    int `json:"overlays"`
	OwnersFiles int `json:"owners_files"`
	Datasets    int `json:"datasets"`
}

// Dependency is one depends_on entry of a pipeline.
type Dependency struct {
	Dataset     string  `json:"dataset"`
	External    bool    `json:"external"`
	Optional    bool    `json:"optional"`
	Description *string `json:"description"`
}

// Graph is the pipelines' dependency graph (GET /graph).
type Graph struct {
	Revision  string          `json:"revision"`
	Overlays  bool            `json:"overlays"`
	Pipelines []GraphPipeline `json:"pipelines"`
	Edges     []GraphEdge     `json:"edges"`
	// Tiers are what may run in parallel, tier by tier, by name; a
	// pipeline in a cycle is in none.
	Tiers    [][]string     `json:"tiers"`
	Findings []GraphFinding `json:"findings"`
	// Page is set on a page of the graph (GET /graph?limit=&offset=): a
	// graph larger than the server sends whole is read so.
	Page *GraphPage `json:"page,omitempty"`
	// Focus is set on a pipeline's neighbourhood (GraphFocus): which
	// pipeline, how far, and who is up and downstream of it.
	Focus *GraphFocusInfo `json:"focus,omitempty"`
}

// GraphFocusInfo says which neighbourhood a Graph is.
type GraphFocusInfo struct {
	Pipeline   string       `json:"pipeline"`
	Depth      int          `json:"depth"`
	Upstream   []GraphReach `json:"upstream"`
	Downstream []GraphReach `json:"downstream"`
}

// GraphReach is a pipeline some edges away.
type GraphReach struct {
	Pipeline string `json:"pipeline"`
	Distance int    `json:"distance"` // edges away
}

// GraphPage says which entries of the graph's lists a page holds.
type GraphPage struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  struct {
		Pipelines int `json:"pipelines"`
		Edges     int `json:"edges"`
		Findings  int `json:"findings"`
	} `json:"total"`
	// NextOffset is where the next page starts; nil on the last.
	NextOffset *int `json:"next_offset"`
}

// GraphPipeline is one pipeline (an app) of the graph.
type GraphPipeline struct {
	Name      string       `json:"name"`
	Path      string       `json:"path"`
	Declared  bool         `json:"declared"`
	Produces  []string     `json:"produces"`
	DependsOn []Dependency `json:"depends_on"`
}

// GraphEdge is one producer feeding one consumer.
type GraphEdge struct {
	Producer string `json:"producer"`
	Consumer string `json:"consumer"`
	Dataset  string `json:"dataset"`
	Pattern  string `json:"pattern"`
	Optional bool   `json:"optional"`
}

// GraphFinding is a finding about the graph.
type GraphFinding struct {
	Kind     string  `json:"kind"`
	Pipeline *string `json:"pipeline"`
	Dataset  *string `json:"dataset"`
	Detail   string  `json:"detail"`
}

// ReloadEvent is one reload as GET /events streams it.
type ReloadEvent struct {
	Seq         uint64          `json:"seq"`
	At          time.Time       `json:"at"`
	Outcome     string          `json:"outcome"` // activated, unchanged, rejected, failed or held
	OK          bool            `json:"ok"`
	Revision    *string         `json:"revision"` // the revision the reload examined
	Previous    *string         `json:"previous"` // the revision served before it
	DurationMS  float64         `json:"duration_ms"`
	UnitsReused int             `json:"units_reused"`
	UnitsBuilt  int             `json:"units_built"`
	Error       *string         `json:"error"`
	Findings    *ReloadFindings `json:"findings"`
	// ServedRevision is the revision served after the reload, whatever
	// it did (null while none is; absent from servers before it).
	ServedRevision *string `json:"served"`
	// Held are the apps served at their last good version, or not at
	// all, because their files fail the check (serve --isolate-apps).
	Held []HeldApp `json:"held"`
	// Persisted is the state directory's revision served in place of the
	// tree (serve --state-dir); nil otherwise.
	Persisted *PersistedRevision `json:"persisted"`
}

// HeldApp is an app held at its last good version; GET /status says why.
type HeldApp struct {
	App   string    `json:"app"`
	Since time.Time `json:"since"`
}

// PersistedRevision is a revision a state directory kept.
type PersistedRevision struct {
	Revision string    `json:"revision"`
	SavedAt  time.Time `json:"saved_at"`
}

// ReloadFindings counts a reload's findings by severity.
type ReloadFindings struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Served is the revision the server serves after the reload, as it says;
// from a server that does not say, the one it examined when that was
// activated or unchanged, else the one it kept.
func (e *ReloadEvent) Served() string {
	switch {
	case e.ServedRevision != nil:
		return *e.ServedRevision
	case e.OK && e.Revision != nil:
		return *e.Revision
	case e.Previous != nil:
		return *e.Previous
	}
	return ""
}

// ResolveRequest is what POST /resolve resolves: a dataset name against a
// governance document the caller sends, merged with an overlay, ownership
// names resolved against owners registries when given.
type ResolveRequest struct {
	// Document and Overlay are governance documents as YAML text.
	Document string `json:"document"`
	Overlay  string `json:"overlay,omitempty"`
	Dataset  string `json:"dataset"`
	// Owners are owners registry documents as YAML text, later ones
	// shadowing earlier ones.
	Owners []string `json:"owners,omitempty"`
	// Placeholders map ownership names to owner ids (needs Owners).
	Placeholders map[string]string `json:"placeholders,omitempty"`
	// Strict is the library's strict_owners: any ownership name of the
	// document that resolves to no owner fails the request (a *Problem of
	// type unresolved-owners). It needs Owners.
	Strict bool `json:"-"`
}

// ResolveResponse is the answer of POST /resolve.
type ResolveResponse struct {
	Dataset  string   `json:"dataset"`
	Match    Match    `json:"match"`
	Rule     Rule     `json:"rule"`
	Exposure Exposure `json:"exposure"`
	IsEmpty  bool     `json:"is_empty"`
	// UnresolvedOwners are the ownership names of the rule that resolve to
	// no owner (with Owners only).
	UnresolvedOwners []string `json:"unresolved_owners,omitempty"`
}

// Problem is an error answer of the server (RFC 9457), with the members
// governanced adds.
type Problem struct {
	Type      string   `json:"type"`
	Title     string   `json:"title"`
	Status    int      `json:"status"`
	Detail    string   `json:"detail,omitempty"`
	RequestID string   `json:"request_id,omitempty"`
	Revision  string   `json:"revision,omitempty"`
	Dataset   string   `json:"dataset,omitempty"`
	Pipeline  string   `json:"pipeline,omitempty"`
	Apps      []string `json:"apps,omitempty"`    // the apps claiming an ambiguous dataset
	Schemas   []string `json:"schemas,omitempty"` // the schema names that exist
	Key       string   `json:"key,omitempty"`
	File      string   `json:"file,omitempty"`
	Line      int      `json:"line,omitempty"`
	Column    int      `json:"column,omitempty"`
	Path      string   `json:"path,omitempty"`
	Class     string   `json:"class,omitempty"`
	Code      string   `json:"code,omitempty"`
	// Unresolved are the names strict owner resolution could not resolve.
	Unresolved []UnresolvedOwner `json:"unresolved,omitempty"`
	// RetryAfter is how long the server asks to wait before trying again
	// (429 and 503 answers), from the Retry-After header.
	RetryAfter time.Duration `json:"-"`
	// Raw is the whole problem as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// UnresolvedOwner is an ownership name that resolves to no owner, and the
// places (defaults, sources/<key>) that declare it.
type UnresolvedOwner struct {
	Name   string   `json:"name"`
	Places []string `json:"places"`
}

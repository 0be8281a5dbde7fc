package governance

import (
	"math"
	"slices"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// Field names one of a block's 18 grammar keys, or its extra mapping, in the
// canonical order a rule renders in (governance-format.md §13).
type Field uint8

const (
	FieldTitle Field = iota
	FieldDescription
	FieldExpose
	FieldLicense
	FieldAttribution
	FieldOwnership
	FieldAccessLevel
	FieldAccessRequirements
	FieldClassification
	FieldTags
	FieldRetentionDays
	FieldDocumentationURL
	FieldSourceSystem
	FieldRowFilters
	FieldUserFilterColumn
	FieldDcat
	FieldOntology
	FieldDataspace
	FieldExtra
	numFields
)

var fieldKeys = [numFields]string{
	"title", "description", "expose", "license", "attribution", "ownership",
	"access_level", "access_requirements", "classification", "tags", "retention_days",
	"documentation_url", "source_system", "row_filters", "user_filter_column",
	"dcat", "ontology", "dataspace", "extra",
}

// Key is the field's YAML key.
func (f Field) Key() string { return fieldKeys[f] }

// KnownKeys are the block keys the grammar defines (the reference's KNOWN_KEYS).
// Every other key of a block lands in Rule.Extra.
var KnownKeys = func() map[string]Field {
	m := make(map[string]Field, FieldExtra)
	for f := Field(0); f < FieldExtra; f++ {
		m[f.Key()] = f
	}
	return m
}()

// FieldSet records which fields a file stated.
type FieldSet uint32

func (s FieldSet) Has(f Field) bool { return s&(1<<f) != 0 }
func (s *FieldSet) add(f Field)     { *s |= 1 << f }

// Origin says where a field's value was written: which layer (file) and where
// in it. Rule.Origin answers it for each stated field, for the errors and
// warnings that name a field's place.
type Origin struct {
	Layer  *Layer
	Line   int32
	Column int32
}

// position is an Origin as a rule stores it: the layer as a slot in the
// rule's own layer list, so that the positions hold no pointer. A pointer
// per field would make the collector scan most of every rule and look up
// the same few layers over and over, on every cycle, for as long as a
// large tree is served: time a serving process takes from its requests
// (BenchmarkCollectGenerated in internal/snapshot measures a cycle).
type position struct {
	Line   int32
	Column int32
	field  Field
	layer  uint8 // 0: no layer (a field no file stated); else a slot of the rule's layers, from 1
}

// layerList is the layers a rule's positions name, by slot. Rules share
// one: every rule a document block gives names the same layer, and a list
// is never changed once a rule holds it (layerSlot makes a new one).
type layerList []*Layer

// Layer is one part of one file contributing to a rule: a document's
// defaults or its sources blocks, in a base document or an overlay. Parsing
// a document gives it two layers, one for each.
type Layer struct {
	File string
	Kind string // "base" or "overlay"
	// Name is the layer as provenance names it: LayerDefaults, LayerSource,
	// LayerOverlayDefaults or LayerOverlaySource.
	Name string
}

// Layer names, as provenance reports them (http-api.md, explain=true). A
// block parsed on its own (ParseRule) is a base source block.
const (
	LayerDefaults        = "defaults"
	LayerSource          = "source"
	LayerOverlayDefaults = "overlay.defaults"
	LayerOverlaySource   = "overlay.source"
)

// newLayers are the two layers of one document: its defaults and its
// sources blocks.
func newLayers(file string, overlay bool) (defaults, source *Layer) {
	if overlay {
		return &Layer{File: file, Kind: "overlay", Name: LayerOverlayDefaults}, &Layer{File: file, Kind: "overlay", Name: LayerOverlaySource}
	}
	return &Layer{File: file, Kind: "base", Name: LayerDefaults}, &Layer{File: file, Kind: "base", Name: LayerSource}
}

// Rule is one governance block: the defaults, one sources entry, or the result
// of merging blocks. Pointer fields are nil for none (null); whether a field was
// stated at all is in Set, because an explicit null or false is a statement
// that silence is not.
//
// The title and description are read through methods of the same names
// (ok false for none): a rule holds where they are in its document's
// texts, copied together when the document is parsed, rather than a
// string and a pointer to it of their own (ADR-0022).
//
// The fields a source block seldom states (attribution, access
// requirements, retention, documentation URL, source system, row filters,
// user filter column, ontology, extra keys) are read through methods of the
// same names: they live in a block of their own (rareFields) that a rule
// stating none of them does not have, and that the rules of a tree stating
// the same values share. A tree holds a rule per sources key: in the rule
// itself, they would take 104 of its bytes; apart, and with expose a byte,
// the places a string and the tags and the ownership shared lists'
// pointers, a rule takes 112, a size class of its own (ADR-0020,
// TestRuleSize).
//
// A rule is never changed once made: rules share their values, and their
// rare block, with other rules (see values), and MergeRules and every
// reader build new values instead.
type Rule struct {
	License        *string
	AccessLevel    *string
	Classification *string
	Dcat           *Dcat      // nil when none
	Dataspace      *Dataspace // nil when none

	rare *rareFields // nil when the rule states none of them

	// tags, read through Tags: the list the values share, by the pointer
	// they share it by, a word where the list would be three in every
	// rule (ADR-0020).
	tags *[]string
	// ownership, read through Ownership: likewise the shared list's
	// pointer.
	ownership *[]Owner

	// The title and description, read through methods of their names:
	// where each starts in its block's strings, which the rules of a
	// document share (see textBlock).
	texts              *textBlock
	title, description textRef

	// The layers the stated fields came from, in the order first met,
	// shared with other rules and so replaced, never changed; where the
	// stated fields and the paths below them were written (see places).
	// Keeping the positions of the stated fields only, compactly, and the
	// layers in a shared list, keeps a rule small and its places at five
	// bytes a field: a tree holds one rule per sources key.
	layers *layerList
	places places

	Set FieldSet
	// Expose, Unset when not stated, falls back to dataspace.expose. A
	// byte beside Set: a *bool would be a word more for the collector to
	// scan in every rule (ADR-0020).
	Expose OptBool
}

// OptBool is a boolean a block may leave unstated, in one byte: a rule
// holds its expose so, rather than as a *bool.
type OptBool uint8

// The three states of an OptBool.
const (
	Unset OptBool = iota
	False
	True
)

// OptBoolOf is x, stated.
func OptBoolOf(x bool) OptBool {
	if x {
		return True
	}
	return False
}

// Stated reports whether the block states the value.
func (b OptBool) Stated() bool { return b != Unset }

// Value is the value stated; false when none is.
func (b OptBool) Value() bool { return b == True }

// rareFields are the fields of a rule that most source blocks do not
// state, apart from the rule so that a rule without them pays one pointer
// for all of them (see Rule). A block is never changed once a rule holds
// it: the rules parsed with one values table share a block by content
// (values.sameRare), and a merge of two rules that both have one holds
// its own (MergeRules).
type rareFields struct {
	attribution        *string
	accessRequirements *string
	retentionDays      *int64
	documentationURL   *string
	sourceSystem       *string
	rowFilters         []RowFilter
	userFilterColumn   *string
	ontology           *Ontology
	extra              []ExtraField
}

// noRareFields is the block of a rule that has none.
var noRareFields rareFields

// rareBlock is the rule's block of rare fields, empty when it has none;
// a reader's, never to be written.
func (r *Rule) rareBlock() *rareFields {
	if r.rare == nil {
		return &noRareFields
	}
	return r.rare
}

// rareFieldSet are the fields a rule keeps in its rareFields.
const rareFieldSet = FieldSet(1<<FieldAttribution | 1<<FieldAccessRequirements | 1<<FieldRetentionDays |
	1<<FieldDocumentationURL | 1<<FieldSourceSystem | 1<<FieldRowFilters | 1<<FieldUserFilterColumn |
	1<<FieldOntology | 1<<FieldExtra)

// Attribution is the attribution; nil for none.
func (r *Rule) Attribution() *string { return r.rareBlock().attribution }

// AccessRequirements is the access requirements; nil for none.
func (r *Rule) AccessRequirements() *string { return r.rareBlock().accessRequirements }

// RetentionDays is the retention in days; nil for none.
func (r *Rule) RetentionDays() *int64 { return r.rareBlock().retentionDays }

// DocumentationURL is the documentation URL; nil for none.
func (r *Rule) DocumentationURL() *string { return r.rareBlock().documentationURL }

// SourceSystem is the source system; nil for none.
func (r *Rule) SourceSystem() *string { return r.rareBlock().sourceSystem }

// Tags are the tags, shared with other rules: never to be written.
func (r *Rule) Tags() []string { return listOf(r.tags) }

// Ownership is the ownership list, shared with other rules: never to be
// written.
func (r *Rule) Ownership() []Owner {
	if r.ownership == nil {
		return nil
	}
	return *r.ownership
}

// OwnershipList is the pointer r holds its ownership list by, shared with
// the rules stating the same list (nil for none): what WithOwnership takes.
func (r *Rule) OwnershipList() *[]Owner { return r.ownership }

// WithOwnership is a copy of r whose ownership list is the one l points
// to (nil for none): what resolving r's owner names makes of it. l is
// held, not copied, and must not be written once given.
func (r *Rule) WithOwnership(l *[]Owner) *Rule {
	out := *r
	out.ownership = l
	return &out
}

// RowFilters are the row_filters entries.
func (r *Rule) RowFilters() []RowFilter { return r.rareBlock().rowFilters }

// UserFilterColumn is the legacy user filter column; nil for none.
func (r *Rule) UserFilterColumn() *string { return r.rareBlock().userFilterColumn }

// Ontology is the ontology block; nil when none.
func (r *Rule) Ontology() *Ontology { return r.rareBlock().ontology }

// Extra are the block keys outside the grammar, in document order.
func (r *Rule) Extra() []ExtraField { return r.rareBlock().extra }

// Origin is where field f's value was written; its Layer is nil when no file
// stated f.
func (r *Rule) Origin(f Field) Origin {
	p := r.pos(f)
	return Origin{Layer: r.layerAt(p.layer), Line: p.Line, Column: p.Column}
}

// pos is field f's position; the zero position when none is recorded.
func (r *Rule) pos(f Field) position {
	for b := r.readPlaces(); b.more(); {
		e, g, isField := b.next()
		if !isField || g > f {
			break
		}
		if g == f {
			return position{Line: e.Line, Column: e.Column, field: f, layer: e.layer}
		}
	}
	return position{}
}

// withPosition puts p in ps, ordered by field, replacing the field's.
func withPosition(ps []position, p position) []position {
	i, found := slices.BinarySearchFunc(ps, p.field, func(q position, f Field) int { return int(q.field) - int(f) })
	if found {
		ps[i] = p
		return ps
	}
	return slices.Insert(ps, i, p)
}

func (r *Rule) layerAt(slot uint8) *Layer {
	if slot == 0 {
		return nil
	}
	return (*r.layers)[slot-1]
}

// layerSlot is l's slot in r, taking a new one when l is not there yet. A
// list with room to spare is the rule's own (MergeRules gives its result
// one) and grows in place; a full one may be shared, and is replaced.
func (r *Rule) layerSlot(l *Layer) uint8 {
	if l == nil {
		return 0
	}
	var have layerList
	if r.layers != nil {
		have = *r.layers
	}
	if i := slices.Index(have, l); i >= 0 {
		return uint8(i + 1)
	}
	if len(have) >= math.MaxUint8 {
		// Every merge adds at most the layers of its override, and a tree
		// merges a base with one overlay: this is a caller merging in a loop.
		panic("governance: a rule merged from more than 255 layers")
	}
	if len(have) < cap(have) {
		*r.layers = append(have, l)
	} else {
		more := append(have, l)
		r.layers = &more
	}
	return uint8(len(have) + 1)
}

// RowFilter is one row_filters entry, kept as what its consumers read: its
// JSON rendering (the rule body and the facet show an entry as loaded) and
// its handler. As YAML nodes, the entries of a large tree would take many
// times the heap the text takes.
type RowFilter struct {
	JSON    string // the entry as JSON, keys in document order
	Handler string // the value of its handler key when that is a string, else ""
}

// Owner is one entry of ownership. Name is a lookup key into an owners registry.
type Owner struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ExtraField is a block key outside the grammar, kept with its value as loaded.
type ExtraField struct {
	Key   string
	Value *yaml11.Node
}

// Dcat is catalogue (DCAT-AP) metadata.
type Dcat struct {
	PublisherURI       *string
	Themes             []string
	LanguageURIs       []string
	SpatialURIs        []string
	AccrualPeriodicity *string
	ConformsTo         *string
	Temporal           *Temporal
	Set                DcatSet
}

// DcatField names a dcat key, in rendering order.
type DcatField uint8

const (
	DcatPublisherURI DcatField = iota
	DcatThemes
	DcatLanguageURIs
	DcatSpatialURIs
	DcatAccrualPeriodicity
	DcatConformsTo
	DcatTemporal
	numDcatFields
)

var dcatKeys = [numDcatFields]string{"publisher_uri", "themes", "language_uris", "spatial_uris", "accrual_periodicity", "conforms_to", "temporal"}

// DcatSet records which dcat fields a file stated.
type DcatSet uint8

func (s DcatSet) Has(f DcatField) bool { return s&(1<<f) != 0 }

// Temporal is dcat.temporal.
type Temporal struct {
	Start, End       *string
	StartSet, EndSet bool
}

// Ontology names the mapping spec that says what the columns mean.
type Ontology struct {
	Spec, SpecFile       *string
	SpecSet, SpecFileSet bool
}

// Dataspace is the dataspace offer and its ODRL hints.
type Dataspace struct {
	Medallion        *string
	ContractRequired bool
	ConsentRequired  bool
	OdrlAction       string // "use" when unset
	Purpose          []string
	Expose           bool
	Set              DataspaceSet
}

// DataspaceField names a dataspace key, in rendering order.
type DataspaceField uint8

const (
	DSMedallion DataspaceField = iota
	DSContractRequired
	DSConsentRequired
	DSOdrlAction
	DSPurpose
	DSExpose
	numDSFields
)

var dataspaceKeys = [numDSFields]string{"medallion", "contract_required", "consent_required", "odrl_action", "purpose", "expose"}

// DataspaceSet records which dataspace fields a file stated.
type DataspaceSet uint8

func (s DataspaceSet) Has(f DataspaceField) bool { return s&(1<<f) != 0 }

// Dependency is one depends_on entry.
type Dependency struct {
	Dataset     string  `json:"dataset"`
	External    bool    `json:"external"`
	Optional    bool    `json:"optional"`
	Description *string `json:"description"`
}

// Source is one sources entry: a dataset name or glob, and its block. A
// tree holds one per dataset key, so the file that declared it is its
// configuration's (Config.SourceFile), and its position is held in int32s
// (a document is far shorter than 2³¹ lines).
type Source struct {
	Key          string
	Rule         *Rule
	Line, Column int32 // of the key, in the file that declared it
}

// Pos is where the key is written, in the file that declared it.
func (s *Source) Pos() yaml11.Pos { return yaml11.Pos{Line: int(s.Line), Column: int(s.Column)} }

// Config is one governance document, or the merge of a base and an overlay.
//
// Its flags are side by side so that a Config takes 144 bytes: at 160 it
// shared its size class with the YAML reader's nodes, which fill that
// class while a tree is read, and each Config a unit keeps held a span of
// freed nodes for as long as it was served (ADR-0027).
type Config struct {
	Active       bool
	ActiveSet    bool
	DependsOnSet bool
	Defaults     *Rule
	DependsOn    []Dependency // nil with DependsOnSet false: not declared
	Sources      []Source

	// Files are the documents this configuration was built from, base first.
	Files []string
	// sourceFiles say which of Files declared each source when there are
	// several: from sourceFiles[k].from on, Files[sourceFiles[k].file].
	sourceFiles []sourceRun

	Warnings []Warning // things that loaded but deserve a look: duplicate keys, ignored keys

	index *index
}

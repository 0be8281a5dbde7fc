package check

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// UnitResult is what checking one unit found and built.
type UnitResult struct {
	// Findings are every finding about the unit's files and what it serves,
	// in no particular order: the report sorts and collapses them.
	Findings []Finding
	// Overlay is the display path of the overlay paired with the base; ""
	// for none or for several in conflict.
	Overlay string
	// Config is the base merged with its overlay (the resolver's merge),
	// ownership names resolved against the registry (leniently: a name that
	// resolves to nothing is kept as written, and reported only on dataspace
	// offers). Nil when the base or its overlay has an error finding, or two
	// overlays claim the base (semantic-skipped): the unit is not served.
	Config *governance.Config
	// Base is the base alone as the check parsed it: before its overlay is
	// merged and owner names are resolved. Nil exactly when Config is. What
	// reads the base files only (the dependency graph, graph.md) reads it
	// rather than parse the bytes a second time.
	Base *governance.Config
	// Datasets counts the served source keys, Offers the dataspace offers
	// among them.
	Datasets, Offers int
	// OwnersAsked are the owner ids the unit asked the registry about, in
	// the order first asked: the unit's result depends on the registry only
	// through the answers to these.
	OwnersAsked []string
	// Sources counts the sources keys of the unit's documents, Values the
	// YAML values they hold (yaml11.Document.Values): what checking the
	// unit cost, for a caller that bounds a check (Budget).
	Sources, Values int
	// Served is, for each source of Config in order, what the rule it
	// serves (the source merged over the defaults) says of its exposure
	// and levels, as the check's rules read it: a server indexing the
	// unit takes it rather than merge every rule again. Nil when Config is.
	Served []ServedRule
	// Offered are the positions in Config.Sources of the dataspace offers
	// (Offers of them), whose ownership names the registry is asked about.
	Offered []int32
	// Rewritten are the rules of Config whose ownership names resolution
	// rewrote, with their lists as written: Config with each list put back
	// is the unit as its files say, which ResolveOwners resolves again.
	// Resolution changes nothing else of a rule, so only the lists are
	// kept, and those are shared between the rules stating them. In
	// position order, the defaults (-1) first.
	Rewritten []WrittenOwnership
}

// WrittenOwnership is the ownership list of a rule of a configuration as
// its files say it, before its names were resolved.
// A unit keeps one for every rule whose owner names are aliases: the
// list is held by the pointer the rules share it by (Rule.OwnershipList).
type WrittenOwnership struct {
	Source    int32 // the position in Config.Sources; -1 for the defaults
	Ownership *[]governance.Owner
}

// ServedRule is what a served rule says of its exposure and levels: the
// parts of a merged rule a server keeps for every dataset.
type ServedRule struct {
	Expose          bool // governance.EffectiveExpose
	DataspaceExpose bool // governance.DataspaceExpose
	// Conflict is governance.ExposureConflict's sentence, or "".
	Conflict string
	// Classification and AccessLevel are the rule's values as written,
	// nil when it states none.
	Classification, AccessLevel *string
}

// CheckUnit checks one unit as it will be served (check.md §5–§9): each of
// its files alone, then the base merged with its overlay and the rules that
// read the merged result, and materialises what is served. It reads nothing
// but u, so equal units give equal results.
func CheckUnit(u *Unit) UnitResult {
	c := newUnitChecker(u.Env)
	defer c.done()
	if u.Env.Owners != nil {
		c.owners = &ownersView{registry: u.Env.Owners}
	}
	base := c.load(u.Base, schemas.Governance, false)
	overlays := make([]*loadedFile, len(u.Overlays))
	for i, o := range u.Overlays {
		overlays[i] = c.load(o, schemas.GovernanceOverlay, true)
	}
	res := UnitResult{}
	if len(u.Overlays) == 1 {
		res.Overlay = u.Overlays[0].Display
	}
	if len(u.Overlays) > 1 {
		names := make([]string, len(u.Overlays))
		for i, o := range u.Overlays {
			names[i] = o.Display
		}
		slices.Sort(names)
		c.add(Finding{Severity: Error, Code: CodeOverlayConflict, File: u.Base.Display, Subject: str(u.App),
			Message: fmt.Sprintf("%d overlays apply to this base (%s): refused rather than merged in an order nobody chose", len(u.Overlays), strings.Join(names, ", "))})
	}
	if merged, baseCfg := c.unit(base, overlays); merged != nil {
		res.Base, res.Served, res.Offered = baseCfg, c.served, c.offered
		res.Config, res.Rewritten = c.resolve(merged)
	} else {
		c.add(Finding{Severity: Info, Code: CodeSemanticSkipped, File: u.Base.Display,
			Message: "the rules that read the served (merged) result were not run for this unit: fix its errors first"})
	}
	res.Findings, res.Datasets, res.Offers = c.findings, c.datasets, c.offers
	res.Sources, res.Values = c.sources, c.values
	if c.owners != nil {
		res.OwnersAsked = c.owners.asked
	}
	return res
}

// CheckOverlay checks an overlay no base takes, alone (check.md §5, §6).
func CheckOverlay(f File) []Finding {
	findings, _, _ := checkOverlay(f)
	return findings
}

// checkOverlay is CheckOverlay with what the check cost (UnitResult).
func checkOverlay(f File) (findings []Finding, sources, values int) {
	c := newUnitChecker(Env{})
	defer c.done()
	c.load(f, schemas.GovernanceOverlay, true)
	return c.findings, c.sources, c.values
}

// unitChecker collects what one unit's check finds.
type unitChecker struct {
	// arena holds the unit's documents as read (yaml11.Node trees), which
	// nothing the check returns refers to (the parsed configuration keeps
	// copies of the few nodes it holds: governance.ExtraField): a check of
	// many units reads each into the memory of the one before.
	arena    *yaml11.Arena
	env      Env
	owners   *ownersView // nil without a registry
	findings []Finding
	datasets int
	offers   int
	sources  int // sources keys of the documents loaded
	values   int // YAML values of the documents loaded
	served   []ServedRule
	offered  []int32
}

func (c *unitChecker) add(f Finding) { c.findings = append(c.findings, f) }

// arenas are the arenas of the units being checked and of those done.
var arenas = sync.Pool{New: func() any { return new(yaml11.Arena) }}

func newUnitChecker(env Env) *unitChecker {
	return &unitChecker{env: env, arena: arenas.Get().(*yaml11.Arena)}
}

// done gives the unit's arena back: nothing may read its documents after.
func (c *unitChecker) done() {
	c.arena.Reset()
	arenas.Put(c.arena)
	c.arena = nil
}

// loadedFile is a governance document as the unit's check loaded it.
type loadedFile struct {
	display  string
	overlay  bool
	root     *yaml11.Node // nil when the file did not load
	hasError bool         // an error finding of §5 or §6: the file is not served
}

// load reads one base or overlay and applies the document rules (check.md
// §5, §6). Any error finding marks the file as not servable.
func (c *unitChecker) load(f File, schema string, overlay bool) *loadedFile {
	lf := &loadedFile{display: f.Display, overlay: overlay}
	fail := func(fd Finding) {
		if fd.Severity == Error {
			lf.hasError = true
		}
		c.add(fd)
	}
	err := f.Err
	if f.Deferred {
		err = ErrDeferred
	}
	l, values := parseYAML(f.Data, err, f.Display, fail, c.arena)
	c.values += values
	if l == nil {
		lf.hasError = true
		return lf
	}
	if src := l.root.Get("sources"); src != nil && src.Kind == yaml11.Map {
		c.sources += len(src.Pairs)
	}
	lf.root = l.root
	documentRules(l, f.Display, schema, fail)
	return lf
}

// unit pairs, parses and merges a loaded unit and runs the rules that read
// the merged result, and returns it, ownership names as written, with the
// base as parsed alone; nil when it is skipped (check.md §4.2).
func (c *unitChecker) unit(base *loadedFile, overlays []*loadedFile) (cfg, baseCfg *governance.Config) {
	if base.hasError || len(overlays) > 1 || len(overlays) == 1 && overlays[0].hasError {
		return nil, nil
	}
	var ov *loadedFile
	if len(overlays) == 1 {
		ov = overlays[0]
	}
	baseCfg = c.parse(base)
	var ovCfg *governance.Config
	if ov != nil {
		ovCfg = c.parse(ov)
	}
	if baseCfg == nil || ov != nil && ovCfg == nil {
		return nil, nil
	}
	cfg = mergeOverlay(baseCfg, ovCfg)
	c.unitRules(&unitView{base: base, overlay: ov, baseCfg: baseCfg, overlayCfg: ovCfg, cfg: cfg})
	return cfg, baseCfg
}

// Materialise is what a base and its overlay (nil for none), as parsed,
// serve: the overlay merged over the base (the resolver's merge), then
// ownership names resolved against registry (nil for none) with the
// placeholder map. CheckUnit takes these two steps for every unit a tree
// serves, with the rules that read the merged result between them; POST
// /resolve takes them for the documents it is sent.
func Materialise(base, overlay *governance.Config, registry owners.Lookup, placeholders map[string]string) *governance.Config {
	return resolveOwnership(mergeOverlay(base, overlay), registry, placeholders)
}

// mergeOverlay is base with overlay merged over it, base for no overlay.
func mergeOverlay(base, overlay *governance.Config) *governance.Config {
	if overlay == nil {
		return base
	}
	return governance.MergeConfigs(base, overlay)
}

// resolveOwnership resolves cfg's ownership names after the merge, never
// per file, and leniently: which names must resolve is the check's rule
// (dataspace offers only); a catalogue attribution stays as written.
func resolveOwnership(cfg *governance.Config, registry owners.Lookup, placeholders map[string]string) *governance.Config {
	if registry == nil {
		return cfg
	}
	if resolved, _, err := owners.ResolveConfigOwnership(cfg, registry, false, placeholders); err == nil {
		return resolved
	}
	return cfg
}

// parse reads a loaded document into the rule model.
func (c *unitChecker) parse(f *loadedFile) *governance.Config {
	cfg, err := c.env.Values.ParseDocument(f.root, f.display, f.overlay)
	if err != nil {
		// The document rules are meant to catch everything the parser
		// refuses; should one slip through it is still a loud failure,
		// never a skip.
		fd := Finding{Severity: Error, Code: CodeLoadError, File: f.display, Message: err.Error()}
		if ge, ok := err.(*governance.Error); ok {
			fd.Line, fd.Column, fd.Message = ge.Line, ge.Column, ge.Msg
			if ge.Path != "" {
				fd.Message = ge.Path + ": " + ge.Msg
			}
		}
		c.add(fd)
		return nil
	}
	return cfg
}

// ownersView is the registry as one unit sees it: every id it asks for is
// noted, so that a caller can tell whether a changed registry answers this
// unit as before. An answer is what the entry says (Entry.Unplaced), not
// where it says it: the view hands out the unplaced copy, so a unit cannot
// read the position a comparison of answers would leave out. An id asked
// twice is noted once.
type ownersView struct {
	registry OwnerLookup
	asked    []string
	answers  map[string]*owners.Entry // nil for an id the registry does not know
}

func (v *ownersView) ByID(key string) *owners.Entry {
	if e, ok := v.answers[key]; ok {
		return e
	}
	if v.answers == nil {
		v.answers = map[string]*owners.Entry{}
	}
	var e *owners.Entry
	if shared, ok := v.registry.(*unplacedOwners); ok {
		e = shared.ByID(key)
	} else if found := v.registry.ByID(key); found != nil {
		e = found.Unplaced()
	}
	v.answers[key] = e
	v.asked = append(v.asked, key)
	return e
}

// unplacedOwners is a registry whose answers are the unplaced copies
// (Entry.Unplaced) of its entries, each made once, when first asked, and
// handed to every unit that asks: the units of a plan share a registry
// and mostly ask after the same owners.
type unplacedOwners struct {
	registry OwnerLookup
	mu       sync.Mutex
	answers  map[string]*owners.Entry // nil for an id the registry does not know
}

func (u *unplacedOwners) ByID(id string) *owners.Entry {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.answers[id]
	if ok {
		return e
	}
	if found := u.registry.ByID(id); found != nil {
		e = found.Unplaced()
	}
	if u.answers == nil {
		u.answers = map[string]*owners.Entry{}
	}
	u.answers[id] = e
	return e
}

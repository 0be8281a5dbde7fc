package snapshot

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/keyindex"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/search"
)

// Snapshot is one revision of the served tree. It is never modified after Build
// returns, so any number of requests may read it without locking.
type Snapshot struct {
	Revision string      // "sha256:" + the hash of every input byte and option
	LoadedAt time.Time   // when this revision was built
	Inputs   []InputFile // every input file and its hash, by path
	Owners   *owners.Registry
	Counts   Counts

	report *check.Report
	// sarifBases place the report's files in its SARIF rendering: the
	// tree's relative to %SRCROOT%, the repository it is a checkout of.
	sarifBases *check.SARIFBases
	ownedIx    ownedIndex
	// How many units this revision took from the one before, and how many
	// it built afresh.
	counts reuseCounts
	// tree is what it was built from, as files under their served names,
	// and source where its reading can read them again (tree.go).
	tree   InputTree
	source inputSource

	placeholders   map[string]string // the placeholder map names were resolved with
	unresolvedOnce sync.Once
	unresolved     []UnresolvedOwner

	apps     []*App  // by name
	appStart []int32 // apps[i]'s first dataset in the listing order (dataset)
	appIndex map[string]*App
	// keys indexes every sources key of every app by its position in the
	// listing order (apps by name, keys in sources order; dataset): the
	// apps' own indexes joined, their compiled globs shared.
	keys *keyindex.Index
	etag string // the revision as a strong entity tag, quoted
	// The revision and the entity tag as one-element lists, the shape response
	// metadata takes, built once so no request allocates them.
	revisionValues, etagValues []string

	// The dependency graph (graph.go): of the base files, built with the
	// snapshot, and of the served configurations, built when first asked
	// for from the apps in unit order.
	graph       *servedGraph
	mergedOnce  sync.Once
	mergedGraph *servedGraph
	unitOrder   []*App
}

// Counts are the sizes /status and /metrics report.
type Counts struct {
	Apps     int `json:"apps"`
	Sources  int `json:"sources"`  // every sources key
	Datasets int `json:"datasets"` // literal keys
	Patterns int `json:"patterns"` // glob keys
	Owners   int `json:"owners"`
}

// App is one materialised unit: a base merged with its overlay, ownership
// names resolved.
type App struct {
	Name        string
	File        string // the base's display path
	OverlayFile string // the overlay's display path, "" without one
	Config      *governance.Config

	// datasets are one per sources key, in sources order, and last the
	// app's defaults (what a name matching no key resolves to): one array,
	// so that a dataset costs no pointer of its own.
	datasets []Dataset
	// memos are the datasets' kept parts (Memo), by position in
	// datasets: made when the first of them is asked for, so an app none
	// of whose datasets is read holds none.
	memos  atomic.Pointer[memoTable]
	search *search.Index
}

// DatasetCount is how many sources keys a declares.
func (a *App) DatasetCount() int { return len(a.datasets) - 1 }

// Datasets are a's datasets, one per sources key in sources order, as a
// list made on each call.
func (a *App) Datasets() []*Dataset {
	out := make([]*Dataset, a.DatasetCount())
	for i := range out {
		out[i] = a.Dataset(i)
	}
	return out
}

// Dataset is the dataset of a's i-th sources key.
func (a *App) Dataset(i int) *Dataset { return &a.datasets[:len(a.datasets)-1][i] }

// Dataset is one sources key and the rule it resolves to, with everything a
// response about it needs worked out once. A tree holds one per sources
// key, so it keeps nothing its app's configuration holds already (its key
// is the configuration's, ID) and nothing most datasets never have (its
// kept part is in its app's table, Memo).
type Dataset struct {
	App *App

	// The merged rule is not kept: kept for every dataset it would be a large
	// part of the snapshot's heap, and only the bodies, the facet and the
	// policy gate read it. Rule() merges it again, which is cheap; the listing
	// filters read its classification and access level from the two rules
	// it is merged from (stated), and hasTag.

	pos             int32 // position in the app's sources; -1 for the defaults
	Pattern         bool  // a glob key
	Expose          bool
	DataspaceExpose bool
	conflict        bool // the rule's exposure conflicts (Conflict)
}

// ID is the sources key exactly as written; "" for an app's defaults.
func (d *Dataset) ID() string {
	if d.pos < 0 {
		return ""
	}
	return d.App.Config.Sources[d.pos].Key
}

// Conflict is governance.ConflictSentence when the rule's exposure
// conflicts (governance.ExposureConflict), else "".
func (d *Dataset) Conflict() string {
	if d.conflict {
		return governance.ConflictSentence
	}
	return ""
}

// Errors of lookups; the HTTP layer maps them to status codes.
var (
	ErrUnknownApp     = errors.New("no such app")
	ErrNoMatch        = errors.New("no app declares or matches the dataset")
	ErrUnknownOwner   = errors.New("no owner has that id or alias")
	ErrStaleCursor    = errors.New("the cursor belongs to another revision of the tree")
	ErrInvalidCursor  = errors.New("the cursor is not one this server issued")
	errNothingToServe = errors.New("the check materialised no unit")
)

// AmbiguousError is a name that several apps claim equally: as a literal key in
// more than one app, or through globs of the same length in different apps.
type AmbiguousError struct {
	Dataset string
	Apps    []string // sorted
	Glob    bool     // the tie is between globs
}

func (e *AmbiguousError) Error() string {
	if e.Glob {
		return fmt.Sprintf("%s matches globs of equal length in several apps (%s)", e.Dataset, strings.Join(e.Apps, ", "))
	}
	return fmt.Sprintf("%s is declared by several apps (%s)", e.Dataset, strings.Join(e.Apps, ", "))
}

// assemble puts a snapshot together from a passed check and the apps built
// from its units, in unit order, with each app's pipeline as its base file
// says it (g.nodes[i] is apps[i]'s): the global index and the dependency
// graph are built here.
func assemble(revision string, files []InputFile, rep *check.Report, registry *owners.Registry, placeholders map[string]string, apps []*App, g graphInputs, prev *Snapshot, now time.Time) (*Snapshot, error) {
	s := &Snapshot{
		Revision:  revision,
		LoadedAt:  now,
		Inputs:    files,
		report:    rep,
		Owners:    registry,
		appIndex:  map[string]*App{},
		unitOrder: apps,

		placeholders: placeholders,
	}
	if s.Owners == nil {
		s.Owners = owners.Build(nil)
	}
	s.etag = `"` + strings.TrimPrefix(revision, "sha256:") + `"`
	s.revisionValues, s.etagValues = []string{revision}, []string{s.etag}
	total := 0
	for _, a := range apps {
		if prev, dup := s.appIndex[a.Name]; dup {
			// Two trees holding the same app name would make /apps/{app}
			// ambiguous; refusing is better than serving one of them silently.
			return nil, fmt.Errorf("app %q is served twice: %s and %s", a.Name, prev.File, a.File)
		}
		s.apps = append(s.apps, a)
		s.appIndex[a.Name] = a
		total += a.DatasetCount()
	}
	if len(s.apps) == 0 {
		return nil, errNothingToServe
	}
	slices.SortFunc(s.apps, func(a, b *App) int { return strings.Compare(a.Name, b.Name) })
	appKeys := make([]*keyindex.Index, len(s.apps))
	s.appStart = make([]int32, len(s.apps))
	start := 0
	for i, a := range s.apps {
		s.appStart[i] = int32(start)
		start += a.DatasetCount()
		appKeys[i] = a.Config.Keys()
		for j := range a.DatasetCount() {
			if a.Dataset(j).Pattern {
				s.Counts.Patterns++
			} else {
				s.Counts.Datasets++
			}
		}
	}
	if prev != nil && sameKeys(prev.apps, appKeys) {
		// Every app's keys as before (a reload of the owners registry
		// alone): the same index, its file globs already made.
		s.keys = prev.keys
	} else {
		// The globs filed before the snapshot is served, not on its
		// first read; those of the apps whose keys are the previous
		// snapshot's keep their filing.
		var prevJoin *keyindex.Index
		var prevKeys []*keyindex.Index
		if prev != nil {
			prevJoin = prev.keys
			for _, a := range prev.apps {
				prevKeys = append(prevKeys, a.Config.Keys())
			}
		}
		s.keys = keyindex.JoinAfter(prevJoin, prevKeys, appKeys)
	}
	// After the check that no name is served twice: the graph's names
	// must be unique.
	s.graph = newServedGraph(g, false)
	s.Counts.Apps = len(s.apps)
	s.Counts.Sources = total
	s.Counts.Owners = s.Owners.Len()
	return s, nil
}

// sameKeys reports whether keys are the key indexes of apps, in order:
// the joined index of apps is then one of keys too.
func sameKeys(apps []*App, keys []*keyindex.Index) bool {
	if len(apps) != len(keys) {
		return false
	}
	for i, a := range apps {
		if a.Config.Keys() != keys[i] {
			return false
		}
	}
	return true
}

func initDataset(d *Dataset, a *App, pos int, rule check.ServedRule, pattern bool) {
	*d = Dataset{
		App:             a,
		Pattern:         pattern,
		pos:             int32(pos),
		Expose:          rule.Expose,
		DataspaceExpose: rule.DataspaceExpose,
		conflict:        rule.Conflict != "",
	}
}

// AccessLevel and Classification are the served rule's values as written
// (secret stays secret); "" when the rule states none.
func (d *Dataset) AccessLevel() string    { return deref(d.accessLevel()) }
func (d *Dataset) Classification() string { return deref(d.classification()) }

func (d *Dataset) accessLevel() *string {
	return d.stated(governance.FieldAccessLevel, func(r *governance.Rule) *string { return r.AccessLevel })
}

func (d *Dataset) classification() *string {
	return d.stated(governance.FieldClassification, func(r *governance.Rule) *string { return r.Classification })
}

// stated is a string field of the rule d serves, read from the two rules
// it is merged from as governance.MergeRules takes it: the source's when
// the source states the field, else the defaults'. A dataset keeps no
// copy of it: the app's configuration holds both rules anyway.
func (d *Dataset) stated(f governance.Field, get func(*governance.Rule) *string) *string {
	cfg := d.App.Config
	if d.pos >= 0 {
		if r := cfg.Sources[d.pos].Rule; r.Set.Has(f) {
			return get(r)
		}
	}
	return get(cfg.Defaults)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Defaults is what a name matching none of a's keys resolves to inside a:
// the app's defaults alone.
func (a *App) Defaults() *Dataset { return &a.datasets[len(a.datasets)-1] }

// Rule is the rule d resolves to: its sources entry merged over the app's
// defaults, or the defaults alone. Each call merges afresh; treat the result
// as read-only, as it may share parts with the app's configuration.
func (d *Dataset) Rule() *governance.Rule { return d.merged(governance.MergeRules) }

// Title is the title of d's rule (Rule), read without merging.
func (d *Dataset) Title() (title string, ok bool) { return governance.MergedTitle(d.sides()) }

// Description is the description of d's rule (Rule), read without
// merging.
func (d *Dataset) Description() (description string, ok bool) {
	return governance.MergedDescription(d.sides())
}

// Ownership is the ownership list of d's rule (Rule), read without
// merging.
func (d *Dataset) Ownership() []governance.Owner {
	base, override := d.sides()
	if override == nil {
		return base.Ownership()
	}
	return governance.MergeOwnership(base.Ownership(), override.Ownership())
}

// merged is d's sources entry merged over the app's defaults by merge, or
// the defaults alone.
func (d *Dataset) merged(merge func(base, override *governance.Rule) *governance.Rule) *governance.Rule {
	base, override := d.sides()
	if override == nil {
		return base
	}
	return merge(base, override)
}

// sides are the rules d's rule is made of: the app's defaults, and d's
// sources entry over them (nil for the defaults' own dataset).
func (d *Dataset) sides() (base, override *governance.Rule) {
	c := d.App.Config
	if d.pos < 0 {
		return c.Defaults, nil
	}
	return c.Defaults, c.Sources[d.pos].Rule
}

// at is d's position in its app's datasets.
func (d *Dataset) at() int {
	if d.pos < 0 {
		return len(d.App.datasets) - 1
	}
	return int(d.pos)
}

// ValuesIn is d's rule (Rule) for a reader that writes its values and
// never asks where they were written, as a rule body is: merged by m
// (governance.ValueMerger), and valid until m's next merge.
func (d *Dataset) ValuesIn(m *governance.ValueMerger) *governance.Rule { return d.merged(m.Merge) }

// hasTag reports whether the merged rule's tags (the union of the defaults'
// and the entry's) hold t.
func (d *Dataset) hasTag(t string) bool {
	c := d.App.Config
	return slices.Contains(c.Defaults.Tags(), t) || d.pos >= 0 && slices.Contains(c.Sources[d.pos].Rule.Tags(), t)
}

// MatchFor is how name resolved to d: a glob key answers a name other than
// itself as a glob match, its own spelling as an exact one.
func (d *Dataset) MatchFor(name string) governance.Match {
	if d.Pattern && name != d.ID() {
		return governance.Match{Kind: governance.MatchGlob, Pattern: d.ID()}
	}
	return d.Match()
}

// Match is how d's own key resolves: exactly, or the defaults for an app's
// defaults.
func (d *Dataset) Match() governance.Match {
	if d.pos < 0 {
		return governance.Match{Kind: governance.MatchDefaults}
	}
	return governance.Match{Kind: governance.MatchExact, Pattern: d.ID()}
}

// Apps returns every app, by name.
func (s *Snapshot) Apps() []*App { return s.apps }

// App returns the app called name, or nil.
func (s *Snapshot) App(name string) *App { return s.appIndex[name] }

// Datasets returns every sources key of every app, apps by name, keys in
// sources order, as a list made on each call.
func (s *Snapshot) Datasets() []*Dataset {
	out := make([]*Dataset, 0, s.Counts.Sources)
	for _, a := range s.apps {
		for i := range a.DatasetCount() {
			out = append(out, a.Dataset(i))
		}
	}
	return out
}

// dataset is the i-th sources key of the tree in listing order: apps by
// name, keys in sources order.
func (s *Snapshot) dataset(i int32) *Dataset {
	// The last app starting at or before i holds it (an app declaring no
	// key starts where the next one does): the one before the first
	// starting after i.
	k, _ := slices.BinarySearch(s.appStart, i+1)
	return s.apps[k-1].Dataset(int(i - s.appStart[k-1]))
}

// Resolve is the global resolution of http-api.md: the one app declaring name
// as a key, else the longest glob over all apps. An *AmbiguousError when apps
// tie, ErrNoMatch when nothing matches.
func (s *Snapshot) Resolve(name string) (*Dataset, error) {
	if i := s.keys.Lookup(name); i >= 0 {
		if s.keys.Repeated(i) {
			return nil, ambiguous(name, s.datasetsAt(s.keys.AppendEqual(nil, name)), false)
		}
		return s.dataset(int32(i)), nil
	}
	// Each app would pick its longest matching glob, the earlier on equal
	// length; the longest pick wins, and picks of equal length in several
	// apps tie. Positions go by app, then by key in sources order: an app's
	// pick is its first position among the longest.
	var buf [16]int32
	longest := s.keys.AppendLongest(buf[:0], name)
	if len(longest) == 0 {
		return nil, ErrNoMatch
	}
	first := s.dataset(longest[0])
	var tied []*Dataset
	for _, id := range longest[1:] {
		switch d := s.dataset(id); {
		case d.App == first.App || len(tied) > 0 && d.App == tied[len(tied)-1].App:
		case tied == nil:
			tied = []*Dataset{first, d}
		default:
			tied = append(tied, d)
		}
	}
	if tied != nil {
		return nil, ambiguous(name, tied, true)
	}
	return first, nil
}

func (s *Snapshot) datasetsAt(ids []int32) []*Dataset {
	out := make([]*Dataset, len(ids))
	for i, id := range ids {
		out[i] = s.dataset(id)
	}
	return out
}

func ambiguous(name string, ds []*Dataset, glob bool) error {
	apps := make([]string, len(ds))
	for i, d := range ds {
		apps[i] = d.App.Name
	}
	slices.Sort(apps)
	return &AmbiguousError{Dataset: name, Apps: slices.Compact(apps), Glob: glob}
}

// ResolveIn is resolution inside one app, the library's semantics: the exact
// key, else the longest glob, else the defaults alone. ErrUnknownApp when there
// is no such app.
func (s *Snapshot) ResolveIn(app, name string) (*Dataset, error) {
	a := s.appIndex[app]
	if a == nil {
		return nil, ErrUnknownApp
	}
	if i := a.Config.Keys().Lookup(name); i >= 0 {
		return a.Dataset(i), nil
	}
	// The app's globs are asked of the tree's index, among the app's
	// entries: its own index would file them under its anchors again, a
	// second copy of what the tree's holds.
	k, _ := slices.BinarySearchFunc(s.apps, app, func(a *App, name string) int { return strings.Compare(a.Name, name) })
	start := int(s.appStart[k])
	var buf [8]int32
	if longest := s.keys.AppendLongestIn(buf[:0], name, start, start+len(a.datasets)-1); len(longest) > 0 {
		return s.dataset(longest[0]), nil
	}
	return a.Defaults(), nil
}

// ResolveScoped resolves name as a request or a command names it: inside
// app when one is named (ResolveIn), else across the tree (Resolve).
func (s *Snapshot) ResolveScoped(app, name string) (*Dataset, error) {
	if app != "" {
		return s.ResolveIn(app, name)
	}
	return s.Resolve(name)
}

// Facet is the governance facet of d's rule.
func (d *Dataset) Facet(producer string, includeDataspace bool) []byte {
	return governance.BuildFacet(d.Rule(), producer, includeDataspace)
}

// ETag is the entity tag of every representation derived from this revision:
// the body of a GET is a function of the URL and the revision, so the revision
// is a strong validator. Worked out once rather than per request.
func (s *Snapshot) ETag() string { return s.etag }

// RevisionValues and ETagValues are Revision and ETag as shared one-element
// lists for response headers; callers must not modify them.
func (s *Snapshot) RevisionValues() []string { return s.revisionValues }
func (s *Snapshot) ETagValues() []string     { return s.etagValues }

// SARIFBases place the report's files in its SARIF rendering: the
// tree's relative to %SRCROOT%, the repository it is a checkout of; nil
// when the snapshot was not read from files.
func (s *Snapshot) SARIFBases() *check.SARIFBases { return s.sarifBases }

// Report is the check report this revision passed.
func (s *Snapshot) Report() *check.Report { return s.report }

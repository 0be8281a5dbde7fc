package check

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// ReportVersion is the version of the report's JSON shape.
const ReportVersion = 1

// Options are the inputs of a check (check.md §2.2). Optional strings are
// pointers because "given as empty" and "not given" differ: an empty
// --overlay-dir is the working directory, an empty --overlay-name is a usage
// error.
type Options struct {
	// Paths are files, directories or glob patterns (check.md §3); at least one.
	Paths []string
	// OverlayDir is a directory of deployer overlays, paired by app name.
	OverlayDir *string
	// OverlayName is the overlay name to look for beside each base instead of
	// the app name.
	OverlayName *string
	// Owners are owners registry files, merged in order (later files shadow
	// earlier ones by id).
	Owners []string
	// PlaceholdersFile is the deployment's placeholder map as a YAML file.
	PlaceholdersFile *string
	// Placeholders is the same map already parsed (a server that read it from
	// its own configuration). At most one of the two may be given.
	Placeholders map[string]string
	// Dataspace also requires a DID for every owner of a dataspace offer
	// narrowed by an organization filter.
	Dataspace bool
	// Strict makes warnings fail the run.
	Strict bool
	// Dir is the working directory: relative paths are read from it and
	// display paths are relative to it. "" is the process's.
	Dir string
	// Workers bounds how many files load and how many units materialise at
	// once; 0 is every processor. A server reloading under load leaves one to
	// its readers.
	Workers int
	// OnUnit, when set, is called once for every materialised unit, on the
	// goroutine that materialised it, while its documents (BaseRoot,
	// OverlayRoot) are still set. After it returns the check lets go of
	// them: the report's units then hold no document, and a tree's documents
	// are never all in memory at once (a 47 MB tree held 550 MB of them).
	// A unit taken from Memo is passed too, Reused and without documents,
	// with the Served value the hook set on it when it was first checked.
	OnUnit func(u *Unit)
	// Memo, when set, holds the units of the previous check of the same
	// tree: a unit whose bytes did not change is taken from it instead of
	// being checked again, and the memo then holds this check's units.
	Memo *Memo
}

// UsageError is a check asked for wrongly (check.md §2.1): the CLI exits 2,
// a server answers with a client error. Nothing was checked.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ValidOverlayName reports whether name can name an overlay beside a base:
// an overlay never lives outside the base's directory.
func ValidOverlayName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

// CheckGovernance checks a governance tree as it will be served (check.md).
// The error is only ever a *UsageError, for options that cannot describe a
// check; every problem found in the files is a finding in the report, and
// every finding is collected.
func CheckGovernance(opts Options) (*Report, error) {
	if len(opts.Paths) == 0 {
		return nil, usagef("at least one PATH is required")
	}
	if opts.OverlayName != nil && !ValidOverlayName(*opts.OverlayName) {
		return nil, usagef("invalid overlay name %q: it must be non-empty, not . or .., and contain no / or \\", *opts.OverlayName)
	}
	if opts.PlaceholdersFile != nil && opts.Placeholders != nil {
		return nil, usagef("give the placeholder map as a file or as a map, not both")
	}
	if len(opts.Owners) == 0 {
		if opts.Dataspace {
			return nil, usagef("--dataspace needs at least one --owners file")
		}
		if opts.PlaceholdersFile != nil || opts.Placeholders != nil {
			return nil, usagef("--placeholders needs at least one --owners file")
		}
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, usagef("cannot determine the working directory: %v", err)
		}
		dir = wd
	}
	c := &checker{
		opts:     opts,
		fs:       resolver{dir: dir},
		baseByID: map[string]*govFile{},
		poolByID: map[string]*govFile{},
	}
	return c.run(), nil
}

// govFile is a governance document the check reads: a base or an overlay.
type govFile struct {
	fsFile
	overlay  bool
	name     string       // the overlay name; "" for a base
	root     *yaml11.Node // the loaded document; nil when it did not load
	hasError bool         // an error finding of §5 or §6: the file is not served
	paired   bool         // an overlay that is some base's candidate
}

type checker struct {
	opts     Options
	fs       resolver
	findings []Finding

	bases    []*govFile
	baseByID map[string]*govFile
	pool     []*govFile // overlays, in the order first met
	poolByID map[string]*govFile

	overlayDirID string // the overlay directory, symlinks resolved; "" when none

	registry     *owners.Registry
	placeholders map[string]string

	// owners is what a unit's rules and materialisation ask the registry
	// through, nil when there is no registry: on the copy of the checker a
	// unit runs on it records each question, so that Memo can tell whether a
	// changed registry answers this unit differently (ownersView). The unit's
	// copy has its registry field cleared, so nothing asks around the view.
	owners *ownersView
	// answers digests the registry's answers for Memo; nil without one.
	answers *ownerAnswers

	datasets int
	offers   int
}

func (c *checker) add(f Finding) { c.findings = append(c.findings, f) }

func (c *checker) run() *Report {
	r := &Report{ReportVersion: ReportVersion, Strict: c.opts.Strict, Inputs: c.inputs()}

	c.expand()
	c.collectOverlays()
	r.Units = c.units()
	for _, o := range c.pool {
		if !o.paired {
			c.add(Finding{Severity: Warning, Code: CodeOverlayUnused, File: o.display, Subject: str(o.name),
				Message: fmt.Sprintf("overlay %q applies to no checked base: its app was not checked (pass the app's governance.yaml, or --overlay-name for environment-named overlays)", o.name)})
		}
	}
	if len(c.opts.Owners) == 0 && c.offers > 0 {
		c.add(Finding{Severity: Info, Code: CodeOwnersNotChecked,
			Message: fmt.Sprintf("%d dataspace offer(s) found but no --owners registry was given: their ownership names were not checked", c.offers)})
	}

	r.Owners = c.registry
	r.Placeholders = c.placeholders
	r.Summary.Bases = len(c.bases)
	r.Summary.Overlays = len(c.pool)
	r.Summary.OwnersFiles = len(c.opts.Owners)
	r.Summary.Datasets = c.datasets
	r.finish(c.findings)
	return r
}

func (c *checker) inputs() Inputs {
	in := Inputs{
		Paths:       slices.Clone(c.opts.Paths),
		OverlayDir:  c.opts.OverlayDir,
		OverlayName: c.opts.OverlayName,
		Owners:      slices.Clone(c.opts.Owners),
		Dataspace:   c.opts.Dataspace,
	}
	if in.Owners == nil {
		in.Owners = []string{}
	}
	in.Placeholders = c.opts.PlaceholdersFile
	return in
}

// expand turns the PATH arguments into bases and argument overlays
// (check.md §3).
func (c *checker) expand() {
	for _, arg := range c.opts.Paths {
		contributed := false
		if hasMeta(arg) {
			for _, m := range c.fs.glob(arg) {
				if c.contribute(m.display, true) {
					contributed = true
				}
			}
		} else {
			disp := displayPath(arg)
			if _, err := os.Stat(c.fs.abs(disp)); err == nil && c.contribute(disp, false) {
				contributed = true
			}
		}
		if !contributed {
			c.add(Finding{Severity: Error, Code: CodePathNoMatch, File: arg,
				Message: fmt.Sprintf("%q matches no governance file: nothing was checked for it", arg)})
		}
	}
}

// contribute adds what one matched path stands for (check.md §3.2) and
// reports whether that was a base or an overlay.
func (c *checker) contribute(disp string, pattern bool) bool {
	p := c.fs.abs(disp)
	info, err := os.Stat(p)
	if err != nil {
		return false
	}
	if info.IsDir() {
		gov := joinDisplay(disp, "governance.yaml")
		if isRegular(c.fs.abs(gov)) {
			c.addBase(gov)
			return true
		}
		if pattern {
			c.add(Finding{Severity: Info, Code: CodeNoGovernanceInDir, File: disp,
				Message: "the directory holds no governance.yaml"})
		}
		return false
	}
	if !info.Mode().IsRegular() {
		return false
	}
	name := path.Base(disp)
	switch {
	case name == "governance.yaml":
		c.addBase(disp)
	case overlayName(name) != "":
		c.addOverlay(disp)
	case pattern:
		return false
	default:
		c.addBase(disp) // naming a file is a statement that it is one
	}
	return true
}

func (c *checker) addBase(disp string) {
	f := c.fs.file(disp)
	if _, dup := c.baseByID[f.id]; dup {
		return
	}
	b := &govFile{fsFile: f}
	c.baseByID[f.id] = b
	c.bases = append(c.bases, b)
}

func (c *checker) addOverlay(disp string) {
	f := c.fs.file(disp)
	if _, dup := c.poolByID[f.id]; dup {
		return
	}
	o := &govFile{fsFile: f, overlay: true, name: overlayName(path.Base(disp))}
	c.poolByID[f.id] = o
	c.pool = append(c.pool, o)
}

// collectOverlays completes the overlay pool (check.md §4.1): the overlays
// beside each base, then those in the overlay directory.
func (c *checker) collectOverlays() {
	for _, b := range c.bases {
		dir := path.Dir(b.display)
		for _, name := range overlaysIn(filepath.Dir(b.path)) {
			c.addOverlay(joinDisplay(dir, name))
		}
	}
	if c.opts.OverlayDir == nil {
		return
	}
	disp := displayPath(*c.opts.OverlayDir)
	p := c.fs.abs(disp)
	if !isDir(p) {
		c.add(Finding{Severity: Error, Code: CodeOverlayDirNotFound, File: disp,
			Message: fmt.Sprintf("overlay directory %q does not exist or is not a directory: no deployer overlay was checked", disp)})
		return
	}
	c.overlayDirID = realPath(p)
	for _, name := range overlaysIn(p) {
		c.addOverlay(joinDisplay(disp, name))
	}
}

// unitJob is one base on its way to a unit: what pairing and parsing decided,
// and the findings each step produced, kept per unit so that the report's
// order is the order of a sequential run.
type unitJob struct {
	u             Unit
	b, ov         *govFile
	cands         []*govFile // the overlays that apply to the base (check.md §4.2)
	base, overlay *governance.Config

	pairFindings  []Finding // an overlay conflict
	pairSkipped   bool      // a load error in either file, or a conflict
	parsedOverlay bool      // this unit asked for its overlay's parse
	parseSkipped  bool      // the base or the overlay did not parse
	post          []Finding
	datasets      int
	offers        int

	memoKey     [32]byte  // with Options.Memo: the hash of the unit's files and the shared inputs
	memo        *memoUnit // with Options.Memo: the unit as the next check may reuse it
	ownersAsked []string  // the ids the unit asked the registry for, in order
}

// fileWork is one governance file's load and parse, each done once, by
// whichever unit needs it first: an overlay in the overlay directory may
// serve several bases.
type fileWork struct {
	f      *govFile
	schema string

	// The file's bytes, read before the load when a unit's memo key needs
	// them, and let go once loaded.
	readOnce sync.Once
	data     []byte
	readErr  error

	load   sync.Once
	loaded []Finding // the file's own findings (check.md §5, §6)

	parse    sync.Once
	cfg      *governance.Config
	parseErr *Finding // reported once, by the first unit (in base order) that parsed the file
	reported bool

	users   atomic.Int32 // units not yet done with the document
	readers int          // units that read the file at all
}

// units loads every file, pairs every base with its overlay and
// materialises each unit. A unit's files are loaded by the unit itself, and
// (with Options.OnUnit) its documents are let go as soon as the last unit
// reading them is done, so a tree's documents are never all in memory at
// once. Units run in parallel; the findings are put together afterwards in
// the order a sequential run (every file loaded, then the owners, then unit
// by unit) produces them.
func (c *checker) units() []Unit {
	loaded := c.findings
	c.findings = nil
	// The registry comes first: materialising resolves ownership with it.
	c.loadOwners()
	ownerFindings := c.findings
	c.findings = nil

	work := make(map[*govFile]*fileWork, len(c.bases)+len(c.pool))
	for _, b := range c.bases {
		work[b] = &fileWork{f: b, schema: schemas.Governance}
	}
	for _, o := range c.pool {
		work[o] = &fileWork{f: o, schema: schemas.GovernanceOverlay}
	}
	jobs := make([]unitJob, len(c.bases))
	for i, b := range c.bases {
		c.candidates(&jobs[i], b)
		for _, f := range jobs[i].files() {
			work[f].users.Add(1)
			work[f].readers++
		}
	}
	release := func(f *govFile) {
		if work[f].users.Add(-1) == 0 && c.opts.OnUnit != nil {
			f.root = nil
		}
	}

	memo := c.opts.Memo
	var shared [32]byte
	if memo != nil {
		shared = c.sharedKey()
		if c.registry != nil {
			c.answers = &ownerAnswers{registry: c.registry}
		}
	}
	parallel(c.workers(), len(jobs), func(i int) {
		j := &jobs[i]
		files := j.files()
		defer func() {
			for _, f := range files {
				release(f)
			}
		}()
		remember := memo != nil && c.ownFiles(j, work)
		var known *memoUnit
		if remember {
			j.memoKey = unitKey(shared, j, work)
			if known = memo.get(j.memoKey); known != nil && c.reusable(known) {
				c.reuse(j, work, known)
				return
			}
		}
		for k, f := range files {
			var kf *memoFile
			if known != nil {
				// The same bytes, paths and shared inputs as a unit the
				// registry now answers differently.
				kf = &known.files[k]
			}
			c.loadFile(work[f], kf)
		}
		c.unit(j, work)
		if remember {
			c.remember(j, work)
		}
	})
	// Overlays no base takes are loaded alone, for their own findings.
	var alone []*govFile
	for _, o := range c.pool {
		if !o.paired {
			alone = append(alone, o)
		}
	}
	parallel(c.workers(), len(alone), func(i int) {
		c.loadFile(work[alone[i]], nil)
		if c.opts.OnUnit != nil {
			alone[i].root = nil
		}
	})

	c.findings = loaded
	for _, b := range c.bases {
		c.findings = append(c.findings, work[b].loaded...)
	}
	for _, o := range c.pool {
		c.findings = append(c.findings, work[o].loaded...)
	}
	c.findings = append(c.findings, ownerFindings...)
	out := make([]Unit, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		c.findings = append(c.findings, j.pairFindings...)
		if j.pairSkipped {
			c.skip(j.b)
		} else {
			for _, f := range []*govFile{j.b, j.ov} {
				if f == nil || (f == j.ov && !j.parsedOverlay) {
					continue
				}
				if w := work[f]; w.parseErr != nil && !w.reported {
					w.reported = true
					c.add(*w.parseErr)
				}
			}
			if j.parseSkipped {
				c.skip(j.b)
			}
		}
		c.findings = append(c.findings, j.post...)
		c.datasets += j.datasets
		c.offers += j.offers
		out[i] = j.u
	}
	if memo != nil {
		memo.replace(jobs)
	}
	return out
}

// ownFiles reports whether no other unit reads any of j's files: only such
// a unit's findings are its own to remember.
func (c *checker) ownFiles(j *unitJob, work map[*govFile]*fileWork) bool {
	for _, f := range j.files() {
		if work[f].readers != 1 {
			return false
		}
	}
	return true
}

// read reads the file's bytes, once.
func (w *fileWork) read() {
	w.readOnce.Do(func() { w.data, w.readErr = os.ReadFile(w.f.path) })
}

// loadFile loads and checks a file alone (check.md §5, §6), once. known,
// when not nil, is the memo's record of the same bytes read at the same path
// as the same kind of file: the file's own findings depend on nothing else,
// so they are taken from it and only the document is read again, for the
// unit's work; the schema and the document rules, a fifth of a build, are
// not run again.
func (c *checker) loadFile(w *fileWork, known *memoFile) {
	w.load.Do(func() {
		w.read()
		if known == nil {
			w.loaded = c.loadGovernance(w.f, w.schema, w.data, w.readErr)
		} else {
			w.loaded, w.f.hasError = known.loaded, known.hasError
			if l := parseYAML(w.data, w.readErr, w.f.display, func(Finding) {}); l != nil {
				w.f.root = l.root
			}
		}
		w.data = nil
	})
}

// parseFile reads a loaded document into the rule model, once.
func (c *checker) parseFile(w *fileWork) *governance.Config {
	w.parse.Do(func() {
		cfg, err := parseGov(w.f)
		if err != nil {
			// The document rules are meant to catch everything the parser
			// refuses; should one slip through it is still a loud failure,
			// never a skip.
			fd := Finding{Severity: Error, Code: CodeLoadError, File: w.f.display, Message: err.Error()}
			if ge, ok := err.(*governance.Error); ok {
				fd.Line, fd.Column, fd.Message = ge.Line, ge.Column, ge.Msg
				if ge.Path != "" {
					fd.Message = ge.Path + ": " + ge.Msg
				}
			}
			w.parseErr, cfg = &fd, nil
		}
		w.cfg = cfg
	})
	return w.cfg
}

// unit decides whether a loaded unit can be materialised (check.md §4.2),
// parses its files and materialises it, on a copy of the checker so that
// units run in parallel.
func (c *checker) unit(j *unitJob, work map[*govFile]*fileWork) {
	if c.pair(j); j.pairSkipped {
		return
	}
	j.base = c.parseFile(work[j.b])
	if j.ov != nil {
		j.parsedOverlay = true
		j.overlay = c.parseFile(work[j.ov])
	}
	if j.base == nil || (j.ov != nil && j.overlay == nil) {
		j.parseSkipped = true
		return
	}
	w := *c
	w.findings, w.datasets, w.offers = nil, 0, 0
	if c.registry != nil {
		w.owners = &ownersView{registry: c.registry}
	}
	w.registry = nil
	w.materialise(j)
	j.post, j.datasets, j.offers = w.findings, w.datasets, w.offers
	if w.owners != nil {
		j.ownersAsked = w.owners.asked
	}
	if c.opts.OnUnit != nil {
		c.opts.OnUnit(&j.u)
		j.u.BaseRoot, j.u.OverlayRoot = nil, nil
	}
}

// pair decides, from how its files loaded, whether the unit is skipped and
// which overlay it takes.
func (c *checker) pair(j *unitJob) {
	j.pairSkipped = j.b.hasError || len(j.cands) > 1
	if len(j.cands) == 1 {
		j.pairSkipped = j.pairSkipped || j.cands[0].hasError
	}
	if !j.pairSkipped && len(j.cands) == 1 {
		j.ov = j.cands[0]
	}
}

func (c *checker) workers() int {
	if c.opts.Workers > 0 {
		return c.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// parallel runs f(0) … f(n-1) on up to workers goroutines.
func parallel(workers, n int, f func(i int)) {
	if workers <= 1 {
		for i := range n { // on the caller's goroutine and thread
			f(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// candidates finds the overlays that apply to a base (check.md §4.2) by
// their names and directories alone; whether the unit is then skipped
// depends on how its files load (unit).
func (c *checker) candidates(j *unitJob, b *govFile) {
	app := appName(b.display)
	j.u = Unit{App: app, Base: b.display, BaseFile: b.path}
	j.b = b
	u := &j.u
	for _, o := range c.pool {
		beside := o.dirID == b.dirID
		if c.opts.OverlayName != nil {
			beside = beside && o.name == *c.opts.OverlayName
		} else {
			beside = beside && app != "" && o.name == app
		}
		inDir := c.overlayDirID != "" && o.dirID == c.overlayDirID && app != "" && o.name == app
		if beside || inDir {
			j.cands = append(j.cands, o)
			o.paired = true
		}
	}
	switch len(j.cands) {
	case 0:
	case 1:
		u.Overlay, u.OverlayFile = j.cands[0].display, j.cands[0].path
	default:
		names := make([]string, len(j.cands))
		for i, o := range j.cands {
			names[i] = o.display
		}
		slices.Sort(names)
		j.pairFindings = append(j.pairFindings, Finding{Severity: Error, Code: CodeOverlayConflict, File: b.display, Subject: str(app),
			Message: fmt.Sprintf("%d overlays apply to this base (%s): refused rather than merged in an order nobody chose", len(j.cands), strings.Join(names, ", "))})
	}
}

// materialise merges a paired unit, runs the rules that read what is served
// (check.md §7, §9.3–§9.8) and resolves ownership. It touches only j and the
// checker's own findings and counts, so units run on copies of the checker.
func (c *checker) materialise(j *unitJob) {
	b, ov, base, overlay, u := j.b, j.ov, j.base, j.overlay, &j.u
	cfg := base
	if overlay != nil {
		cfg = governance.MergeConfigs(base, overlay)
	}
	c.unitRules(&unitView{base: b, overlay: ov, baseCfg: base, overlayCfg: overlay, cfg: cfg})
	if c.owners != nil {
		// Resolved after the merge, never per file, and leniently: which names
		// must resolve is the check's rule (dataspace offers only), already
		// reported above; a catalogue attribution stays as written.
		if resolved, _, err := owners.ResolveConfigOwnership(cfg, c.owners, false, c.placeholders); err == nil {
			cfg = resolved
		}
	}
	u.Materialized, u.Config, u.BaseRoot = true, cfg, b.root
	if ov != nil {
		u.OverlayRoot = ov.root
	}
}

func (c *checker) skip(b *govFile) {
	c.add(Finding{Severity: Info, Code: CodeSemanticSkipped, File: b.display,
		Message: "the rules that read the served (merged) result were not run for this unit: fix its errors first"})
}

// parseGov reads a loaded document into the rule model; it has no side effect,
// so files parse in parallel.
func parseGov(f *govFile) (*governance.Config, error) {
	parse := governance.ParseDocument
	if f.overlay {
		parse = governance.ParseOverlayDocument
	}
	return parse(f.root, f.display)
}

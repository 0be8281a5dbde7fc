package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
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
	// Budget bounds the check's work; the zero value is no bound.
	Budget Budget

	// FS holds the files the check reads: an upload read into memory, the
	// demo tree embedded in the binary. Nil is the operating system's files,
	// where absolute paths work too.
	FS fs.FS
	// Dir is the working directory: relative paths are read from it and
	// display paths are relative to it. With FS nil, a directory of the
	// operating system ("" is the process's); with FS, a name in it ("" is
	// its top).
	Dir string
	// Rooted says FS is laid out as the operating system's root directory
	// (a file's name is its absolute path without the leading slash): an
	// absolute path names a file in it and Dir is read as with FS nil. A
	// tree checked in place of a served one (an upload standing in for a
	// tree root, the rest of the files the server's own) is read this way,
	// so that its files are named exactly as the served tree's.
	Rooted bool
	// Mounts, when given, are the only places relative paths name: each
	// relative path (a PATH argument, the overlay directory, an owners
	// file, the placeholder map) is read from the mount whose Display
	// holds it, and Dir is not used. A server names its inputs this way
	// by where they are in the tree it serves (apps/a/governance.yaml),
	// not by where that tree is mounted on its disk, so that every answer
	// reads the same on every replica.
	Mounts []Mount
	// NoInferFromDir leaves a base unchanged when no overlay name is
	// given: no overlay beside it is paired by its app name (the
	// library's from_file_with_override with infer_from_dir=False, where
	// pairing by the app directory's name is the check's default).
	// Overlays in OverlayDir still pair by app name: naming the directory
	// asks for them.
	NoInferFromDir bool
	// Known, when set, is asked about each base and overlay a unit takes,
	// with what the file is (fs.Stat) before it is read: a file it
	// reports known is not read, and its File is Deferred. A server
	// reloading its trees knows the files whose identity it has seen, and
	// reads only those whose units it must check again (ReadDeferred).
	Known func(name string, info fs.FileInfo) bool
	// RegistryBuild, when set, is an earlier plan's (Plan.RegistryBuild):
	// when the owners files and the placeholder map hold the bytes it was
	// made from, it is taken rather than parsed and examined again.
	RegistryBuild *RegistryBuild
}

// Mount makes a file or directory of the check's file system appear at a
// display path of the caller's choosing (Options.Mounts).
type Mount struct {
	// Display is a relative display path ("." for the top); what lies
	// under it is read under Name. A longer Display shadows a shorter one.
	Display string
	// Name is the file system name it stands for: a name in FS, or with
	// FS nil or Rooted an absolute path's name in the root file system
	// (without the leading slash).
	Name string
}

// Budget bounds what one check may cost, for a server checking a tree a
// client sends: a check's time and memory grow with the apps, sources and
// YAML values it reads, whatever their bytes compress to. A zero field is no
// bound; the CLI and a server's reloads of its own trees run without one.
type Budget struct {
	// Units bounds the bases (apps) one check takes: more is a
	// *BudgetError before any file is read.
	Units int
	// Sources bounds the sources keys of the documents checked (bases and
	// overlays), Values the YAML values they hold, as yaml11 counts them
	// (yaml11.Document.Values): Run stops between units once either is
	// spent and returns a *BudgetError.
	Sources, Values int
	// DocumentBytes bounds one file's size, below yaml11.MaxDocumentBytes:
	// a larger file is refused as a file over that limit is, with a
	// load-error finding naming it. Reading a document costs memory many
	// times its size.
	DocumentBytes int
	// Workers bounds the units Run checks at once (0: one per processor):
	// with DocumentBytes, what the check's parsing holds at once.
	Workers int
	// Memory, when set, is charged with the sources keys and YAML values
	// of each unit as it is checked (one call per unit, from the checking
	// goroutines): a caller that keeps what the check builds bounds it so.
	// An error stops the check as a spent budget does, and is the check's
	// error.
	Memory interface {
		Charge(sources, values int) error
	}
}

// BudgetError is a check that would cost more than its Budget: it stopped,
// and reports nothing.
type BudgetError struct {
	What  string // "apps", "sources" or "YAML values"
	Limit int
	// Found is how many the check counted when it stopped: all of them for
	// apps, at least Limit+1 for the others.
	Found int
}

func (e *BudgetError) Error() string {
	if e.What == "apps" {
		return fmt.Sprintf("the check names %d apps, more than the %d one check may take", e.Found, e.Limit)
	}
	return fmt.Sprintf("the checked documents hold more than %d %s, the most one check may read; it stopped there", e.Limit, e.What)
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

// File is one governance document as the check read it: how a report names
// it, and its bytes or why they could not be read.
type File struct {
	Display string // as reported (check.md §3.4)
	Name    string // the name it was read from in the check's file system; "" when it names nothing there
	Data    []byte // nil when Err is set or the file is Deferred
	Err     error  // why the file could not be read
	// Deferred: Options.Known vouched for the file, and it was not read.
	// A unit holding such a file is checked only once ReadDeferred read it;
	// until then CheckUnit reports the file as unreadable.
	Deferred bool
}

// ErrDeferred is what checking a unit reports of a file Options.Known kept
// the plan from reading, when no one read it since.
var ErrDeferred = errors.New("the file was not read: it was deferred to a reader that never read it")

// ReadDeferred reads a Deferred file of the plan, as the plan would have
// (through its file system, within its document size), and reports what
// the file was when read, for the caller to compare with what it vouched
// for: whether it is still the file the plan saw is the caller's to judge.
// The file system must still be open.
func (p *Plan) ReadDeferred(f *File) (fs.FileInfo, error) {
	data, info, err := ReadFile(p.tree.fsys, f.Name, p.tree.limit)
	if err != nil {
		return info, err
	}
	f.Data, f.Deferred = data, false
	return info, nil
}

// Input is a file the plan read, with what it was when read: a caller that
// remembers files by identity (size, modification time, inode) can tell
// an unchanged file without hashing it again. Units never see Info.
type Input struct {
	File
	Info fs.FileInfo // nil when the file could not be found
}

// OwnerLookup is how a unit asks the owners registry about an owner id: the
// only question a unit may ask of it.
type OwnerLookup interface {
	ByID(id string) *owners.Entry
}

// Env is what every unit of a check shares: the registry, the placeholder
// map and the --dataspace option.
type Env struct {
	Owners       OwnerLookup       // nil when no registry was built
	Placeholders map[string]string // nil when none was given or it did not load
	Dataspace    bool
	// Values is where the units' configurations take the values their
	// documents state alike (a licence, an owner list, a dataspace block):
	// one copy for the whole tree. It changes no result, only how many
	// copies of a value the results hold; nil shares values within each
	// document only.
	Values *governance.Values
}

// Unit is everything one base is checked from: the base, every overlay that
// applies to it (check.md §4.2: none, one, or several in conflict), and the
// shared inputs. CheckUnit reads nothing else, so a unit whose inputs are
// the same gives the same result.
type Unit struct {
	App      string // the app name (the base's directory name); "" when it has none
	Base     File
	Overlays []File // the overlay candidates, in the order first met
	Env      Env
}

// Plan is a check's inputs read and sorted into units: which bases the
// paths name, which overlays apply to each, the owners registry and the
// placeholder map, and what was found on the way. NewPlan reads every file;
// checking the units reads none.
type Plan struct {
	Units []Unit
	// Unpaired are the overlays no base takes: checked alone, for their own
	// findings (overlay-unused).
	Unpaired []File

	// Registry is the merged owners registry, nil when no owners file was
	// given or one of them (or the placeholder map) did not load.
	Registry *owners.Registry
	// Placeholders is the placeholder map in use; nil without one.
	Placeholders map[string]string
	// RegistryBuild is what the plan made of the owners files and the
	// placeholder map, for a later plan (Options.RegistryBuild); nil
	// without owners files.
	RegistryBuild *RegistryBuild
	// Inputs are every file the plan read, each once, in the order read:
	// the bases and overlays, the owners files and the placeholder map. A
	// revision of the inputs is a hash of exactly these.
	Inputs []Input

	inputs   Inputs
	tree     tree // where the files were read, for ReadDeferred
	strict   bool
	noInfer  bool      // Options.NoInferFromDir
	owners   int       // how many owners files were named
	overlays int       // overlays found, paired or not
	findings []Finding // about the paths, the overlay directory, the owners and placeholders
}

// NewPlan reads the inputs of a check. The error is only ever a
// *UsageError, for options that cannot describe a check, a *BudgetError for
// more apps than Budget.Units, or the context's error; every problem found in
// the files is a finding of the report.
func NewPlan(ctx context.Context, opts Options) (*Plan, error) {
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
	t, err := newTree(opts)
	if err != nil {
		return nil, err
	}
	p := &planner{opts: opts, tree: t, baseByID: map[string]*planFile{}, poolByID: map[string]*planFile{}}
	p.expand()
	if b := opts.Budget.Units; b > 0 && len(p.bases) > b {
		return nil, &BudgetError{What: "apps", Limit: b, Found: len(p.bases)}
	}
	p.collectOverlays()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.loadOwners()
	return p.plan(ctx)
}

// planFile is a base or an overlay the paths name.
type planFile struct {
	display string
	id      string // symlinks resolved: the identity of the file
	dirID   string // the directory holding it, symlinks resolved
	name    string // the overlay name; "" for a base
	order   int    // an overlay's place in the pool
	paired  bool   // an overlay that is some base's candidate
	file    *File  // read by plan
}

type planner struct {
	opts     Options
	tree     tree
	findings []Finding

	bases    []*planFile
	baseByID map[string]*planFile
	pool     []*planFile // overlays, in the order first met
	poolByID map[string]*planFile
	poolDirs map[string][]*planFile // overlays by the directory holding them, symlinks resolved

	overlayDirID string // the overlay directory, symlinks resolved; "" when none

	registry      *owners.Registry
	placeholders  map[string]string
	registryFiles map[string]registryFile // the owners files and the placeholder map, by display path
	registryBuild *RegistryBuild          // nil without owners files, or with a placeholder map given as a map
	files         []Input                 // every file read, in order
}

func (p *planner) add(f Finding) { p.findings = append(p.findings, f) }

// expand turns the PATH arguments into bases and argument overlays
// (check.md §3).
func (p *planner) expand() {
	for _, arg := range p.opts.Paths {
		contributed := false
		if governance.HasMeta(arg) { // a pattern (check.md §3.1)
			for _, m := range p.tree.glob(arg) {
				if p.contribute(m, true) {
					contributed = true
				}
			}
		} else {
			disp := displayPath(arg)
			if _, err := p.tree.stat(disp); err == nil && p.contribute(disp, false) {
				contributed = true
			}
		}
		if !contributed {
			p.add(Finding{Severity: Error, Code: CodePathNoMatch, File: arg,
				Message: fmt.Sprintf("%q matches no governance file: nothing was checked for it", arg)})
		}
	}
}

// contribute adds what one matched path stands for (check.md §3.2) and
// reports whether that was a base or an overlay.
func (p *planner) contribute(disp string, pattern bool) bool {
	info, err := p.tree.stat(disp)
	if err != nil {
		return false
	}
	if info.IsDir() {
		gov := joinDisplay(disp, "governance.yaml")
		if p.tree.isRegular(gov) {
			p.addBase(gov)
			return true
		}
		if !pattern {
			return p.contributeTree(disp)
		}
		if pattern {
			p.add(Finding{Severity: Info, Code: CodeNoGovernanceInDir, File: disp,
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
		p.addBase(disp)
	case overlayName(name) != "":
		p.addOverlay(disp)
	case pattern:
		return false
	default:
		p.addBase(disp) // naming a file is a statement that it is one
	}
	return true
}

// contributeTree adds what a named directory without a governance.yaml
// stands for when it is a tree: the apps of a tree root holding
// apps/<app>/governance.yaml, or the apps directory itself, each app as
// apps/* would add it.
func (p *planner) contributeTree(disp string) bool {
	apps := disp
	if p.tree.isDir(joinDisplay(disp, "apps")) {
		apps = joinDisplay(disp, "apps")
	}
	matches := p.tree.glob(joinDisplay(apps, "*"))
	holds := false
	for _, m := range matches {
		if p.tree.isRegular(joinDisplay(m, "governance.yaml")) {
			holds = true
			break
		}
	}
	if !holds {
		return false
	}
	for _, m := range matches {
		p.contribute(m, true)
	}
	return true
}

func (p *planner) file(disp string) *planFile {
	return &planFile{display: disp, id: p.tree.identity(disp), dirID: p.tree.identity(path.Dir(disp))}
}

func (p *planner) addBase(disp string) {
	f := p.file(disp)
	if _, dup := p.baseByID[f.id]; dup {
		return
	}
	p.baseByID[f.id] = f
	p.bases = append(p.bases, f)
}

func (p *planner) addOverlay(disp string) {
	f := p.file(disp)
	if _, dup := p.poolByID[f.id]; dup {
		return
	}
	f.name = overlayName(path.Base(disp))
	f.order = len(p.pool)
	p.poolByID[f.id] = f
	p.pool = append(p.pool, f)
	if p.poolDirs == nil {
		p.poolDirs = map[string][]*planFile{}
	}
	p.poolDirs[f.dirID] = append(p.poolDirs[f.dirID], f)
}

// collectOverlays completes the overlay pool (check.md §4.1): the overlays
// beside each base, then those in the overlay directory.
func (p *planner) collectOverlays() {
	for _, b := range p.bases {
		dir := path.Dir(b.display)
		for _, name := range p.tree.overlaysIn(dir) {
			p.addOverlay(joinDisplay(dir, name))
		}
	}
	if p.opts.OverlayDir == nil {
		return
	}
	disp := displayPath(*p.opts.OverlayDir)
	if !p.tree.isDir(disp) {
		p.add(Finding{Severity: Error, Code: CodeOverlayDirNotFound, File: disp,
			Message: fmt.Sprintf("overlay directory %q does not exist or is not a directory: no deployer overlay was checked", disp)})
		return
	}
	p.overlayDirID = p.tree.identity(disp)
	for _, name := range p.tree.overlaysIn(disp) {
		p.addOverlay(joinDisplay(disp, name))
	}
}

// candidates finds the overlays that apply to a base (check.md §4.2) by
// their names and directories alone; whether the unit is then skipped
// depends on how its files load (CheckUnit).
func (p *planner) candidates(b *planFile) []*planFile {
	app := appName(b.display)
	var out []*planFile
	for _, o := range p.poolDirs[b.dirID] {
		beside := app != "" && o.name == app && !p.opts.NoInferFromDir
		if p.opts.OverlayName != nil {
			beside = o.name == *p.opts.OverlayName
		}
		inDir := p.overlayDirID == b.dirID && app != "" && o.name == app
		if beside || inDir {
			out = append(out, o)
		}
	}
	if p.overlayDirID != "" && p.overlayDirID != b.dirID && app != "" {
		for _, o := range p.poolDirs[p.overlayDirID] {
			if o.name == app {
				out = append(out, o)
			}
		}
	}
	// In the order first met, as the conflict finding lists them.
	slices.SortFunc(out, func(a, b *planFile) int { return a.order - b.order })
	for _, o := range out {
		o.paired = true
	}
	return out
}

// read reads a governance file once, however many units take it. A file
// Options.Known vouches for is not read when deferrable (it belongs to a
// unit: an overlay no unit takes is checked by the report itself).
func (p *planner) read(f *planFile, deferrable bool) *File {
	if f.file == nil {
		var rf File
		if deferrable && p.opts.Known != nil {
			rf = p.deferFile(f.display)
		} else {
			rf = p.readFile(f.display)
		}
		f.file = &rf
	}
	return f.file
}

// readFile reads one input and records it among the plan's files.
func (p *planner) readFile(display string) File {
	f := File{Display: display}
	if n, ok := p.tree.name(display); ok {
		f.Name = n
	}
	var info fs.FileInfo
	f.Data, info, f.Err = p.tree.readFile(display)
	p.files = append(p.files, Input{File: f, Info: info})
	return f
}

// deferFile is readFile for a file Options.Known may vouch for: it is
// looked at first and read only when Known does not know it.
func (p *planner) deferFile(display string) File {
	n, ok := p.tree.name(display)
	if !ok {
		return p.readFile(display)
	}
	info, err := fs.Stat(p.tree.fsys, n)
	if err != nil || !info.Mode().IsRegular() || !p.opts.Known(n, info) {
		return p.readFile(display)
	}
	f := File{Display: display, Name: n, Deferred: true}
	p.files = append(p.files, Input{File: f, Info: info})
	return f
}

func (p *planner) plan(ctx context.Context) (*Plan, error) {
	out := &Plan{
		Registry:      p.registry,
		Placeholders:  p.placeholders,
		RegistryBuild: p.registryBuild,
		inputs:        p.inputs(),
		tree:          p.tree,
		strict:        p.opts.Strict,
		noInfer:       p.opts.NoInferFromDir,
		owners:        len(p.opts.Owners),
		overlays:      len(p.pool),
		findings:      p.findings,
	}
	env := Env{Placeholders: p.placeholders, Dataspace: p.opts.Dataspace, Values: governance.NewValues()}
	if p.registry != nil {
		env.Owners = &unplacedOwners{registry: p.registry}
	}
	out.Units = make([]Unit, len(p.bases))
	for i, b := range p.bases {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		u := Unit{App: appName(b.display), Base: *p.read(b, true), Env: env}
		for _, o := range p.candidates(b) {
			u.Overlays = append(u.Overlays, *p.read(o, true))
		}
		out.Units[i] = u
	}
	for _, o := range p.pool {
		if !o.paired {
			out.Unpaired = append(out.Unpaired, *p.read(o, false))
		}
	}
	out.Inputs = p.files
	return out, nil
}

func (p *planner) inputs() Inputs {
	in := Inputs{
		Paths:        slices.Clone(p.opts.Paths),
		OverlayDir:   p.opts.OverlayDir,
		OverlayName:  p.opts.OverlayName,
		Owners:       slices.Clone(p.opts.Owners),
		Dataspace:    p.opts.Dataspace,
		InferFromDir: !p.opts.NoInferFromDir,
	}
	if in.Owners == nil {
		in.Owners = []string{}
	}
	in.Placeholders = p.opts.PlaceholdersFile
	return in
}

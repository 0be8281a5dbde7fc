package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/celine-eu/governanced/internal/check"
)

// Loader builds snapshots from a fixed set of inputs.
type Loader struct {
	Inputs Inputs
	// FS is the file system the inputs are read from; nil is the operating
	// system's files.
	FS fs.FS
	// Rooted says FS is laid out as the operating system's root directory
	// (check.Options.Rooted): the inputs name its files as they would name
	// the operating system's, so what is read is named as a server reading
	// the disk names it.
	Rooted bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Budget bounds a check of inputs a client sent (POST /diff), as
	// check.Options.Budget bounds a validation; the zero value, for a
	// server's own trees, is no bound.
	Budget check.Budget
}

// Rejection is a revision whose check found errors: it is never served.
type Rejection struct {
	Revision string
	Report   *check.Report
	Problems []string // the error findings, one line each: "file:line:col: code: message"
	// NotHeld says why the apps whose files fail could not be held while
	// the rest is served (StoreOptions.IsolateApps); "" when that was not
	// asked.
	NotHeld string

	counts reuseCounts // units taken from the snapshot being served, and built afresh
}

func (r *Rejection) Error() string {
	if len(r.Problems) == 0 {
		return "the tree check failed"
	}
	msg := r.Problems[0]
	if n := len(r.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	if r.NotHeld != "" {
		msg += "; no app was held, since " + r.NotHeld
	}
	return "the tree check failed: " + msg
}

// Build checks the inputs and, when the check passes, assembles a snapshot
// from exactly the units it checked, every unit afresh and on every
// processor. A failing check is a *Rejection.
func (l *Loader) Build(ctx context.Context) (*Snapshot, error) {
	r, err := l.read(ctx, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	defer r.close()
	g, err := l.build(ctx, r, nil, runtime.GOMAXPROCS(0), false)
	if err != nil {
		return nil, err
	}
	return g.snap, nil
}

// read is the first half of a build: every input looked at and sorted
// into units (check.NewPlan), the revision of what was read, and which
// units known (the units of the build being served, or of the tree checked
// beside) holds a build of with the same inputs. A governance file whose
// identity is the one prev recorded (prev: the digests of the last
// reading) is not read, nor hashed again, unless a unit holding it must be
// checked again: a one-app edit in a tree of 10 000 apps reads one file.
// A file read to be hashed lets go of its bytes when its identity can vouch
// for them, and is read again when its unit is checked (release,
// checkUnits), so the reading keeps the files open until r.close. The
// owners files and the placeholder map are parsed only when their bytes
// are not those reg (nil for none) was made from.
func (l *Loader) read(ctx context.Context, prev digests, known units, reg *check.RegistryBuild) (r *reading, _ error) {
	fsys, rooted := l.FS, l.Rooted
	// The files stay open for checkUnits to read the units' files again,
	// until the reading is closed; a reading that fails closes them here.
	closeReading := func() {}
	defer func() {
		if r == nil {
			closeReading()
		}
	}()
	var v view
	var sources []Source
	if l.FS == nil {
		for i, root := range l.Inputs.Trees {
			if _, err := os.Stat(l.Inputs.abs(root)); errors.Is(err, fs.ErrNotExist) {
				return nil, &MissingRootError{Root: root, Index: i, Of: len(l.Inputs.Trees)}
			}
		}
		files, closeFiles := l.Inputs.openFiles() // contain.go: nothing outside the trees
		closeReading = closeFiles
		var err error
		if v, err = l.Inputs.view(files, true); err != nil {
			return nil, err
		}
		if err := l.Inputs.readable(files, v); err != nil {
			return nil, err // integrity.go: never serve a tree missing what it cannot read
		}
		sources = l.Inputs.sources(files, v)
		fsys, rooted = files, true
	} else {
		var err error
		if v, err = l.Inputs.view(fsys, rooted); err != nil {
			return nil, err
		}
	}
	opts := l.Inputs.checkOptions(v, fsys, rooted)
	opts.Budget = l.Budget
	opts.RegistryBuild = reg
	if prev != nil {
		opts.Known = func(name string, info fs.FileInfo) bool {
			d, ok := prev[name]
			id := identityOf(info)
			return ok && d.ok && id.known && d.id == id
		}
	}
	plan, err := check.NewPlan(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := l.unchanged(plan.Inputs); err != nil {
		return nil, err
	}
	rd := &reading{plan: plan, opts: opts, digests: make(digests, len(plan.Inputs)), budget: l.Budget, sources: sources, view: v,
		answers: newOwnerAnswers(plan.Registry), served: l.Inputs.servedAs(v), source: inputSource{fsys: l.FS}, close: closeReading}
	rd.source.names = make(map[string]string, len(plan.Inputs))
	for k := range plan.Inputs {
		in := &plan.Inputs[k]
		rd.digests[in.Name] = prev.digest(*in)
		in.Data = nil // hashed: the units hold the bytes they need
		if in.Name != "" {
			rd.source.names[in.Display] = in.Name
		}
	}
	rd.files = inputFiles(plan.Inputs, rd.digests)
	rd.revision = revisionOf(opts, rd.files)
	if err := rd.sortUnits(known); err != nil {
		return nil, err
	}
	return rd, nil
}

// sortUnits keys every unit and takes the build of those known holds; the
// others will be checked, and their files not read yet are read now.
func (r *reading) sortUnits(known units) error {
	r.keys = make([][32]byte, len(r.plan.Units))
	r.filesKeys = make([][32]byte, len(r.plan.Units))
	r.reuse = make([]*builtUnit, len(r.plan.Units))
	r.resolve = make([]*builtUnit, len(r.plan.Units))
	if len(r.plan.Units) > 0 {
		r.envKey = envKey(r.plan.Units[0].Env) // the plan gives every unit the same
	}
	for i := range r.plan.Units {
		u := &r.plan.Units[i]
		r.filesKeys[i] = unitFilesKey(u, r.digests)
		r.keys[i] = joinKeys(r.filesKeys[i], r.envKey)
		if b := known[r.keys[i]]; b != nil {
			if b.registry == r.plan.Registry || r.answers.same(b) {
				r.reuse[i] = b
			} else {
				r.resolve[i] = b // the same files: only what the registry answers changed
			}
			continue
		}
		r.release(&u.Base)
		for k := range u.Overlays {
			r.release(&u.Overlays[k])
		}
	}
	return nil
}

// release lets go of the bytes of a file the plan read and hashed, when
// its identity can vouch for them: checkUnits reads it again when its
// unit is checked (readDeferred). A tree's files are read at once to make
// its revision, and its units are checked a few at a time: held until
// then, the bytes of the files not checked yet would be live through most
// of a cold build, and every collection during it would count them.
func (r *reading) release(f *check.File) {
	if f.Deferred || f.Data == nil || !r.digests[f.Name].id.known {
		return
	}
	f.Data, f.Deferred = nil, true
}

// readUnit reads the files of u the plan did not read, or whose bytes
// were released, as u is about to be checked.
func (r *reading) readUnit(u *check.Unit) error {
	if err := r.readDeferred(&u.Base); err != nil {
		return err
	}
	for k := range u.Overlays {
		if err := r.readDeferred(&u.Overlays[k]); err != nil {
			return err
		}
	}
	return nil
}

// readDeferred reads a file the plan did not read; it must still be the
// file whose digest stands for it.
func (r *reading) readDeferred(f *check.File) error {
	if !f.Deferred {
		return nil
	}
	info, err := r.plan.ReadDeferred(f)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", f.Display, ErrInputsChanged, err)
	}
	d := r.digests[f.Name]
	// The identity alone would let through a rewrite of the same size
	// within the file system's timestamp granularity (a few milliseconds
	// on Linux), which the bytes' hash does not: what is checked is what
	// the revision names.
	switch {
	case identityOf(info) != d.id:
		return fmt.Errorf("%s: %w: it was replaced or modified after it was first read", f.Display, ErrInputsChanged)
	case !d.ok || sha256.Sum256(f.Data) != d.sum:
		return fmt.Errorf("%s: %w: its bytes are not those first read", f.Display, ErrInputsChanged)
	}
	return nil
}

// MissingRootError is a tree root that does not exist: before git-sync's
// first clone, or a mistyped --tree. Nothing was checked. Its message,
// which answers show, does not name the root's place on the disk; Root
// does, for the operator's log.
type MissingRootError struct {
	Root      string // as given
	Index, Of int    // which tree of how many
}

func (e *MissingRootError) Error() string {
	if e.Of > 1 {
		return fmt.Sprintf("tree root %d of %d does not exist (yet)", e.Index+1, e.Of)
	}
	return "the tree root does not exist (yet)"
}

// ErrInputsChanged is a reading during which an input changed: a file
// being written (an editor's truncate-and-write, a checkout) was read half
// way. The change that caused it will be read again.
var ErrInputsChanged = errors.New("an input changed while it was being read")

// unchanged fails with ErrInputsChanged when a file read is no longer the
// file that was read (its size, modification time or inode differ).
func (l *Loader) unchanged(inputs []check.Input) error {
	fsys := l.FS
	if fsys == nil {
		fsys = os.DirFS("/")
	}
	for _, in := range inputs {
		if in.Info == nil || in.Name == "" {
			continue
		}
		now, err := fs.Stat(fsys, in.Name)
		if err != nil || identityOf(now) != identityOf(in.Info) {
			return fmt.Errorf("%s: %w", in.Display, ErrInputsChanged)
		}
	}
	return nil
}

// reading is a plan of the inputs and the revision they make.
type reading struct {
	plan      *check.Plan
	opts      check.Options // what the plan was made with
	budget    check.Budget  // what checking its units may cost
	digests   digests
	revision  string
	files     []InputFile
	sources   []Source
	view      view
	served    Inputs        // the inputs under their served names (tree.go)
	source    inputSource   // where each input can be read again
	answers   *ownerAnswers // the registry's answers, digested once
	keys      [][32]byte    // each unit's key (reuse.go)
	filesKeys [][32]byte    // the part of each key that is the unit's own files
	envKey    [32]byte      // the part every key shares
	reuse     []*builtUnit  // each unit's known build, nil for a unit to check
	// resolve: each unit's known build from the same files whose registry
	// answers changed, nil for a unit reused or to check
	resolve []*builtUnit
	// close lets go of the files the reading keeps open for checkUnits to
	// read the units' files again; its caller calls it once built.
	close func()
}

// generation is a built snapshot with what the next build may reuse: the
// units it built, keyed by their inputs, and the digests of its files;
// and what is served in place of what the inputs say: the apps held at
// their last good build (hold.go), and the state directory's revision it
// was restored from.
type generation struct {
	snap      *Snapshot
	units     units
	digests   digests
	held      []HeldApp  // by app name; nil when every app is served as its files say
	rejected  *Rejection // the whole tree's check, when apps are held
	persisted *Persisted // nil unless restored from a state directory
}

// now is the time by the loader's clock.
func (l *Loader) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// build checks every unit of r that prev did not build from the same
// inputs, on up to workers goroutines, and assembles the snapshot. A check
// that finds an error is a *Rejection — unless isolate and every failing
// finding is about an app's own files: those apps are then held (hold.go)
// and the rest is served. A generation serving the snapshot prev serves
// (the same revision) is prev's snapshot with what this reading held.
func (l *Loader) build(ctx context.Context, r *reading, prev *generation, workers int, isolate bool) (*generation, error) {
	plan := r.plan
	built, next, rep, err := checkUnits(ctx, r, workers)
	if err != nil {
		return nil, err
	}
	counts := countReuse(built)
	revision, files, source := r.revision, r.files, r.source
	var held []HeldApp
	var whole *Rejection // the whole tree's check, when apps are held
	if !rep.OK {
		// An error, or under Strict a warning: the check fails, as
		// `governanced validate` would exit 1.
		rej := &Rejection{Revision: r.revision, Report: rep, counts: counts}
		for _, f := range rep.Findings {
			if failing(rep, f) {
				rej.Problems = append(rej.Problems, describe(f))
			}
		}
		if !isolate {
			return nil, rej
		}
		c, why := r.hold(built, rep, prev, l.now())
		if why != "" {
			rej.NotHeld = why
			return nil, rej
		}
		built, next, rep, revision, files, held, source = c.built, c.next, c.report, c.revision, c.files, c.held, c.source
		if prev != nil && prev.snap.Revision == revision {
			return &generation{snap: prev.snap, units: next, digests: r.digests, held: held, rejected: rej, persisted: prev.persisted}, nil
		}
		whole = rej
	}
	var apps []*App
	gi := graphInputs{workers: workers}
	if prev != nil {
		gi.prev = prev.snap.graph.g
	}
	var buildErrs []error
	for _, b := range built {
		switch {
		case b.app != nil:
			apps = append(apps, b.app)
			gi.nodes = append(gi.nodes, b.node)
			gi.reused = append(gi.reused, b.reuse || b.resolved) // the same base: the same node
		}
	}
	if len(buildErrs) > 0 {
		return nil, errors.Join(buildErrs...)
	}
	var prevSnap *Snapshot
	if prev != nil {
		prevSnap = prev.snap
	}
	snap, err := assemble(revision, files, rep, plan.Registry, plan.Placeholders, apps, gi, prevSnap, l.now())
	if err != nil {
		return nil, err
	}
	snap.counts = counts
	snap.sarifBases = r.view.sarifBases()
	snap.tree = r.tree(files, rep)
	snap.source = source
	return &generation{snap: snap, units: next, digests: r.digests, held: held, rejected: whole}, nil
}

// failing reports whether f fails rep's check: an error, or under Strict a
// warning.
func failing(rep *check.Report, f check.Finding) bool {
	return f.Severity == check.Error || rep.Strict && f.Severity == check.Warning
}

// checkUnits checks every unit of r it has no build of (reading.reuse),
// on up to workers goroutines, and reports: the units in plan order, the
// same keyed by their inputs, and the report. A unit's files' bytes are let
// go once it is built.
func checkUnits(ctx context.Context, r *reading, workers int) ([]*builtUnit, units, *check.Report, error) {
	plan := r.plan
	built := make([]*builtUnit, len(plan.Units))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	meter := check.NewMeter(r.budget, cancel)
	if w := r.budget.Workers; w > 0 && w < workers {
		workers = w
	}
	readErrs := make([]error, len(plan.Units))
	err := check.Parallel(ctx, workers, len(plan.Units), func(i int) {
		u := &plan.Units[i]
		if b := r.reuse[i]; b != nil {
			built[i] = b.reused()
			built[i].registry = r.answers.registry // which answers it as b's did
			return
		}
		if b := r.resolve[i]; b != nil {
			built[i] = resolveUnit(b, u, r.answers)
			return
		}
		if readErrs[i] = r.readUnit(u); readErrs[i] != nil {
			cancel()
			return
		}
		built[i] = buildUnit(r.keys[i], r.filesKeys[i], u, r.digests, r.answers)
		meter.Add(built[i].result.Sources, built[i].result.Values)
		u.Base.Data = nil
		for k := range u.Overlays {
			u.Overlays[k].Data = nil
		}
	})
	if err := errors.Join(readErrs...); err != nil {
		return nil, nil, nil, err // an input changed since it was hashed
	}
	if err := meter.Err(); err != nil {
		return nil, nil, nil, err
	}
	if err != nil {
		return nil, nil, nil, err
	}
	results := make([]check.UnitResult, len(built))
	next := make(units, len(built))
	for i, b := range built {
		results[i] = b.result
		next[b.key] = b
	}
	rep := plan.Report(results)
	// The units are kept for the next reload and the report is served: the
	// units' findings become the report's own.
	rep.ShareFindings(results)
	for i, b := range built {
		b.result.Findings = results[i].Findings
	}
	return built, next, rep, nil
}

// inputFiles are the inputs read, by served name and digest, in
// served-name order.
func inputFiles(inputs []check.Input, d digests) []InputFile {
	files := make([]InputFile, 0, len(inputs))
	for _, f := range inputs {
		files = append(files, InputFile{Path: f.Display, SHA256: d[f.Name].hex()})
	}
	slices.SortFunc(files, func(a, b InputFile) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(files, func(a, b InputFile) bool { return a.Path == b.Path })
}

// revisionOf hashes what the check was asked (its options, every input
// under its served name) and every input file's digest (files, in
// served-name order): a hash of the served inputs as the tree sees them.
// Two revisions are equal exactly when a build would serve the same thing,
// wherever the tree lies on the server's disk.
func revisionOf(opts check.Options, files []InputFile) string {
	h := sha256.New()
	str := func(p *string) string {
		if p == nil {
			return "\x00none"
		}
		return *p
	}
	fmt.Fprintf(h, "governanced-snapshot/3\x00paths=%q\x00overlay_dir=%q\x00overlay_name=%q\x00owners=%q\x00placeholders=%q\x00",
		opts.Paths, str(opts.OverlayDir), str(opts.OverlayName), opts.Owners, str(opts.PlaceholdersFile))
	// Options off by default are written only when on.
	for _, o := range []struct {
		on   bool
		name string
	}{{opts.Dataspace, "dataspace"}, {opts.Strict, "strict"}, {opts.NoInferFromDir, "no_infer_from_dir"}} {
		if o.on {
			h.Write([]byte(o.name + "\x00"))
		}
	}
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.SHA256)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// InputFile is one file the snapshot was built from and the hash of its bytes.
type InputFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // "" when the file does not exist or cannot be read (the check reports that)
}

// describe renders a finding as one log line: where, what, why.
func describe(f check.Finding) string {
	loc := f.File
	if loc == "" {
		loc = "-"
	} else if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	s := fmt.Sprintf("%s: %s: %s", loc, f.Severity, f.Code)
	if f.Dataset != nil {
		s += " [" + *f.Dataset + "]"
	}
	return s + ": " + f.Message
}

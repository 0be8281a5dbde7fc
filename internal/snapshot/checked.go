package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/diff"
)

// Checked is a tree checked and materialised the way Build does it, kept
// whatever its check found: one side of a diff. A unit the check could not
// materialise is listed, not built.
type Checked struct {
	Revision string
	Report   *check.Report
	Apps     []*App // the materialised units, in the order checked
	Unserved []diff.Unserved

	// Units taken from the build checked beside, and built afresh; of
	// these, Resolved were not checked again, their files being the same,
	// only their ownership names resolved against the registry again.
	Reused, Built, Resolved int

	units units
}

// Check reads and checks the inputs and materialises every unit it can,
// whether or not the check passes, on every processor. Units whose inputs
// are those of a unit of prev (nil for none) are taken from it: a head tree
// checked after its base checks only what differs.
func (l *Loader) Check(ctx context.Context, prev *Checked) (*Checked, error) {
	var known units
	if prev != nil {
		known = prev.units
	}
	return l.check(ctx, known, runtime.GOMAXPROCS(0))
}

func (l *Loader) check(ctx context.Context, known units, workers int) (*Checked, error) {
	r, err := l.read(ctx, nil, known, nil)
	if err != nil {
		return nil, err
	}
	defer r.close()
	built, next, rep, err := checkUnits(ctx, r, workers)
	if err != nil {
		return nil, err
	}
	c := &Checked{Revision: r.revision, Report: rep, units: next}
	counts := countReuse(built)
	c.Reused, c.Built, c.Resolved = counts.reused, counts.built, counts.resolved
	var buildErrs []error
	for i, b := range built {
		switch {
		case b.app != nil:
			c.Apps = append(c.Apps, b.app)
		default:
			u := &r.plan.Units[i]
			c.Unserved = append(c.Unserved, diff.Unserved{App: appNameOf(u), File: u.Base.Display})
		}
	}
	if len(buildErrs) > 0 {
		return nil, errors.Join(buildErrs...)
	}
	return c, nil
}

// Tree is the checked tree as a diff reads it; root is how the tree was
// named, for people ("" for nothing).
func (c *Checked) Tree(root string) diff.Tree {
	return diff.Tree{Revision: c.Revision, Root: root, Apps: diffApps(c.Apps), Unserved: c.Unserved, Report: c.Report}
}

// Tree is the served tree as a diff reads it.
func (s *Snapshot) Tree() diff.Tree {
	return diff.Tree{Revision: s.Revision, Apps: diffApps(s.apps), Report: s.report}
}

func diffApps(apps []*App) []diff.App {
	out := make([]diff.App, len(apps))
	for i, a := range apps {
		out[i] = diff.App{Name: a.Name, File: a.File, OverlayFile: a.OverlayFile, Config: a.Config}
	}
	return out
}

// Errors of CheckUpload.
var (
	// ErrNotServing: nothing is served yet to check an upload beside.
	ErrNotServing = errors.New("no tree is being served yet")
	// ErrSeveralTrees: the served tree has several roots, so one upload
	// cannot stand in for it.
	ErrSeveralTrees = errors.New("the served tree has several roots; one upload cannot stand in for them")
)

// CheckUpload checks upload as the tree a reload would serve if upload were
// the served tree's root: the same options, the files the served inputs
// name inside the root read from upload, those outside it (an owners
// registry, a placeholder map, an overlay directory elsewhere) from where
// the server reads them. Files are named as the served tree names its own,
// so the units whose inputs did not change are taken from the served build
// rather than checked again, and the findings of the two trees can be
// matched. Nothing is swapped in. It returns the snapshot it was checked
// beside. budget bounds the check, as a validation's (a *check.BudgetError
// over it).
func (s *Store) CheckUpload(ctx context.Context, upload fs.FS, budget check.Budget) (*Snapshot, *Checked, error) {
	g := s.cur.Load()
	if g == nil {
		return nil, nil, ErrNotServing
	}
	l := s.loader
	if len(l.Inputs.Trees) != 1 {
		return nil, nil, ErrSeveralTrees
	}
	head := &Loader{Inputs: l.Inputs, Now: l.Now, Rooted: l.Rooted, Budget: budget}
	switch {
	case l.FS == nil || l.Rooted:
		at, err := l.Inputs.rootedName(l.Inputs.Trees[0])
		if err != nil {
			return nil, nil, err
		}
		base := l.FS
		if base == nil {
			// What the upload does not stand in for is read as a reload
			// reads it: nothing outside the overlay directory (contain.go).
			files, closeFiles := l.Inputs.openFiles()
			defer closeFiles()
			base = files
		}
		head.FS, head.Rooted = &mountFS{base: base, at: at, upper: upload}, true
	default:
		at := path.Join(l.Inputs.Dir, l.Inputs.Trees[0])
		if !fs.ValidPath(at) {
			return nil, nil, fmt.Errorf("the served tree %q is not a name in its file system", at)
		}
		head.FS = &mountFS{base: l.FS, at: at, upper: upload}
	}
	workers := runtime.GOMAXPROCS(0)
	if s.opts.Workers > 0 {
		workers = s.opts.Workers
	}
	c, err := head.check(ctx, g.units, workers)
	if err != nil {
		return nil, nil, err
	}
	return g.snap, c, nil
}

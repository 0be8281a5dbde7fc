package snapshot

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/celine-eu/governanced/internal/check"
)

// Held apps (StoreOptions.IsolateApps). A reload whose check fails only in
// findings about some apps' own files — a base or an overlay a unit takes
// — serves every other app as its files say, and each failing app as its
// last good build: the build the snapshot being served holds for the same
// base (ADR-0004's reuse: its unit is taken whole, never checked again),
// or nothing when it has none. Any other failing finding (the owners
// registry, the placeholder map, the paths, the overlay directory, an
// overlay no app takes) rejects the reload as a whole, as without
// isolation.
//
// What is served is itself a tree: the files read, each failing app's
// replaced by those of its last good build, or removed with the overlays
// beside it when it has none. Its revision is that tree's (revisionOf),
// its report the check's of it (check.Plan.ReportOf), and its Tree those
// files, so a state directory keeping it rebuilds the same revision from
// them; the tests hold every such snapshot to a fresh build of those files
// (TestHeldApps).
//
// A held app's build read the shared inputs (the placeholder map,
// --dataspace, the registry's answers about its owners) as they were: when
// those changed, that build is not what its files would serve now, and the
// reload is rejected rather than hold it.

// HeldApp is an app whose files fail the check while the rest of the tree
// is served.
type HeldApp struct {
	App  string // the app's name
	File string // its base's served name
	// Since is when the first reload that held it (of an unbroken series)
	// started.
	Since time.Time
	// Problems are its failing findings, one line each, as
	// Rejection.Problems states them.
	Problems []string
	// Served are the files of the build it serves, by served name and
	// hash: its last good ones. Nil when it never passed the check since
	// the server started, and is not served at all.
	Served []InputFile
}

// composite is what a reload serves when it holds apps.
type composite struct {
	built    []*builtUnit // in plan order, held apps at their last good build
	next     units
	report   *check.Report
	revision string
	files    []InputFile
	held     []HeldApp
	source   inputSource
}

// hold is the tree r serves with the apps whose files fail the check held
// (built and rep are r's units and report, prev the generation being
// served, now when the reload started), or why it cannot be served so.
func (r *reading) hold(built []*builtUnit, rep *check.Report, prev *generation, now time.Time) (*composite, string) {
	problems, why := r.problems(built, rep)
	if why != "" {
		return nil, why
	}
	c := &composite{}
	t := holding{removed: map[string]bool{}, absent: map[string]bool{}}
	if why := r.takeUnits(c, &t, built, problems, prev, now); why != "" {
		return nil, why
	}
	if why := r.servesEveryTree(c); why != "" {
		return nil, why
	}
	unpaired := r.unpaired(&t)
	c.files = slices.DeleteFunc(slices.Clone(r.files), func(f InputFile) bool { return t.removed[f.Path] })
	c.files = append(c.files, t.added...)
	slices.SortFunc(c.files, func(a, b InputFile) int { return strings.Compare(a.Path, b.Path) })
	c.files = slices.CompactFunc(c.files, func(a, b InputFile) bool { return a.Path == b.Path })
	c.revision = revisionOf(r.opts, c.files)
	if why := r.reportHeld(c, unpaired); why != "" {
		return nil, why
	}
	// The held apps' last good files are not where the reading read
	// their names.
	c.source = inputSource{fsys: r.source.fsys, names: maps.Clone(r.source.names)}
	for p := range t.removed {
		delete(c.source.names, p)
	}
	slices.SortFunc(c.held, func(a, b HeldApp) int { return strings.Compare(a.App, b.App) })
	return c, ""
}

// holding is what holding the failing apps takes out of the files read
// and puts in.
type holding struct {
	removed map[string]bool // the failing apps' files
	added   []InputFile     // their last good builds' files
	absent  map[string]bool // the directories of the failing apps served by nothing
}

// problems are the failing findings of each unit they are about, by the
// unit's place in built, or why some failing finding is about no one app's
// files.
func (r *reading) problems(built []*builtUnit, rep *check.Report) (map[int][]string, string) {
	// The units a failing finding is about: those whose results hold it,
	// by the files they take.
	owner := map[string][]int{}
	for i, b := range built {
		if !slices.ContainsFunc(b.result.Findings, func(f check.Finding) bool { return failing(rep, f) }) {
			continue
		}
		u := &r.plan.Units[i]
		owner[u.Base.Display] = append(owner[u.Base.Display], i)
		for _, o := range u.Overlays {
			owner[o.Display] = append(owner[o.Display], i)
		}
	}
	problems := map[int][]string{}
	for _, f := range rep.Findings {
		if !failing(rep, f) {
			continue
		}
		us := owner[f.File]
		if len(us) == 0 {
			return nil, fmt.Sprintf("%q is not about one app's files", describe(f))
		}
		for _, i := range us {
			problems[i] = append(problems[i], describe(f))
		}
	}
	return problems, ""
}

// takeUnits puts into c every unit of built that passes, and for each that
// fails (problems) the build prev serves of its base, if any, noting what
// that takes out of the files read and puts in.
func (r *reading) takeUnits(c *composite, t *holding, built []*builtUnit, problems map[int][]string, prev *generation, now time.Time) string {
	// What the snapshot being served serves of each base, and since when
	// it holds the apps it holds.
	good := map[string]*builtUnit{}
	wasHeld := map[string]time.Time{}
	if prev != nil {
		for _, b := range prev.units {
			if b.app != nil {
				good[b.app.File] = b
			}
		}
		for _, h := range prev.held {
			wasHeld[h.File] = h.Since
		}
	}
	for i, b := range built {
		ps, fails := problems[i]
		if !fails {
			c.built = append(c.built, b)
			continue
		}
		u := &r.plan.Units[i]
		t.removed[u.Base.Display] = true
		for _, o := range u.Overlays {
			t.removed[o.Display] = true
		}
		h := HeldApp{App: appNameOf(u), File: u.Base.Display, Since: now, Problems: ps}
		if since, ok := wasHeld[h.File]; ok {
			h.Since = since
		}
		if g := good[h.File]; g != nil {
			if joinKeys(g.filesKey, r.envKey) != g.key || !r.answers.same(g) {
				return fmt.Sprintf("%s fails its check, and its last good build read the owners registry, the placeholder map or --dataspace as they no longer are: held, it would not serve what its last good files say", h.File)
			}
			c.built = append(c.built, g.reused())
			t.added = append(t.added, g.files...)
			h.Served = g.files
		} else {
			t.absent[path.Dir(u.Base.Display)] = true
		}
		c.held = append(c.held, h)
	}
	return ""
}

// servesEveryTree says why c cannot be served when no app of it, or of one
// of the trees, passes its check.
func (r *reading) servesEveryTree(c *composite) string {
	if len(c.built) == 0 {
		return "no app passes its check"
	}
	for _, t := range r.view.trees {
		if !slices.ContainsFunc(c.built, func(b *builtUnit) bool { _, in := within(t, b.app.File); return in }) {
			return fmt.Sprintf("no app of the tree %s passes its check", t)
		}
	}
	return ""
}

// unpaired are the overlays no base takes that stay: an app served by
// nothing takes with it the overlays beside its base, which no other base
// finds there.
func (r *reading) unpaired(t *holding) []check.File {
	var unpaired []check.File
	for _, o := range r.plan.Unpaired {
		if d := path.Dir(o.Display); t.absent[d] && d != r.view.overlayDir {
			t.removed[o.Display] = true
			continue
		}
		unpaired = append(unpaired, o)
	}
	return unpaired
}

// reportHeld is the check's report of c's units and the overlays unpaired
// that stay, or why c still fails it.
func (r *reading) reportHeld(c *composite, unpaired []check.File) string {
	results := make([]check.UnitResult, len(c.built))
	overlays := map[string]bool{}
	c.next = make(units, len(c.built))
	for i, b := range c.built {
		results[i] = b.result
		if b.result.Overlay != "" {
			overlays[b.result.Overlay] = true
		}
		c.next[b.key] = b
	}
	c.report = r.plan.ReportOf(results, unpaired, len(overlays)+len(unpaired))
	for _, f := range c.report.Findings {
		if failing(c.report, f) {
			return fmt.Sprintf("without the apps that fail, the tree still fails its check: %s", describe(f))
		}
	}
	return ""
}

package snapshot

import (
	"path"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/search"
)

// newApp is one served app, from a unit the check materialised: a dataset
// per sources key, with what the listing filters read worked out once, and
// the app's search index. An app holds nothing of the snapshot it is built
// for (not even its revision) and nothing the owners registry says (a
// search reads the registry's words for the owners it names when it
// runs), so a reload that reuses the unit, or only resolves its owners
// again with the same result, serves the same app.
func newApp(u *check.Unit, res *check.UnitResult) *App {
	cfg := res.Config
	name := appNameOf(u)
	a := &App{Name: name, File: u.Base.Display, OverlayFile: res.Overlay, Config: cfg}
	// Resolution builds the config's index lazily; build it now, while the
	// snapshot is still private, so concurrent readers never write.
	cfg.Source("")
	n := len(cfg.Sources)
	a.datasets = make([]Dataset, n+1) // the app's datasets and its defaults
	for i, src := range cfg.Sources {
		var served check.ServedRule
		if len(res.Served) == n {
			served = res.Served[i] // the check merged the rule already
		} else {
			// Not Config.Resolve: it would cache every merged rule for
			// the snapshot's lifetime.
			served = servedRule(governance.MergeRules(cfg.Defaults, src.Rule))
		}
		initDataset(&a.datasets[i], a, i, served, governance.HasMeta(src.Key))
	}
	initDataset(&a.datasets[n], a, -1, servedRule(cfg.Defaults), false)
	a.search = search.NewIndex(name, cfg)
	return a
}

// servedRule is what a dataset keeps of the rule it serves.
func servedRule(r *governance.Rule) check.ServedRule {
	return check.ServedRule{Expose: governance.EffectiveExpose(r), DataspaceExpose: governance.DataspaceExpose(r),
		Conflict: governance.ExposureConflict(r), Classification: r.Classification, AccessLevel: r.AccessLevel}
}

// appNameOf is the name a unit is served under: its app name, or for a tree
// root named as "." (its governance.yaml with no directory in its display
// path) the directory's own name.
func appNameOf(u *check.Unit) string {
	if u.App != "" {
		return u.App
	}
	return path.Base(path.Dir("/" + u.Base.Name))
}

// servedOf is what each of a's datasets serves, as the check worked it
// out for the unit a was built from (check.UnitResult.Served).
func servedOf(a *App) []check.ServedRule {
	out := make([]check.ServedRule, a.DatasetCount())
	for i := range out {
		d := a.Dataset(i)
		out[i] = check.ServedRule{Expose: d.Expose, DataspaceExpose: d.DataspaceExpose, Conflict: d.Conflict(),
			Classification: d.classification(), AccessLevel: d.accessLevel()}
	}
	return out
}

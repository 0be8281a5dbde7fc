package diff

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

// Compare lists what changes from base to head. It reads the trees only, so
// it may run while they are being served. The error is a tree that cannot
// be compared (an app name held twice) or the context's.
func Compare(ctx context.Context, base, head Tree) (*Report, error) {
	bApps, err := index(base, "base")
	if err != nil {
		return nil, err
	}
	hApps, err := index(head, "head")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(bApps)+len(hApps))
	for n := range bApps {
		names = append(names, n)
	}
	for n := range hApps {
		if _, ok := bApps[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)

	type result struct {
		app      *AppChange
		datasets []DatasetChange
		err      error
	}
	results := make([]result, len(names))
	err = check.Parallel(ctx, runtime.GOMAXPROCS(0), len(names), func(i int) {
		r := &results[i]
		r.app, r.datasets, r.err = compareApp(names[i], bApps[names[i]], hApps[names[i]])
	})
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Version:  ReportVersion,
		Base:     describe(base),
		Head:     describe(head),
		Apps:     []AppChange{},
		Datasets: []DatasetChange{},
	}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		if r.app != nil {
			rep.Apps = append(rep.Apps, *r.app)
		}
		rep.Datasets = append(rep.Datasets, r.datasets...)
	}
	rep.Findings = compareFindings(base.Report, head.Report)
	rep.count()
	return rep, nil
}

// entry is an app as one side holds it: materialised, or not.
type entry struct {
	app      *App
	unserved *Unserved
}

func index(t Tree, side string) (map[string]entry, error) {
	m := make(map[string]entry, len(t.Apps)+len(t.Unserved))
	twice := func(name, a, b string) error {
		return fmt.Errorf("the %s tree holds app %q twice (%s and %s): no server would serve it, and its datasets cannot be told apart", side, name, a, b)
	}
	for i := range t.Apps {
		a := &t.Apps[i]
		if prev, dup := m[a.Name]; dup {
			return nil, twice(a.Name, prev.file(), a.File)
		}
		m[a.Name] = entry{app: a}
	}
	for i := range t.Unserved {
		u := &t.Unserved[i]
		if prev, dup := m[u.App]; dup {
			return nil, twice(u.App, prev.file(), u.File)
		}
		m[u.App] = entry{unserved: u}
	}
	return m, nil
}

func (e entry) file() string {
	if e.app != nil {
		return e.app.File
	}
	if e.unserved != nil {
		return e.unserved.File
	}
	return ""
}

func (e entry) exists() bool { return e.app != nil || e.unserved != nil }

func describe(t Tree) Side {
	s := Side{Revision: t.Revision, Root: t.Root, OK: true, Apps: len(t.Apps)}
	for _, a := range t.Apps {
		s.Datasets += len(a.Config.Sources)
	}
	if t.Report != nil {
		s.Errors, s.Warnings = t.Report.Summary.Errors, t.Report.Summary.Warnings
		s.OK = t.Report.OK // under --strict a warning fails it too
	}
	return s
}

// compareApp compares one app as the two sides hold it.
func compareApp(name string, b, h entry) (*AppChange, []DatasetChange, error) {
	switch {
	case b.unserved != nil || h.unserved != nil:
		ac := &AppChange{App: name, Status: AppUnresolved, File: h.file()}
		switch {
		case b.unserved != nil && h.unserved != nil:
			ac.Unresolved = "both"
		case b.unserved != nil:
			ac.Unresolved = "base"
		default:
			ac.Unresolved = "head"
		}
		if ac.File == "" {
			ac.File = b.file()
		}
		return ac, nil, nil
	case !b.exists():
		ds, err := compareConfigs(name, nil, h.app.Config)
		return &AppChange{App: name, Status: AppAdded, File: h.app.File}, ds, err
	case !h.exists():
		ds, err := compareConfigs(name, b.app.Config, nil)
		return &AppChange{App: name, Status: AppRemoved, File: b.app.File}, ds, err
	case b.app.Config == h.app.Config:
		return nil, nil, nil // the same unit, reused: nothing to look at
	}
	ds, err := compareConfigs(name, b.app.Config, h.app.Config)
	return nil, ds, err
}

// compareConfigs compares every key of either configuration (nil: the app
// is not on that side), each name resolved inside its app on both sides.
func compareConfigs(app string, b, h *governance.Config) ([]DatasetChange, error) {
	var names []string
	seen := map[string]bool{}
	for _, c := range []*governance.Config{h, b} {
		if c == nil {
			continue
		}
		for _, s := range c.Sources {
			if !seen[s.Key] {
				seen[s.Key] = true
				names = append(names, s.Key)
			}
		}
	}
	var out []DatasetChange
	for _, name := range names {
		d, err := compareName(app, name, b, h)
		if err != nil {
			return nil, err
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	slices.SortFunc(out, func(x, y DatasetChange) int { return strings.Compare(x.Dataset, y.Dataset) })
	return out, nil
}

// resolved is a name resolved in one side's app.
type resolved struct {
	side
	res *Resolution
}

// resolve resolves name in c (nil: the app is absent) without keeping the
// merged rule in c: a served configuration is not to be written to.
func resolve(c *governance.Config, name string) *resolved {
	if c == nil {
		return nil
	}
	i, m := c.LookupIndex(name)
	if i < 0 {
		return nil
	}
	src := &c.Sources[i]
	return &resolved{
		side: side{rule: governance.MergeRules(c.Defaults, src.Rule)},
		res:  &Resolution{Match: Match{Kind: m.Kind.String(), Pattern: m.Pattern}, File: c.SourceFile(i), Line: int(src.Line), Column: int(src.Column)},
	}
}

// compareName compares what name resolves to in its app on both sides; nil
// when the resolved rules are the same value.
func compareName(app, name string, b, h *governance.Config) (*DatasetChange, error) {
	br, hr := resolve(b, name), resolve(h, name)
	d := &DatasetChange{App: app, Dataset: name, Pattern: governance.HasMeta(name), Kinds: []Kind{}, Derived: []Derived{}, Fields: []FieldChange{}}
	switch {
	case br == nil && hr == nil:
		return nil, nil
	case br == nil:
		d.Status, d.Head, d.Rule = Added, hr.res, ruleJSON(hr.rule)
		d.Derived = deriveWhole(&hr.side, true)
		d.Kinds = append(d.Kinds, DatasetAdded)
	case hr == nil:
		d.Status, d.Base, d.Rule = Removed, br.res, ruleJSON(br.rule)
		d.Derived = deriveWhole(&br.side, false)
		d.Kinds = append(d.Kinds, DatasetRemoved)
	default:
		bj, hj := ruleJSON(br.rule), ruleJSON(hr.rule)
		if bytes.Equal(bj, hj) {
			return nil, nil
		}
		fields, err := fieldChanges(bj, hj, nil)
		if err != nil {
			return nil, fmt.Errorf("app %s, dataset %s: %w", app, name, err)
		}
		if len(fields) == 0 {
			return nil, nil // the same value written otherwise
		}
		bp, hp := br.provenance(), hr.provenance()
		for i := range fields {
			fields[i].Origin, fields[i].BaseOrigin = hp.at(fields[i].Path), bp.at(fields[i].Path)
		}
		d.Status, d.Base, d.Head, d.Fields = Changed, br.res, hr.res, fields
		d.Derived = deriveChanged(&br.side, &hr.side)
		d.Kinds = append(d.Kinds, FieldChanged)
	}
	if d.Derived == nil {
		d.Derived = []Derived{}
	}
	for _, x := range d.Derived {
		if !slices.Contains(d.Kinds, x.Kind) {
			d.Kinds = append(d.Kinds, x.Kind)
		}
	}
	slices.SortFunc(d.Kinds, func(x, y Kind) int { return slices.Index(Kinds, x) - slices.Index(Kinds, y) })
	return d, nil
}

func ruleJSON(r *governance.Rule) []byte {
	var buf bytes.Buffer
	r.AppendJSON(&buf)
	return buf.Bytes()
}

// count fills in Kinds.
func (r *Report) count() {
	n := map[Kind]int{}
	for _, d := range r.Datasets {
		for _, k := range d.Kinds {
			n[k]++
		}
	}
	for _, f := range r.Findings.Added {
		switch f.Severity {
		case check.Error:
			n[NewError]++
		case check.Warning:
			n[NewWarning]++
		}
	}
	r.Kinds = []KindCount{}
	for _, k := range Kinds {
		if n[k] > 0 {
			r.Kinds = append(r.Kinds, KindCount{Kind: k, Count: n[k], Risky: k.Risky()})
		}
	}
}

// compareFindings lists the errors and warnings head has beyond base's, and
// base's beyond head's, matched by findingKey.
func compareFindings(base, head *check.Report) Findings {
	b, h := findingsOf(base), findingsOf(head)
	return Findings{Added: beyond(h, b), Resolved: beyond(b, h)}
}

// beyond is the findings of fs that others does not hold as often, matched
// by findingKey, in fs's order; empty rather than nil.
func beyond(fs, others []check.Finding) []check.Finding {
	out := []check.Finding{}
	count := map[string]int{}
	for _, f := range others {
		count[findingKey(f)]++
	}
	for _, f := range fs {
		k := findingKey(f)
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, f)
	}
	return out
}

// findingsOf are a report's errors and warnings.
func findingsOf(r *check.Report) []check.Finding {
	if r == nil {
		return nil
	}
	var out []check.Finding
	for _, f := range r.Findings {
		if f.Severity == check.Error || f.Severity == check.Warning {
			out = append(out, f)
		}
	}
	return out
}

// findingKey is a finding's identity across two trees: what it says and
// where, but not its line, column or message, which move when unrelated
// lines do.
func findingKey(f check.Finding) string {
	opt := func(p *string) string {
		if p == nil {
			return "\x01"
		}
		return "\x02" + *p
	}
	return strings.Join([]string{string(f.Severity), f.Code, f.File, opt(f.Path()), opt(f.Dataset), opt(f.Subject)}, "\x00")
}

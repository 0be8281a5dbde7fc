package diff

import (
	"fmt"
	"slices"
	"strings"
)

// group is one change many datasets of an app share: the same kind or
// field, the same old and new value, stated at the same place. A one-line
// edit of an app's defaults changes every dataset inheriting the field;
// shown grouped, it reads as the one change it is.
type group struct {
	kind     Kind
	field    string
	old, new string
	where    string
	app      string
	// file and line are the head statement's, for an annotation; "" and
	// 0 when the head states nothing there.
	file     string
	line     int
	datasets []string
}

type groupKey struct {
	kind                        Kind
	field, old, new, where, app string
	file                        string
	line                        int
}

// grouper collects groups in the order first met.
type grouper struct {
	index  map[groupKey]int
	groups []*group
}

func (g *grouper) add(k groupKey, dataset string) {
	if g.index == nil {
		g.index = map[groupKey]int{}
	}
	i, ok := g.index[k]
	if !ok {
		i = len(g.groups)
		g.index[k] = i
		g.groups = append(g.groups, &group{kind: k.kind, field: k.field, old: k.old, new: k.new, where: k.where, app: k.app, file: k.file, line: k.line})
	}
	g.groups[i].datasets = append(g.groups[i].datasets, dataset)
}

// derivedGroups groups the derived changes whose kind keep selects, in
// report order of their kinds.
func (r *Report) derivedGroups(keep func(Kind) bool) []*group {
	var g grouper
	for i := range r.Datasets {
		d := &r.Datasets[i]
		for j := range d.Derived {
			x := &d.Derived[j]
			if !keep(x.Kind) {
				continue
			}
			k := groupKey{kind: x.Kind, field: x.Field, old: x.Old, new: x.New, where: r.where(d, x.Origin, x.BaseOrigin), app: d.App}
			switch {
			case x.Origin != nil:
				k.file, k.line = x.Origin.File, x.Origin.Line
			case d.Head != nil:
				k.file, k.line = d.Head.File, d.Head.Line
			}
			g.add(k, d.Dataset)
		}
	}
	slices.SortStableFunc(g.groups, func(a, b *group) int { return slices.Index(Kinds, a.kind) - slices.Index(Kinds, b.kind) })
	return g.groups
}

// names lists the group's datasets for a sentence, the first few and how
// many more.
func (g *group) names() string {
	n := min(len(g.datasets), groupNames)
	s := strings.Join(g.datasets[:n], ", ")
	if more := len(g.datasets) - n; more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	if len(g.datasets) > 1 {
		return fmt.Sprintf("%d datasets of %s (%s)", len(g.datasets), g.app, s)
	}
	return g.app + " / " + s
}

// fieldGroups groups the field changes, values as a table shows them.
func (r *Report) fieldGroups() []*group {
	var g grouper
	for i := range r.Datasets {
		d := &r.Datasets[i]
		for j := range d.Fields {
			f := &d.Fields[j]
			g.add(groupKey{field: f.Field, old: value(f.Old, markdownValue), new: value(f.New, markdownValue), where: r.where(d, f.Origin, f.BaseOrigin), app: d.App}, d.Dataset)
		}
	}
	return g.groups
}

package dbt

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/sqlparse"
)

// Graph is the column lineage of one dbt project (a manifest and its
// catalog), for the impact question of seed 004: what happens if this column
// changes, and where does it come from.
type Graph struct {
	b  *builder
	ls *lineageSide
	// Warnings are about the whole project (an adapter without a parser);
	// a model whose lineage is unavailable is named in the answers that
	// meet it.
	Warnings []string
}

// NewGraph analyses every model and snapshot of the manifest (in parallel,
// each parsed once, each within lineage.DefaultBudget). cat may be nil: then
// `select *` cannot be expanded and names are trusted as written. It stops
// early with ctx's error when ctx ends.
func NewGraph(ctx context.Context, m *Manifest, cat *Catalog, parallelism int) (*Graph, error) {
	s := newSide(m, cat)
	b := &builder{base: s, head: s, modelReach: map[reachKey]*walked{}}
	b.nameNodes()
	ls := newLineageSide(s)
	var uids []string
	for uid, n := range s.relations {
		if n.ResourceType != "seed" {
			uids = append(uids, uid)
		}
	}
	sort.Strings(uids)
	if err := analyse(ctx, map[*lineageSide][]string{ls: uids}, parallelism, lineage.Budget{}); err != nil {
		return nil, err
	}
	g := &Graph{b: b, ls: ls}
	if !ls.dialectOK {
		g.Warnings = append(g.Warnings, fmt.Sprintf("adapter %q has no SQL parser (known: %s): no model's lineage is known", m.AdapterType, strings.Join(sqlparse.Dialects(), ", ")))
	}
	return g, nil
}

// Node looks a model, snapshot or seed up by its changeset name
// (customers, customers.v2), its plain name or its unique_id.
func (g *Graph) Node(name string) (string, error) {
	want := strings.ToLower(name)
	var found []string
	for uid, n := range g.ls.relations {
		if uid == name || g.b.names[uid] == want {
			return uid, nil
		}
		if strings.ToLower(n.Name) == want {
			found = append(found, uid)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no model, snapshot or seed is named %q", name)
	}
	names := make([]string, len(found))
	for i, uid := range found {
		names[i] = g.b.nameOf(uid)
	}
	return "", fmt.Errorf("%q names several nodes (%s): give the versioned name or the unique_id", name, strings.Join(names, ", "))
}

// Columns are the node's columns as level 2 knows them.
func (g *Graph) Columns(uid string) []string {
	cols, _ := g.ls.columnSet(uid)
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// ImpactEdge is one step of lineage: From's value reaches To by Mechanism.
// To is a model (Column "") for a row-set dependency.
type ImpactEdge struct {
	FromModel  string `json:"from_model"`
	FromColumn string `json:"from_column"`
	ToModel    string `json:"to_model"`
	ToColumn   string `json:"to_column,omitempty"`
	Mechanism  string `json:"mechanism"`
}

// Impact is the answer for one column, downstream (what it reaches) or
// upstream (what it is made of).
type Impact struct {
	Model     string `json:"model"`
	Column    string `json:"column"`
	Direction string `json:"direction"`
	// Reach is the column's downstream reach exactly as a level-2
	// changeset carries it (downstream only).
	Reach *policy.Reach `json:"reach,omitempty"`
	Edges []ImpactEdge  `json:"edges"`
	Notes []string      `json:"notes,omitempty"`
}

// Downstream answers "what happens if I change this column?": every model
// and column it reaches, each with its mechanism, and the edges between
// them.
func (g *Graph) Downstream(uid, column string) (*Impact, error) {
	imp, l2, err := g.newImpact(uid, column, "downstream")
	if err != nil {
		return nil, err
	}
	w := l2.walkEdges(g.ls, uid, imp.Column, false, func(from colKey, to colKey, mech string) {
		imp.Edges = append(imp.Edges, ImpactEdge{FromModel: g.b.nameOf(from.uid), FromColumn: from.col,
			ToModel: g.b.nameOf(to.uid), ToColumn: to.col, Mechanism: mech})
	})
	imp.Reach = &w.reach
	if w.reach.ColumnsComplete != nil && !*w.reach.ColumnsComplete {
		imp.Notes = append(imp.Notes, "some models below could not be analysed: their reach is unknown, and the column list is a lower bound")
	}
	sortEdges(imp.Edges)
	return imp, nil
}

// Upstream answers "where does this column come from?": its sources, their
// sources, and so on, each edge with the mechanism by which the source
// reaches the column.
func (g *Graph) Upstream(uid, column string) (*Impact, error) {
	imp, _, err := g.newImpact(uid, column, "upstream")
	if err != nil {
		return nil, err
	}
	seen := map[colKey]bool{}
	queue := []colKey{{uid, imp.Column}}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if seen[k] {
			continue
		}
		seen[k] = true
		ml := g.ls.models[k.uid]
		if ml == nil {
			continue // a seed or a source: the lineage starts here
		}
		if !ml.analysed() {
			imp.Notes = append(imp.Notes, fmt.Sprintf("%s: lineage unavailable (%s)", g.b.nameOf(k.uid), ml.reason))
			continue
		}
		var srcs []colKey
		for s := range ml.cols[k.col] {
			srcs = append(srcs, s)
		}
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].uid+"."+srcs[i].col < srcs[j].uid+"."+srcs[j].col })
		for _, s := range srcs {
			imp.Edges = append(imp.Edges, ImpactEdge{FromModel: g.nodeName(s.uid), FromColumn: s.col,
				ToModel: g.b.nameOf(k.uid), ToColumn: k.col, Mechanism: ml.cols[k.col][s].String()})
			queue = append(queue, s)
		}
		if col := ml.res.Column(k.col); col != nil {
			for _, s := range col.Sources() {
				if g.ls.nodeOf(s.Relation) == "" && !s.Relation.IsZero() {
					imp.Notes = append(imp.Notes, fmt.Sprintf("%s.%s reads %s, which is not in the manifest", g.b.nameOf(k.uid), k.col, s))
				}
			}
		}
	}
	sortEdges(imp.Edges)
	sort.Strings(imp.Notes)
	return imp, nil
}

// newImpact is the impact of uid's column (any case) in a direction, with
// no edges yet, and the column-level reading that knows the column; an
// error naming the columns uid has when it has no such one.
func (g *Graph) newImpact(uid, column, direction string) (*Impact, *level2, error) {
	column = strings.ToLower(column)
	l2 := newLevel2(context.Background(), g.b, g.ls, g.ls)
	if !l2.columnKnown(g.ls, uid, column) {
		return nil, nil, fmt.Errorf("%s has no column %q (known: %s)", g.b.nameOf(uid), column, strings.Join(g.Columns(uid), ", "))
	}
	return &Impact{Model: g.b.nameOf(uid), Column: column, Direction: direction, Edges: []ImpactEdge{}}, l2, nil
}

// nodeName names a node for output: a relation's changeset name, a
// source as source.name.
func (g *Graph) nodeName(uid string) string {
	if g.ls.m.Sources[uid] != nil {
		return sourceName(uid)
	}
	return g.b.nameOf(uid)
}

func sortEdges(e []ImpactEdge) {
	sort.Slice(e, func(i, j int) bool {
		a, b := e[i], e[j]
		for _, p := range [][2]string{{a.FromModel, b.FromModel}, {a.FromColumn, b.FromColumn}, {a.ToModel, b.ToModel}, {a.ToColumn, b.ToColumn}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return a.Mechanism < b.Mechanism
	})
}

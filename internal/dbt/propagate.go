package dbt

import (
	"context"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/propagate"
)

// Propagation is the project's column lineage as package propagate reads
// it: every model, snapshot, seed and source, by dataset id
// (database.schema.alias, as --governance looks a model's rule up), each
// analysed model with its columns' inputs and predicate columns.
func (g *Graph) Propagation() *propagate.Graph {
	pg, _ := g.ls.propagationGraph(g.nodeName)
	return pg
}

// propagationGraph builds the side's propagate.Graph, and the index of
// each unique_id in it. A model or snapshot whose lineage was not read, or
// could not be, is Opaque.
func (ls *lineageSide) propagationGraph(name func(uid string) string) (*propagate.Graph, map[string]int) {
	var uids []string
	for uid := range ls.relations {
		uids = append(uids, uid)
	}
	for uid := range ls.m.Sources {
		if _, dup := ls.relations[uid]; !dup {
			uids = append(uids, uid)
		}
	}
	sort.Strings(uids)
	index := make(map[string]int, len(uids))
	for i, uid := range uids {
		index[uid] = i
	}
	g := &propagate.Graph{Relations: make([]*propagate.Relation, len(uids))}
	for i, uid := range uids {
		r := &propagate.Relation{Name: name(uid)}
		g.Relations[i] = r
		if src := ls.m.Sources[uid]; src != nil {
			r.Name, r.Key = sourceName(uid), sourceDataset(src)
			continue // an Origin
		}
		n := ls.relations[uid]
		r.Key, r.File = n.Relation(), n.OriginalFilePath
		if n.ResourceType == "seed" {
			continue
		}
		ml := ls.models[uid]
		switch {
		case ml == nil:
			r.Kind, r.Reason = propagate.Opaque, "lineage not read"
		case !ml.analysed():
			r.Kind, r.Reason = propagate.Opaque, ml.reason
		default:
			r.Kind = propagate.Derived
			r.Columns, r.RowInputs = ls.propagationColumns(ml, index)
		}
	}
	return g, index
}

// propagationColumns are an analysed model's columns with their inputs
// (sorted by unique_id and column), and its predicate columns.
func (ls *lineageSide) propagationColumns(ml *modelLineage, index map[string]int) ([]*propagate.Column, []propagate.Ref) {
	cols := make([]*propagate.Column, 0, len(ml.order))
	for _, name := range ml.order {
		c := ml.res.Column(name)
		col := &propagate.Column{Name: name}
		through, known := c.Through()
		type acc struct{ through []string }
		inputs := map[colKey]*acc{}
		for _, s := range c.Sources() {
			uid := ls.nodeOf(s.Relation)
			if uid == "" {
				continue
			}
			k := colKey{uid, s.Column}
			// Two names of one node: what both readings pass through.
			if a, ok := inputs[k]; ok {
				a.through = intersectSorted(a.through, through[s.Source])
			} else {
				inputs[k] = &acc{through: through[s.Source]}
			}
		}
		keys := make([]colKey, 0, len(inputs))
		for k := range inputs {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].uid != keys[j].uid {
				return keys[i].uid < keys[j].uid
			}
			return keys[i].col < keys[j].col
		})
		for _, k := range keys {
			col.Inputs = append(col.Inputs, propagate.Input{Ref: propagate.Ref{Relation: index[k.uid], Column: k.col},
				Mechanism: ml.cols[name][k], Through: inputs[k].through, ThroughKnown: known})
		}
		cols = append(cols, col)
	}
	var rows []propagate.Ref
	seen := map[colKey]bool{}
	for _, s := range ml.res.PredicateColumns {
		uid := ls.nodeOf(s.Relation)
		if k := (colKey{uid, s.Column}); uid != "" && !seen[k] {
			seen[k] = true
			rows = append(rows, propagate.Ref{Relation: index[uid], Column: s.Column})
		}
	}
	return cols, rows
}

func intersectSorted(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// sourceName names a source for output: source:source_name.table_name.
func sourceName(uid string) string {
	parts := strings.Split(uid, ".")
	if len(parts) >= 2 {
		return "source:" + strings.Join(parts[len(parts)-2:], ".")
	}
	return uid
}

// sourceDataset is a source's dataset id: database.schema.identifier as dbt
// writes them.
func sourceDataset(s *SourceNode) string { return s.dotted(s.identifier()) }

// inferTargets are the columns of one side the changeset names, to carry
// their inferred governance.
type inferTargets map[colKey]bool

// changedColumns gathers, while the changeset is built, the columns it
// names, by the side whose lineage they are read on: head's, base's for a
// removed column and what its reach walked.
type changedColumns struct {
	on    bool
	l2    *level2
	uidOf map[string]string // changeset name → unique_id
	sides map[*lineageSide]inferTargets
}

// inferTargets starts gathering, or gathers nothing when on is false.
func (l2 *level2) inferTargets(on bool) *changedColumns {
	t := &changedColumns{on: on, l2: l2, sides: map[*lineageSide]inferTargets{}}
	if on {
		t.uidOf = make(map[string]string, len(l2.names))
		for uid, name := range l2.names {
			t.uidOf[name] = uid
		}
	}
	return t
}

func (t *changedColumns) add(removed bool, uid, column string) {
	if !t.on || uid == "" || column == "*" {
		return
	}
	ls := t.l2.head
	if removed {
		ls = t.l2.base
	}
	if t.sides[ls] == nil {
		t.sides[ls] = inferTargets{}
	}
	t.sides[ls][colKey{uid, column}] = true
}

// attachInferred puts the inferred governance of every changed and reached
// column into its changeset meta, under governance.inferred: head's
// lineage, base's for a removed column (and what its reach walked). The
// models above them are analysed first, wherever level 2 had not read them.
func (l2 *level2) attachInferred(ctx context.Context, cs *policy.Changeset, rules propagate.Rules, targets map[*lineageSide]inferTargets, parallelism int, budget lineage.Budget) error {
	for _, ls := range []*lineageSide{l2.head, l2.base} {
		t := targets[ls]
		if len(t) == 0 {
			continue
		}
		starts := make([]string, 0, len(t))
		for k := range t {
			starts = append(starts, k.uid)
		}
		if err := ls.analyseAbove(ctx, starts, parallelism, budget); err != nil {
			return err
		}
		g, index := ls.propagationGraph(l2.nameOf)
		res, err := propagate.Infer(ctx, g, rules)
		if err != nil {
			return err
		}
		for k := range t {
			inf, ok := res.Column(index[k.uid], k.col)
			if !ok {
				continue // a model whose lineage is unknown: no inference, the policy's fail-safe decides
			}
			name := l2.nameOf(k.uid)
			m := cs.Models[name]
			if m == nil {
				m = l2.addModel(cs, k.uid)
			}
			c := m.Columns[k.col]
			if c == nil {
				c = &policy.Column{Meta: map[string]any{}}
				m.Columns[k.col] = c
			}
			c.Meta = policy.WithGovernance(c.Meta, map[string]any{propagate.MetaKey: inf.Meta()})
		}
	}
	return nil
}

// analyseAbove reads the lineage of every model and snapshot the starts
// depend on, directly or not, that was not read yet: by depends_on, then by
// what the lineage read names, until nothing new is named.
func (ls *lineageSide) analyseAbove(ctx context.Context, starts []string, parallelism int, budget lineage.Budget) error {
	seen := map[string]bool{}
	frontier := starts
	for len(frontier) > 0 {
		var todo []string
		queue := append([]string(nil), frontier...)
		for i := 0; i < len(queue); i++ {
			uid := queue[i]
			if seen[uid] {
				continue
			}
			seen[uid] = true
			n := ls.relations[uid]
			if n == nil {
				continue // a source
			}
			if _, read := ls.models[uid]; !read && n.ResourceType != "seed" {
				todo = append(todo, uid)
			}
			queue = append(queue, n.DependsOn.Nodes...)
		}
		if len(todo) == 0 {
			return nil
		}
		sort.Strings(todo)
		if err := analyse(ctx, map[*lineageSide][]string{ls: todo}, parallelism, budget); err != nil {
			return err
		}
		ls.graph = nil // numbered again if a walk ever needs it
		frontier = frontier[:0:0]
		for _, uid := range todo {
			if ml := ls.models[uid]; ml.analysed() {
				for r := range ml.reads {
					if !seen[r] {
						frontier = append(frontier, r)
					}
				}
			}
		}
		sort.Strings(frontier)
	}
	return nil
}

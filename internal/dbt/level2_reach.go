package dbt

import (
	"sort"

	"github.com/celine-eu/governanced/internal/policy"
)

type l2ReachKey struct {
	uid, column     string
	removed, rowSet bool
}

// reachOf is the column-level reach of spec §8.8 for one change, walked on
// head (base for a removed column: the lineage it had).
//
// The walk is breadth-first over column edges. A model that reads a
// reached column by value has that output column reached, with the
// mechanism of the edge (the last hop). A model that uses a reached column
// only to choose rows (WHERE, JOIN, HAVING, QUALIFY, GROUP BY, …) is a
// row-set dependent: mechanism rowset_filter, and since its rows change,
// every one of its columns changes, so the walk goes on from all of them,
// and the models that read its rows are row-set dependents in turn. A
// row-set dependent's own columns are not listed (D-15). Models below the
// subject that cannot be analysed, and everything below them, are reached
// with unknown mechanisms and make the column list incomplete.
func (l2 *level2) reachOf(uid, column string, removed, rowSet bool) *walked {
	key := l2ReachKey{uid, column, removed, rowSet}
	if w, ok := l2.reached[key]; ok {
		return w
	}
	ls := l2.head
	if removed {
		ls = l2.base
	}
	var w *walked
	switch {
	case column == "*":
		// No columns known: the model-level reach, mechanisms unknown.
		w = l2.builder.reachOf(uid, removed)
	case !l2.columnKnown(ls, uid, column):
		w = &walked{reach: policy.Reach{Resolved: false, Models: []policy.ReachedModel{}, Columns: nil,
			ColumnsComplete: boolPtr(false), Exposures: []policy.ReachedExposure{}}}
	default:
		w = l2.walk(ls, uid, column, rowSet)
	}
	l2.reached[key] = w
	return w
}

func boolPtr(b bool) *bool { return &b }

// columnKnown reports whether the side knows the subject column, so that
// its reach can be computed (M-11).
func (l2 *level2) columnKnown(ls *lineageSide, uid, column string) bool {
	cols, _ := ls.columnSet(uid)
	for _, c := range cols {
		if c.name == column {
			return true
		}
	}
	if ml := ls.models[uid]; ml.analysed() {
		_, ok := ml.cols[column]
		return ok
	}
	return false
}

func (l2 *level2) walk(ls *lineageSide, uid, column string, rowSet bool) *walked {
	return l2.walkEdges(ls, uid, column, rowSet, nil)
}

// walkEdges is walk reporting every edge it follows to edge (when not nil):
// a value edge to the reached column, a row-set edge to the model (column
// ""); from column "*" stands for "the rows of from's model".
func (l2 *level2) walkEdges(ls *lineageSide, uid, column string, rowSet bool, edge func(from, to colKey, mech string)) *walked {
	if edge == nil {
		edge = func(colKey, colKey, string) {}
	}
	mechs := map[string]map[string]bool{} // model → mechanisms
	listed := map[colKey]string{}         // reached column → mechanism
	visited := map[colKey]bool{}
	rowDone := map[string]bool{}
	unknown := map[string]bool{}

	type item struct {
		col colKey
		row string // a model whose rows changed
	}
	var queue []item
	addMech := func(m, mech string) {
		if mechs[m] == nil {
			mechs[m] = map[string]bool{}
		}
		mechs[m][mech] = true
	}
	queue = append(queue, item{col: colKey{uid, column}})
	if rowSet {
		queue = append(queue, item{row: uid})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if it.row != "" {
			if rowDone[it.row] {
				continue
			}
			rowDone[it.row] = true
			if ml := ls.models[it.row]; ml.analysed() {
				for _, c := range ml.order {
					queue = append(queue, item{col: colKey{it.row, c}})
				}
			}
			for _, r := range ls.readers[it.row] {
				if ls.models[r].rowParents[it.row] {
					edge(colKey{it.row, "*"}, colKey{r, ""}, policy.MechanismRowsetFilter)
					addMech(r, policy.MechanismRowsetFilter)
					queue = append(queue, item{row: r})
				}
			}
			continue
		}
		if visited[it.col] {
			continue
		}
		visited[it.col] = true
		for _, r := range ls.readers[it.col.uid] {
			ml := ls.models[r]
			for _, out := range ml.order {
				m, ok := ml.cols[out][it.col]
				if !ok {
					continue
				}
				k := colKey{r, out}
				edge(it.col, k, m.String())
				if _, done := listed[k]; !done {
					listed[k] = m.String()
					addMech(r, m.String())
				}
				queue = append(queue, item{col: k})
			}
			if ml.filter[it.col] {
				edge(it.col, colKey{r, ""}, policy.MechanismRowsetFilter)
				addMech(r, policy.MechanismRowsetFilter)
				queue = append(queue, item{row: r})
			}
		}
	}

	// Unanalysable models below the subject, and all below them (M-9).
	for _, d := range ls.descendants(uid) {
		if unknown[d] {
			continue
		}
		if ml := ls.models[d]; ml != nil && !ml.analysed() {
			unknown[d] = true
			for _, dd := range ls.descendants(d) {
				unknown[dd] = true
			}
		}
	}
	// Children that lineage says read nothing of a reached model although
	// the graph says they depend on it: their SQL names the parent in a way
	// that could not be mapped, so their reach is unknown, not empty.
	reachedModels := map[string]bool{uid: true}
	for m := range mechs {
		reachedModels[m] = true
	}
	for m := range reachedModels {
		if n := ls.relations[m]; n != nil && n.Config.Materialized == "ephemeral" {
			continue
		}
		for _, c := range ls.children[m] {
			if p := resourcePrefix(c); p != "model" && p != "snapshot" {
				continue
			}
			ml := ls.models[c]
			if ml.analysed() && !ml.reads[m] && !unknown[c] {
				unknown[c] = true
				for _, dd := range ls.descendants(c) {
					unknown[dd] = true
				}
			}
		}
	}

	w := &walked{reach: policy.Reach{Resolved: true, Models: []policy.ReachedModel{}, Columns: []policy.ReachedColumn{},
		ColumnsComplete: boolPtr(len(unknown) == 0), Exposures: []policy.ReachedExposure{}}}
	models := map[string]bool{}
	for m := range mechs {
		models[m] = true
	}
	for m := range unknown {
		models[m] = true
	}
	for m := range models {
		w.models = append(w.models, m)
		rm := policy.ReachedModel{Name: l2.nameOf(m)}
		if !unknown[m] {
			for mech := range mechs[m] {
				rm.Mechanisms = append(rm.Mechanisms, mech)
			}
			sort.Strings(rm.Mechanisms)
		}
		w.reach.Models = append(w.reach.Models, rm)
	}
	for k, mech := range listed {
		mech := mech
		w.reach.Columns = append(w.reach.Columns, policy.ReachedColumn{Model: l2.nameOf(k.uid), Column: k.col, Mechanism: &mech})
	}
	exposures := map[string]bool{}
	for _, m := range append([]string{uid}, w.models...) {
		for _, e := range ls.exposuresOf(m) {
			exposures[e] = true
		}
	}
	for e := range exposures {
		w.exposures = append(w.exposures, e)
		w.reach.Exposures = append(w.reach.Exposures, policy.ReachedExposure{Name: l2.exposureName(e)})
	}
	sort.Strings(w.models)
	sort.Strings(w.exposures)
	sort.Slice(w.reach.Models, func(i, j int) bool { return w.reach.Models[i].Name < w.reach.Models[j].Name })
	sort.Slice(w.reach.Columns, func(i, j int) bool {
		a, b := w.reach.Columns[i], w.reach.Columns[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Column < b.Column
	})
	sort.Slice(w.reach.Exposures, func(i, j int) bool { return w.reach.Exposures[i].Name < w.reach.Exposures[j].Name })
	return w
}

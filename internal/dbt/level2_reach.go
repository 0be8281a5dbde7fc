package dbt

import (
	"cmp"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/lineage"
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
	// The column set of columnSet, looked up instead of listed.
	set, ml := ls.columnsOf(uid), ls.models[uid]
	if set.names[column] && (set.backed || !ml.analysed() || len(ml.order) == 0) {
		return true
	}
	if ml.analysed() {
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
	g := ls.walkGraph(l2.nameOf)
	rw := &reachWalk{g: g, stamp: g.nextWalk()}
	if !l2.spread(rw, uid, column, rowSet, edge) {
		return &walked{}
	}
	start, ok := g.nodeOf[uid]
	rw.markUnknown(ls, uid, start, ok)
	w := l2.walkResult(rw)
	w.models = make([]string, len(rw.reached))
	slices.Sort(rw.reached) // node order is unique_id order
	for i, node := range rw.reached {
		w.models[i] = g.uids[node]
	}
	exposures := map[string]bool{}
	if ok {
		for _, e := range g.exposuresOf(ls, start) {
			exposures[e] = true
		}
	}
	for _, node := range rw.reached {
		for _, e := range g.exposuresOf(ls, node) {
			exposures[e] = true
		}
	}
	for e := range exposures {
		w.exposures = append(w.exposures, e)
		w.reach.Exposures = append(w.reach.Exposures, policy.ReachedExposure{Name: l2.exposureName(e)})
	}
	slices.Sort(w.exposures)
	slices.SortFunc(w.reach.Exposures, func(a, b policy.ReachedExposure) int { return strings.Compare(a.Name, b.Name) })
	return w
}

// nextWalk starts a walk: its stamp marks what this walk has seen.
func (g *walkGraph) nextWalk() uint32 {
	if g.walk++; g.walk == 0 { // wrapped: forget every mark
		clear(g.slotSeen)
		clear(g.slotListed)
		clear(g.nodeRowDone)
		clear(g.nodeReached)
		g.walk = 1
	}
	return g.walk
}

// reachWalk is one walk's state over a side's walkGraph.
type reachWalk struct {
	g       *walkGraph
	stamp   uint32
	reached []int32 // nodes reached, with their mechanisms in nodeMechs
	listed  []int32 // columns reached by value
	unknown map[int32]bool
}

func (rw *reachWalk) reach(node int32) {
	if rw.g.nodeReached[node] != rw.stamp {
		rw.g.nodeReached[node] = rw.stamp
		rw.g.nodeMechs[node] = 0
		rw.reached = append(rw.reached, node)
	}
}

func (rw *reachWalk) addMech(node int32, bit mechanismBits) {
	rw.reach(node)
	rw.g.nodeMechs[node] |= bit
}

// spread follows every edge from the subject breadth-first, and reports
// false when the walk's context ended (l2.err says why).
func (l2 *level2) spread(rw *reachWalk, uid, column string, rowSet bool, edge func(from, to colKey, mech string)) bool {
	g, stamp := rw.g, rw.stamp
	rowset := mechanismBit(policy.MechanismRowsetFilter)
	// The queue holds a column's slot, or -1-node for a model whose rows
	// changed. Its array is the last walk's.
	queue := g.queue[:0]
	defer func() { g.queue = queue[:0] }()
	if s, ok := g.slotOf[colKey{uid, column}]; ok {
		queue = append(queue, s)
	}
	if node, ok := g.nodeOf[uid]; ok && rowSet {
		queue = append(queue, -1-node)
	}
	// Every item taken is an edge crossed (or the start): a walk costs what
	// it reaches, with the context looked at now and then.
	for i := 0; i < len(queue); i++ {
		l2.walkSteps++
		if i%4096 == 4095 && l2.ctx.Err() != nil {
			l2.err = l2.ctx.Err()
			return false
		}
		if it := queue[i]; it < 0 {
			node := -1 - it
			if g.nodeRowDone[node] == stamp {
				continue
			}
			g.nodeRowDone[node] = stamp
			queue = append(queue, g.columns[node]...)
			for _, r := range g.rowReaders[node] {
				if edge != nil {
					edge(colKey{g.uids[node], "*"}, colKey{g.uids[r], ""}, policy.MechanismRowsetFilter)
				}
				rw.addMech(r, rowset)
				queue = append(queue, -1-r)
			}
			continue
		}
		s := queue[i]
		if g.slotSeen[s] == stamp {
			continue
		}
		g.slotSeen[s] = stamp
		for _, r := range g.readers[g.slotNode[s]] {
			for _, f := range g.feeds[r][s] {
				if edge != nil {
					edge(g.slotKey(s), g.slotKey(f.slot), f.mech.String())
				}
				if g.slotListed[f.slot] != stamp {
					g.slotListed[f.slot] = stamp
					g.slotMech[f.slot] = f.mech
					rw.listed = append(rw.listed, f.slot)
					rw.addMech(r, mechanismBit(f.mech.String()))
				}
				queue = append(queue, f.slot)
			}
			if g.filters[r][s] {
				if edge != nil {
					edge(g.slotKey(s), colKey{g.uids[r], ""}, policy.MechanismRowsetFilter)
				}
				rw.addMech(r, rowset)
				queue = append(queue, -1-r)
			}
		}
	}
	return true
}

// markUnknown reaches, as unknown, whatever lies below a model under the
// subject that could not be analysed (M-9), and below a child that lineage
// says reads nothing of a reached model although the graph says it depends
// on it (its SQL names the parent in a way that could not be mapped, so its
// reach is unknown, not empty). One walk from all of them.
func (rw *reachWalk) markUnknown(ls *lineageSide, uid string, start int32, ok bool) {
	g := rw.g
	taint := append([]string(nil), ls.unanalysedUnder(uid)...)
	if ok {
		taint = append(taint, g.unmapped[start]...)
	}
	for _, node := range rw.reached {
		taint = append(taint, g.unmapped[node]...)
	}
	rw.unknown = make(map[int32]bool, len(taint))
	mark := func(m string) {
		node := g.nodeOf[m] // every model is a node
		rw.unknown[node] = true
		if g.nodeReached[node] != rw.stamp {
			g.nodeReached[node] = rw.stamp
			rw.reached = append(rw.reached, node)
		}
	}
	for _, t := range taint {
		mark(t)
	}
	if len(taint) > 0 {
		ls.below(taint, mark)
	}
}

// walkResult is the walk's reach: the models by name, each with its
// mechanisms unless its reach is unknown, and the columns reached by value.
func (l2 *level2) walkResult(rw *reachWalk) *walked {
	g := rw.g
	w := &walked{reach: policy.Reach{Resolved: true, Models: make([]policy.ReachedModel, 0, len(rw.reached)),
		Columns: make([]policy.ReachedColumn, 0, len(rw.listed)), ColumnsComplete: boolPtr(len(rw.unknown) == 0),
		Exposures: []policy.ReachedExposure{}}}
	slices.SortFunc(rw.reached, func(a, b int32) int { return cmp.Compare(g.nodeRank[a], g.nodeRank[b]) })
	for _, node := range rw.reached {
		rm := policy.ReachedModel{Name: g.names[node]}
		if !rw.unknown[node] {
			rm.Mechanisms = l2.mechanismSet(g.nodeMechs[node])
		}
		w.reach.Models = append(w.reach.Models, rm)
	}
	slices.SortFunc(rw.listed, func(a, b int32) int { return cmp.Compare(g.slotRank[a], g.slotRank[b]) })
	for _, s := range rw.listed {
		w.reach.Columns = append(w.reach.Columns, policy.ReachedColumn{Model: g.names[g.slotNode[s]],
			Column: g.slotCol[s], Mechanism: mechanismName(g.slotMech[s].String())})
	}
	return w
}

// unanalysedUnder lists the models below uid whose lineage is unknown.
func (ls *lineageSide) unanalysedUnder(uid string) []string {
	if !ls.anyUnanalysed {
		return nil
	}
	if ls.unanalysedUID == uid {
		return ls.unanalysedBelow
	}
	var out []string
	ls.below([]string{uid}, func(d string) {
		if ml := ls.models[d]; ml != nil && !ml.analysed() {
			out = append(out, d)
		}
	})
	ls.unanalysedUID, ls.unanalysedBelow = uid, out
	return out
}

// mechanismName is a mechanism's name as a reached column carries it: one
// string per mechanism, shared by every column it reaches.
func mechanismName(m string) *string {
	if p, ok := mechanismNames[m]; ok {
		return p
	}
	return &m
}

var mechanismNames = func() map[string]*string {
	out := map[string]*string{}
	for _, m := range []string{policy.MechanismDirectPassthrough, policy.MechanismRenamedPassthrough,
		policy.MechanismDerivedRecompute, policy.MechanismRowsetFilter} {
		out[m] = &m
	}
	return out
}()

// mechanismBits is a set of mechanisms, one bit per name of
// mechanismOrder.
type mechanismBits uint8

// mechanismOrder are the mechanisms a walk meets, sorted: every lineage
// mechanism's name (unknown for none) and rowset_filter.
var mechanismOrder = []string{policy.MechanismDerivedRecompute, policy.MechanismDirectPassthrough,
	policy.MechanismRenamedPassthrough, policy.MechanismRowsetFilter, lineage.Mechanism(0).String()}

func mechanismBit(name string) mechanismBits {
	return 1 << slices.Index(mechanismOrder, name)
}

// mechanismSet is a reached model's mechanisms, sorted. Models reached the
// same ways share one slice (the changeset's readers do not modify it).
func (l2 *level2) mechanismSet(set mechanismBits) []string {
	if shared, ok := l2.mechanismSets[set]; ok {
		return shared
	}
	var out []string
	for i, name := range mechanismOrder {
		if set&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	l2.mechanismSets[set] = out
	return out
}

package dbt

import (
	"cmp"
	"slices"

	"github.com/celine-eu/governanced/internal/lineage"
)

// walkGraph is one side's column lineage numbered for walking. A level-2
// changeset walks once per changed column, and a change near the top of a
// long chain reaches every model below it, so the walks together cost the
// sum of their reaches: numbering nodes and columns lets a walk mark what it
// reached in arrays stamped with the walk's number (never cleared, never
// reallocated) and sort what it reached by precomputed ranks, so that one
// step of a walk is an array access, not a map insertion.
type walkGraph struct {
	uids   []string         // node → unique_id, in unique_id order
	names  []string         // node → changeset name
	nodeOf map[string]int32 // unique_id → node
	// nodeRank orders nodes by changeset name (reach.models' order).
	nodeRank []int32
	analysed []bool // the node's lineage is known
	// readers are the analysed nodes whose lineage reads the node, in
	// unique_id order; rowReaders those among them whose rows it feeds.
	readers, rowReaders [][]int32
	// columns are an analysed node's output columns, in output order.
	columns [][]int32
	// unmapped are the analysed models and snapshots below a node in the
	// graph whose lineage reads nothing of it (none below an ephemeral
	// model, which its children read through).
	unmapped [][]string
	// exposures are findExposures of each node, once asked.
	exposures     [][]string
	exposuresDone []bool

	slotOf   map[colKey]int32 // a column → its slot
	slotNode []int32
	slotCol  []string
	// slotRank orders slots by (changeset name, column): reach.columns'
	// order.
	slotRank []int32
	// feeds are, per reading node, the output columns each source slot
	// reaches (in output order); filters, the source slots it uses only to
	// choose rows.
	feeds   []map[int32][]feedEdge
	filters []map[int32]bool

	// The walk in progress, its queue, and its marks.
	walk                     uint32
	queue                    []int32
	slotSeen, slotListed     []uint32
	slotMech                 []lineage.Mechanism
	nodeRowDone, nodeReached []uint32
	nodeMechs                []mechanismBits
}

// feedEdge is an output column a source column reaches, and how.
type feedEdge struct {
	slot int32
	mech lineage.Mechanism
}

// walkGraph numbers the side's lineage the first time a walk needs it
// (after analyse); name is the changeset name of a node.
func (ls *lineageSide) walkGraph(name func(uid string) string) *walkGraph {
	if ls.graph != nil {
		return ls.graph
	}
	g := &walkGraph{nodeOf: map[string]int32{}, slotOf: map[colKey]int32{}}
	g.numberNodes(ls, name)
	g.linkModels(ls)
	g.rankSlots()
	g.findUnmapped(ls)
	n := len(g.uids)
	g.exposures, g.exposuresDone = make([][]string, n), make([]bool, n)
	g.slotSeen, g.slotListed = make([]uint32, len(g.slotNode)), make([]uint32, len(g.slotNode))
	g.slotMech = make([]lineage.Mechanism, len(g.slotNode))
	g.nodeRowDone, g.nodeReached = make([]uint32, n), make([]uint32, n)
	g.nodeMechs = make([]mechanismBits, n)
	ls.graph = g
	return g
}

// numberNodes numbers every node the side's lineage names, in unique_id
// order, and ranks them by changeset name.
func (g *walkGraph) numberNodes(ls *lineageSide, name func(uid string) string) {
	seen := map[string]bool{}
	addUID := func(uid string) {
		if !seen[uid] {
			seen[uid] = true
			g.uids = append(g.uids, uid)
		}
	}
	for uid := range ls.relations {
		addUID(uid)
	}
	for uid := range ls.m.Sources {
		addUID(uid)
	}
	for uid, ml := range ls.models {
		addUID(uid)
		if ml.analysed() {
			for k := range ml.feeds {
				addUID(k.uid)
			}
			for k := range ml.filter {
				addUID(k.uid)
			}
			for p := range ml.rowParents {
				addUID(p)
			}
		}
	}
	for p := range ls.readers {
		addUID(p)
	}
	slices.Sort(g.uids)
	n := len(g.uids)
	for i, uid := range g.uids {
		g.nodeOf[uid] = int32(i)
	}
	byName := make([]int32, n)
	for i := range byName {
		byName[i] = int32(i)
	}
	names := make([]string, n)
	for i, uid := range g.uids {
		names[i] = name(uid)
	}
	g.names = names
	slices.SortStableFunc(byName, func(a, b int32) int { return cmp.Compare(names[a], names[b]) })
	g.nodeRank = make([]int32, n)
	for rank, node := range byName {
		g.nodeRank[node] = int32(rank)
	}
}

// slot numbers a column the first time it is met.
func (g *walkGraph) slot(k colKey) int32 {
	if s, ok := g.slotOf[k]; ok {
		return s
	}
	s := int32(len(g.slotNode))
	g.slotOf[k] = s
	g.slotNode = append(g.slotNode, g.nodeOf[k.uid])
	g.slotCol = append(g.slotCol, k.col)
	return s
}

// linkModels turns each analysed model's columns, feeds and filters, and
// each node's readers, into numbered edges.
func (g *walkGraph) linkModels(ls *lineageSide) {
	n := len(g.uids)
	g.analysed = make([]bool, n)
	g.readers, g.rowReaders = make([][]int32, n), make([][]int32, n)
	g.columns = make([][]int32, n)
	g.feeds, g.filters = make([]map[int32][]feedEdge, n), make([]map[int32]bool, n)
	for node, uid := range g.uids {
		ml := ls.models[uid]
		if !ml.analysed() {
			continue
		}
		g.analysed[node] = true
		for _, c := range ml.order {
			g.columns[node] = append(g.columns[node], g.slot(colKey{uid, c}))
		}
		feeds := make(map[int32][]feedEdge, len(ml.feeds))
		for src, fs := range ml.feeds {
			s := g.slot(src)
			for _, f := range fs {
				feeds[s] = append(feeds[s], feedEdge{g.slot(colKey{uid, f.out}), f.mech})
			}
		}
		g.feeds[node] = feeds
		filters := make(map[int32]bool, len(ml.filter))
		for k := range ml.filter {
			filters[g.slot(k)] = true
		}
		g.filters[node] = filters
	}
	for p, rs := range ls.readers {
		node := g.nodeOf[p]
		for _, r := range rs { // sorted by unique_id, as nodes are
			g.readers[node] = append(g.readers[node], g.nodeOf[r])
			if ls.models[r].rowParents[p] {
				g.rowReaders[node] = append(g.rowReaders[node], g.nodeOf[r])
			}
		}
	}
}

// rankSlots ranks the columns by their node's name, then their own.
func (g *walkGraph) rankSlots() {
	bySlot := make([]int32, len(g.slotNode))
	for i := range bySlot {
		bySlot[i] = int32(i)
	}
	slices.SortFunc(bySlot, func(a, b int32) int {
		if c := cmp.Compare(g.nodeRank[g.slotNode[a]], g.nodeRank[g.slotNode[b]]); c != 0 {
			return c
		}
		return cmp.Compare(g.slotCol[a], g.slotCol[b])
	})
	g.slotRank = make([]int32, len(bySlot))
	for rank, s := range bySlot {
		g.slotRank[s] = int32(rank)
	}
}

// findUnmapped lists, for each node that is not ephemeral, the analysed
// models and snapshots below it whose SQL never reads it.
func (g *walkGraph) findUnmapped(ls *lineageSide) {
	g.unmapped = make([][]string, len(g.uids))
	for node, m := range g.uids {
		if r := ls.relations[m]; r != nil && r.Config.Materialized == "ephemeral" {
			continue
		}
		for _, c := range ls.children[m] {
			if p := resourcePrefix(c); p != "model" && p != "snapshot" {
				continue
			}
			if ml := ls.models[c]; ml.analysed() && !ml.reads[m] {
				g.unmapped[node] = append(g.unmapped[node], c)
			}
		}
	}
}

// exposuresOf is findExposures for a node, worked out once.
func (g *walkGraph) exposuresOf(ls *lineageSide, node int32) []string {
	if !g.exposuresDone[node] {
		g.exposures[node], g.exposuresDone[node] = ls.findExposures(g.uids[node]), true
	}
	return g.exposures[node]
}

// slotKey is the column a slot numbers.
func (g *walkGraph) slotKey(s int32) colKey {
	return colKey{g.uids[g.slotNode[s]], g.slotCol[s]}
}

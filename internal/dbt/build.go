package dbt

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/policy"
)

// Build produces the level-1 changeset of spec §8 (precision "model"): change
// kinds from catalogs and normalised compiled SQL, reach from the manifest
// graph, provable test breaks from base tests that survive into head. Level 1
// never knows mechanisms or column reach, so both are left unknown for the
// engine to treat fail-safe. It also returns warnings worth showing a user.
// It stops early with ctx's error when ctx ends.
func Build(ctx context.Context, in Inputs) (*policy.Changeset, []string, error) {
	b, warnings, err := newBuilder(in)
	if err != nil {
		return nil, nil, err
	}
	cs, warning, err := b.changeset(ctx, modelLevel{b}, in.ReachBudget)
	if err != nil {
		return nil, nil, err
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	return cs, warnings, nil
}

// modelLevel is level 1: columns' kinds from catalogs and compiled SQL,
// reach from the manifest graph.
type modelLevel struct{ *builder }

func (modelLevel) precision() string { return "model" }

func (l modelLevel) changes(uid string) []columnChange { return l.diff(uid) }

func (l modelLevel) reach(uid string, c columnChange, over bool) (*walked, error) {
	if over {
		return &walked{reach: policy.Reach{Models: []policy.ReachedModel{}, Exposures: []policy.ReachedExposure{}}}, nil
	}
	return l.reachOf(uid, c.kind == policy.KindRemoved), nil
}

// side is one manifest with its catalog and its relation nodes (models,
// snapshots, seeds — the only possible subjects, spec §8.2).
type side struct {
	m         *Manifest
	cat       *Catalog
	relations map[string]*Node
	children  map[string][]string

	// What is worked out of a node's columns once, however many of its
	// columns change: a model of n changed columns asks n times.
	mu          sync.Mutex
	columnSets  map[string]*columnSet
	catalogCols map[string]catalogList
	docColumns  map[string]map[string]*ManifestColumn
}

// columnSet is a node's column set (columns) and its names.
type columnSet struct {
	cols   []column
	backed bool
	names  map[string]bool
}

// catalogList is a node's catalog columns in the warehouse's order.
type catalogList struct {
	names []string
	ok    bool
}

func newSide(m *Manifest, cat *Catalog) *side {
	s := &side{m: m, cat: cat, relations: map[string]*Node{}, columnSets: map[string]*columnSet{},
		catalogCols: map[string]catalogList{}, docColumns: map[string]map[string]*ManifestColumn{}}
	for uid, n := range m.Nodes {
		switch n.ResourceType {
		case "model", "snapshot", "seed":
			s.relations[uid] = n
		}
	}
	s.children = m.ChildMap
	if s.children == nil {
		// No child_map: invert depends_on of everything that has one.
		s.children = map[string][]string{}
		for uid := range m.Nodes {
			s.children[uid] = nil
		}
		for uid, parents := range m.dependents {
			for _, p := range parents {
				s.children[p] = append(s.children[p], uid)
			}
		}
		for p := range s.children {
			sort.Strings(s.children[p])
		}
	}
	return s
}

type column struct {
	name, typ string
}

// columns is the column set of a node on this side (spec §8.4): the catalog's
// when the catalog has the node (catalog-backed), else the documented ones,
// sorted by name. The slice is shared: callers do not modify it.
func (s *side) columns(uid string) ([]column, bool) {
	set := s.columnsOf(uid)
	return set.cols, set.backed
}

// columnsOf is columns with the names indexed, worked out once per node.
func (s *side) columnsOf(uid string) *columnSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.columnSets[uid]; ok {
		return set
	}
	cols, backed := s.readColumns(uid)
	set := &columnSet{cols: cols, backed: backed, names: make(map[string]bool, len(cols))}
	for _, c := range cols {
		set.names[c.name] = true
	}
	s.columnSets[uid] = set
	return set
}

func (s *side) readColumns(uid string) ([]column, bool) {
	seen := map[string]bool{}
	var out []column
	add := func(name, typ string) {
		name = strings.ToLower(name)
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, column{name: name, typ: strings.TrimSpace(typ)})
	}
	if s.cat != nil {
		if cn := s.cat.Nodes[uid]; cn != nil {
			cn.eachColumn(func(name string, c *CatalogColumn) { add(name, c.Type) })
			sortColumns(out)
			return out, true
		}
	}
	if n := s.relations[uid]; n != nil {
		for key, c := range n.Columns {
			name := key
			if c != nil && c.Name != "" {
				name = c.Name
			}
			add(name, "")
		}
	}
	sortColumns(out)
	return out, false
}

func sortColumns(cols []column) {
	sort.Slice(cols, func(i, j int) bool { return cols[i].name < cols[j].name })
}

// docColumn finds a node's documented column case-insensitively (name is
// lowercased); nil when the node does not document it.
func (s *side) docColumn(uid, name string) *ManifestColumn {
	s.mu.Lock()
	defer s.mu.Unlock()
	cols, ok := s.docColumns[uid]
	if !ok {
		n := s.relations[uid]
		if n != nil {
			cols = make(map[string]*ManifestColumn, len(n.Columns))
			for _, key := range sortedKeys(n.Columns) {
				// Keys differing only in case: the first in byte order, as
				// documented columns are read everywhere else.
				if c := n.Columns[key]; c != nil {
					if _, dup := cols[strings.ToLower(key)]; !dup {
						cols[strings.ToLower(key)] = c
					}
				}
			}
		}
		s.docColumns[uid] = cols
	}
	return cols[name]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type builder struct {
	base, head *side
	governance policy.GovernanceLookup
	names      map[string]string // relation uid → changeset name
	order      []string          // relation uids of base ∪ head in name order
	tests      []genericTest
	testsOf    map[string][]int     // node uid → indexes of the tests on it or referencing it
	byName     map[string][]*Node   // lowercased name → base relations
	modelReach map[reachKey]*walked // level 1's reach of each relation
}

// nameNodes is spec §8.3: lowercased name, .v<version> for versions; names
// that collide use the unique_id instead. Collisions are looked for across
// base ∪ head, which also keeps a model moved between packages from being
// two subjects with one name.
func (b *builder) nameNodes() {
	b.names = map[string]string{}
	byName := map[string][]string{}
	for _, s := range []*side{b.head, b.base} {
		for uid, n := range s.relations {
			if _, done := b.names[uid]; done {
				continue
			}
			name := strings.ToLower(n.Name)
			if v := n.VersionString(); v != "" {
				name += ".v" + v
			}
			b.names[uid] = name
			byName[name] = append(byName[name], uid)
		}
	}
	for _, uids := range byName {
		if len(uids) > 1 {
			for _, uid := range uids {
				b.names[uid] = uid
			}
		}
	}
	for uid := range b.names {
		b.order = append(b.order, uid)
	}
	sort.Slice(b.order, func(i, j int) bool {
		ni, nj := b.names[b.order[i]], b.names[b.order[j]]
		if ni != nj {
			return ni < nj
		}
		return b.order[i] < b.order[j]
	})
}

// nameOf names any node for the changeset: relations by nameNodes, anything
// else by its unique_id.
func (b *builder) nameOf(uid string) string {
	if n, ok := b.names[uid]; ok {
		return n
	}
	return uid
}

// diff is spec §8.4 for one relation.
func (b *builder) diff(uid string) []columnChange {
	baseNode, inBase := b.base.relations[uid]
	headNode, inHead := b.head.relations[uid]
	cc := columnChanges{}
	switch {
	case !inHead:
		cc.whole(b.base.columnsOf(uid).cols, policy.KindRemoved)
	case !inBase:
		cc.whole(b.head.columnsOf(uid).cols, policy.KindAdded)
	default:
		baseSet, headSet := b.base.columnsOf(uid), b.head.columnsOf(uid)
		structural := baseSet.backed && headSet.backed
		if structural {
			cc.structural(baseSet.cols, headSet.cols)
		}
		if !logicChanged(baseNode, headNode) {
			break
		}
		if len(headSet.cols) == 0 {
			cc.set(columnChange{column: "*", kind: policy.KindLogicChanged})
		}
		for _, c := range headSet.cols {
			// A column new in head is added, not logic_changed (D-32).
			if baseSet.names[c.name] || !structural {
				cc.set(columnChange{column: c.name, kind: policy.KindLogicChanged})
			}
		}
	}
	return cc.sorted()
}

// logicChanged compares compiled SQL as tokens (D-33), falling back to the
// file checksum when either side was not compiled.
func logicChanged(base, head *Node) bool {
	if base.CompiledCode != "" && head.CompiledCode != "" {
		return !sameTokens(base.CompiledCode, head.CompiledCode)
	}
	if base.Checksum.Checksum != "" && head.Checksum.Checksum != "" {
		return base.Checksum.Checksum != head.Checksum.Checksum
	}
	return false
}

type reachKey struct {
	uid     string
	removed bool
}

// walked is one subject's reach, with the unique_ids behind the names so the
// reached nodes get their models/exposures entries.
type walked struct {
	reach             policy.Reach
	models, exposures []string
}

// reachOf is spec §8.7: walk the subject's descendants; for a removed column
// consumers in base and (if the model survives) in head both count. Every
// column of a model shares its reach, so it is walked once per model.
func (b *builder) reachOf(uid string, removed bool) *walked {
	key := reachKey{uid, removed}
	if w, ok := b.modelReach[key]; ok {
		return w
	}
	sides := []*side{b.head}
	if removed {
		sides = []*side{b.base}
		if _, ok := b.head.relations[uid]; ok {
			sides = append(sides, b.head)
		}
	}
	resolved := false
	models, exposures := map[string]bool{}, map[string]bool{}
	for _, s := range sides {
		if s.walk(uid, models, exposures) {
			resolved = true
		}
	}
	w := &walked{reach: policy.Reach{
		Resolved:  resolved,
		Models:    []policy.ReachedModel{},
		Exposures: []policy.ReachedExposure{},
	}}
	for m := range models {
		w.models = append(w.models, m)
		w.reach.Models = append(w.reach.Models, policy.ReachedModel{Name: b.nameOf(m)})
	}
	for e := range exposures {
		w.exposures = append(w.exposures, e)
		w.reach.Exposures = append(w.reach.Exposures, policy.ReachedExposure{Name: b.exposureName(e)})
	}
	sort.Strings(w.models)
	sort.Strings(w.exposures)
	sort.Slice(w.reach.Models, func(i, j int) bool { return w.reach.Models[i].Name < w.reach.Models[j].Name })
	sort.Slice(w.reach.Exposures, func(i, j int) bool { return w.reach.Exposures[i].Name < w.reach.Exposures[j].Name })
	b.modelReach[key] = w
	return w
}

// walk collects the models/snapshots and exposures downstream of uid, walking
// through semantic models, metrics and saved queries but not into tests. It
// reports whether uid is part of this side's graph at all.
func (s *side) walk(uid string, models, exposures map[string]bool) bool {
	if _, ok := s.children[uid]; !ok {
		if _, isNode := s.m.Nodes[uid]; !isNode {
			return false
		}
	}
	s.descend([]string{uid}, func(c string) bool {
		switch resourcePrefix(c) {
		case "test", "unit_test":
			return false
		case "model", "snapshot":
			models[c] = true
		case "exposure":
			exposures[c] = true
		}
		return true
	})
	return true
}

// descend walks the side's graph breadth-first from starts, calling visit
// once on every node below them (not on the starts themselves); visit
// returns whether to go on below the node.
func (s *side) descend(starts []string, visit func(uid string) bool) {
	seen := make(map[string]bool, len(starts))
	queue := make([]string, 0, len(starts))
	for _, st := range starts {
		if !seen[st] {
			seen[st] = true
			queue = append(queue, st)
		}
	}
	for i := 0; i < len(queue); i++ {
		for _, c := range s.children[queue[i]] {
			if !seen[c] {
				seen[c] = true
				if visit(c) {
					queue = append(queue, c)
				}
			}
		}
	}
}

func resourcePrefix(uid string) string {
	if i := strings.IndexByte(uid, '.'); i >= 0 {
		return uid[:i]
	}
	return uid
}

func (b *builder) exposureName(uid string) string {
	for _, s := range []*side{b.head, b.base} {
		if e := s.m.Exposures[uid]; e != nil && e.Name != "" {
			return e.Name
		}
	}
	return uid
}

// metaNode is where a node's meta comes from: head, or base when the node is
// gone from head (spec §8.6).
func (b *builder) metaNode(uid string) *Node {
	if n := b.head.m.Nodes[uid]; n != nil {
		return n
	}
	return b.base.m.Nodes[uid]
}

func (b *builder) addModel(cs *policy.Changeset, uid string) *policy.Model {
	name := b.nameOf(uid)
	if m, done := cs.Models[name]; done {
		return m
	}
	m := &policy.Model{UniqueID: uid, Meta: map[string]any{}, Columns: map[string]*policy.Column{}}
	if n := b.metaNode(uid); n != nil {
		m.ResourceType = n.ResourceType
		m.Meta = n.MergedMeta()
		for key, c := range n.Columns {
			if c == nil {
				continue
			}
			if meta := c.MergedMeta(); len(meta) > 0 {
				m.Columns[strings.ToLower(key)] = &policy.Column{Meta: meta}
			}
		}
		if b.governance != nil {
			if rule, ok := b.governance.Governance(n.Relation()); ok {
				m.Meta = policy.WithGovernance(m.Meta, rule)
			}
		}
	}
	cs.Models[name] = m
	return m
}

func (b *builder) addExposure(cs *policy.Changeset, uid string) {
	name := b.exposureName(uid)
	if _, done := cs.Exposures[name]; done {
		return
	}
	var e *Exposure
	for _, s := range []*side{b.head, b.base} {
		if e = s.m.Exposures[uid]; e != nil {
			break
		}
	}
	out := &policy.Exposure{UniqueID: uid, Meta: map[string]any{}}
	if e != nil {
		out.Type = e.Type
		out.Meta = e.MergedMeta()
		out.Label, out.Maturity, out.URL = e.Label, e.Maturity, e.URL
		if e.Owner != nil {
			owner := map[string]any{}
			for _, k := range []string{"name", "email"} {
				if v, ok := e.Owner[k]; ok && v != nil {
					owner[k] = policy.NormalizeValue(v)
				}
			}
			out.Owner = owner
		}
	}
	cs.Exposures[name] = out
}

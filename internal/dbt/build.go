package dbt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/propagate"
)

// Inputs are a pull request's dbt artifacts: base and head manifests
// (required) and catalogs (optional; without them the structural diff cannot
// run and column sets come from documented columns only).
type Inputs struct {
	Base, Head               *Manifest
	BaseCatalog, HeadCatalog *Catalog
	// Governance, when set, is consulted for the relation each model writes,
	// and the resolved rule is merged into the model's meta under
	// "governance" (policy.WithGovernance).
	Governance policy.GovernanceLookup
	// Rules, when set, are the same governance as rules (BuildLevel2
	// only): each changed or reached column's meta then carries the
	// governance it inherits along column lineage under
	// governance.inferred (propagate.Inferred.Meta).
	Rules propagate.Rules
	// Parallelism bounds how many models level 2 analyses at once
	// (BuildLevel2); 0 means GOMAXPROCS.
	Parallelism int
	// LineageBudget bounds the lineage work of each model's SQL at level 2
	// (zero fields: lineage.DefaultBudget's); a model over it falls back to
	// level 1.
	LineageBudget lineage.Budget
	// ReachBudget bounds the reach the changeset carries, in entries
	// summed over the changes (0: DefaultReachBudget); the changes past it
	// have an unresolved reach.
	ReachBudget int
}

// Build produces the level-1 changeset of spec §8 (precision "model"): change
// kinds from catalogs and normalised compiled SQL, reach from the manifest
// graph, provable test breaks from base tests that survive into head. Level 1
// never knows mechanisms or column reach, so both are left unknown for the
// engine to treat fail-safe. It also returns warnings worth showing a user.
// It stops early with ctx's error when ctx ends.
func Build(ctx context.Context, in Inputs) (*policy.Changeset, []string, error) {
	if in.Base == nil || in.Head == nil {
		return nil, nil, errors.New("the changeset builder needs both a base and a head manifest")
	}
	b := &builder{
		base:       newSide(in.Base, in.BaseCatalog),
		head:       newSide(in.Head, in.HeadCatalog),
		governance: in.Governance,
		reach:      map[reachKey]*walked{},
	}
	var warnings []string
	warnings = append(warnings, in.Base.Warnings...)
	warnings = append(warnings, in.Head.Warnings...)
	b.nameNodes()
	b.indexBaseTests()

	cs := &policy.Changeset{
		ChangesetVersion: 1,
		Source:           "two-manifest",
		Precision:        "model",
		Models:           map[string]*policy.Model{},
		Exposures:        map[string]*policy.Exposure{},
		Changes:          []*policy.Change{},
	}
	spent := newReachBudget(in.ReachBudget)
	for _, uid := range b.order {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		changes := b.diff(uid)
		if len(changes) == 0 {
			continue
		}
		model := b.addModel(cs, uid)
		_, inHead := b.head.relations[uid]
		for _, c := range changes {
			change := &policy.Change{Model: b.names[uid], Column: c.column, Kind: c.kind}
			if c.detail != "" {
				detail := c.detail
				change.Detail = &detail
			}
			if c.kind == policy.KindLogicChanged {
				semantic := policy.SemanticIndeterminate
				change.Semantic = &semantic
			}
			if c.kind == policy.KindRemoved {
				change.BrokenTests = b.brokenTests(uid, c.column, inHead)
				change.ProvableTestBreak = len(change.BrokenTests) > 0
				if _, known := model.Columns[c.column]; inHead && !known {
					// The policy judges a removed column by the meta it had (spec §8.6).
					if meta := b.base.docColumn(uid, c.column).MergedMeta(); len(meta) > 0 {
						model.Columns[c.column] = &policy.Column{Meta: meta}
					}
				}
			}
			cs.Changes = append(cs.Changes, change)
			if !spent.allows() {
				change.Reach = policy.Reach{Models: []policy.ReachedModel{}, Exposures: []policy.ReachedExposure{}}
				continue
			}
			w := b.reachOf(uid, c.kind == policy.KindRemoved)
			change.Reach = w.reach
			spent.spend(&change.Reach)
			for _, m := range w.models {
				b.addModel(cs, m)
			}
			for _, e := range w.exposures {
				b.addExposure(cs, e)
			}
		}
	}
	if w := spent.warning(); w != "" {
		warnings = append(warnings, w)
	}
	sort.SliceStable(cs.Changes, func(i, j int) bool {
		a, c := cs.Changes[i], cs.Changes[j]
		if a.Model != c.Model {
			return a.Model < c.Model
		}
		if a.Column != c.Column {
			return a.Column < c.Column
		}
		return a.Kind < c.Kind
	})
	return cs, warnings, nil
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
			for key, c := range cn.Columns {
				if c == nil {
					continue
				}
				name := c.Name
				if name == "" {
					name = key
				}
				add(name, c.Type)
			}
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
	testsOf    map[string][]int   // node uid → indexes of the tests on it or referencing it
	byName     map[string][]*Node // lowercased name → base relations
	reach      map[reachKey]*walked
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

type columnChange struct {
	column, kind, detail string
}

// kindPriority is upstream ChangeKind.priority: one column keeps its most
// severe kind.
var kindPriority = map[string]int{
	policy.KindRemoved:      5,
	policy.KindTypeChanged:  4,
	policy.KindLogicChanged: 3,
	policy.KindAdded:        1,
}

// diff is spec §8.4 for one relation.
func (b *builder) diff(uid string) []columnChange {
	baseNode, inBase := b.base.relations[uid]
	headNode, inHead := b.head.relations[uid]
	kinds := map[string]columnChange{}
	set := func(col, kind, detail string) {
		if prev, ok := kinds[col]; ok && kindPriority[prev.kind] >= kindPriority[kind] {
			return
		}
		kinds[col] = columnChange{column: col, kind: kind, detail: detail}
	}
	whole := func(cols []column, kind string) {
		if len(cols) == 0 {
			set("*", kind, "")
		}
		for _, c := range cols {
			set(c.name, kind, "")
		}
	}
	switch {
	case !inHead:
		cols, _ := b.base.columns(uid)
		whole(cols, policy.KindRemoved)
	case !inBase:
		cols, _ := b.head.columns(uid)
		whole(cols, policy.KindAdded)
	default:
		baseCols, baseCat := b.base.columns(uid)
		headCols, headCat := b.head.columns(uid)
		structural := baseCat && headCat
		baseTypes := map[string]string{}
		for _, c := range baseCols {
			baseTypes[c.name] = c.typ
		}
		if structural {
			headSet := map[string]bool{}
			for _, c := range headCols {
				headSet[c.name] = true
				bt, ok := baseTypes[c.name]
				switch {
				case !ok:
					set(c.name, policy.KindAdded, "")
				case bt != "" && c.typ != "" && !strings.EqualFold(bt, c.typ):
					set(c.name, policy.KindTypeChanged, bt+" -> "+c.typ)
				}
			}
			for _, c := range baseCols {
				if !headSet[c.name] {
					set(c.name, policy.KindRemoved, "")
				}
			}
		}
		if logicChanged(baseNode, headNode) {
			if len(headCols) == 0 {
				set("*", policy.KindLogicChanged, "")
			}
			for _, c := range headCols {
				// A column new in head is added, not logic_changed (D-32).
				if _, existed := baseTypes[c.name]; existed || !structural {
					set(c.name, policy.KindLogicChanged, "")
				}
			}
		}
	}
	out := make([]columnChange, 0, len(kinds))
	for _, c := range kinds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].column < out[j].column })
	return out
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
	if w, ok := b.reach[key]; ok {
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
	b.reach[key] = w
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
	seen := map[string]bool{uid: true}
	queue := []string{uid}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, c := range s.children[cur] {
			if seen[c] {
				continue
			}
			seen[c] = true
			switch resourcePrefix(c) {
			case "test", "unit_test":
				continue
			case "model", "snapshot":
				models[c] = true
			case "exposure":
				exposures[c] = true
			}
			queue = append(queue, c)
		}
	}
	return true
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

// DefaultReachBudget is Inputs.ReachBudget when it is zero. A chain of
// 3,000 changed models, each reaching every model below it by one column,
// carries 9.0 million entries and fits: building that changeset and a
// verdict on it allocates 774 MB (BenchmarkChainedModels), and a
// changeset's reach costs memory in proportion.
const DefaultReachBudget = 10_000_000

// reachBudget bounds the reach a changeset carries: the entries (reached
// models, columns and exposures) of every change's reach, summed. A change
// near the top of a long chain reaches everything below it, so the sum
// grows with the square of the chain; once it is spent, the changes left
// carry an unresolved reach, which a policy treats fail-safe, and a warning
// says how many.
type reachBudget struct {
	limit, left int
	over        int // changes whose reach was not computed
}

func newReachBudget(limit int) *reachBudget {
	if limit <= 0 {
		limit = DefaultReachBudget
	}
	return &reachBudget{limit: limit, left: limit}
}

// allows reports whether the next change may have its reach computed.
func (rb *reachBudget) allows() bool {
	if rb.left > 0 {
		return true
	}
	rb.over++
	return false
}

func (rb *reachBudget) spend(r *policy.Reach) {
	rb.left -= len(r.Models) + len(r.Columns) + len(r.Exposures)
}

// warning says which changes lost their reach, "" when none did.
func (rb *reachBudget) warning() string {
	if rb.over == 0 {
		return ""
	}
	return fmt.Sprintf("%d changes have an unresolved reach: the changeset's reach is over its budget of %d reached entries (models, columns and exposures, summed over the changes)", rb.over, rb.limit)
}

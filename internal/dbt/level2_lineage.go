package dbt

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/sqlparse"
)

// colKey is a column of a manifest node, by unique_id.
type colKey struct {
	uid, col string
}

// modelLineage is the lineage of one model (or snapshot) on one side,
// with the relations it reads mapped to manifest unique_ids.
type modelLineage struct {
	uid string
	// reason is why the model could not be analysed ("" when it was):
	// a python model, no compiled SQL, a parse error, no SQL parser for the
	// adapter, no columns known.
	reason string
	res    *lineage.Result
	// cols maps an output column to its sources (by unique_id) and the
	// mechanism each reaches it by.
	cols  map[string]map[colKey]lineage.Mechanism
	order []string
	// feeds is cols inverted: for a source column, the output columns it
	// reaches (in output order), so that a walk reaching a source finds
	// them without looking at every output column.
	feeds map[colKey][]feed
	// filter are the columns the model uses only to choose rows.
	filter map[colKey]bool
	// rowParents are the nodes whose rows feed the model's rows.
	rowParents map[string]bool
	// reads are every node the model's lineage reads.
	reads map[string]bool
}

func (ml *modelLineage) analysed() bool { return ml != nil && ml.reason == "" }

// feed is an output column a source column reaches, and how.
type feed struct {
	out  string
	mech lineage.Mechanism
}

// lineageSide is one side (base or head) with what level 2 knows of it.
type lineageSide struct {
	*side
	dialect   sqlparse.Dialect
	dialectOK bool
	// byRelation maps a relation name as SQL writes it (lowercased:
	// db.schema.name, schema.name, name) to the nodes and sources it may
	// mean.
	byRelation map[string][]string
	models     map[string]*modelLineage
	// readers maps a node to the analysed models whose lineage reads it.
	readers map[string][]string
	// anyUnanalysed is whether some model of models could not be analysed.
	anyUnanalysed bool
	// unanalysedBelow memoises unanalysedBelow for one node, since the
	// changes of one model are walked one after another.
	unanalysedUID   string
	unanalysedBelow []string
	// graph numbers the lineage for walking, once it is read.
	graph *walkGraph
}

// relationParts splits a dbt relation_name ("db"."schema"."name") into its
// lowercased parts; nil when it is not a plain dotted name (read_csv(…)).
func relationParts(s string) []string {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '`':
			if quoted && i+1 < len(s) && s[i+1] == c {
				cur.WriteByte(c)
				i++
				continue
			}
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, strings.ToLower(cur.String()))
			cur.Reset()
		case !quoted && !(c == '_' || c == '$' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')):
			return nil
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, strings.ToLower(cur.String()))
	for _, p := range parts {
		if p == "" {
			return nil
		}
	}
	return parts
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// nodeRelation is the name a node is written under in compiled SQL.
func nodeRelation(n *Node) []string {
	if n.RelationName != nil {
		if p := relationParts(*n.RelationName); p != nil {
			return p
		}
	}
	if n.Config.Materialized == "ephemeral" {
		return nil // inlined as a CTE, never named
	}
	return n.lowerParts(n.alias())
}

func sourceRelation(s *SourceNode) []string {
	if s.RelationName != nil {
		return relationParts(*s.RelationName)
	}
	return s.lowerParts(s.identifier())
}

func newLineageSide(s *side) *lineageSide {
	ls := &lineageSide{side: s, byRelation: map[string][]string{}, models: map[string]*modelLineage{}, readers: map[string][]string{}}
	ls.dialect, ls.dialectOK = sqlparse.DialectFor(s.m.AdapterType)
	index := func(uid string, parts []string) {
		for i := range parts {
			key := strings.Join(parts[i:], ".")
			ls.byRelation[key] = append(ls.byRelation[key], uid)
		}
	}
	for uid, n := range s.relations {
		index(uid, nodeRelation(n))
	}
	for uid, src := range s.m.Sources {
		index(uid, sourceRelation(src))
	}
	for k := range ls.byRelation {
		sort.Strings(ls.byRelation[k])
	}
	return ls
}

// nodeOf maps a relation the SQL names to the one node it means; "" when
// it names none or several.
func (ls *lineageSide) nodeOf(r lineage.Relation) string {
	uids := ls.byRelation[r.String()]
	if len(uids) != 1 {
		return ""
	}
	return uids[0]
}

// catalogColumns lists a node's (or source's) catalog columns in the
// warehouse's order. The slice is shared: callers do not modify it.
func (ls *lineageSide) catalogColumns(uid string) ([]string, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.catalogCols[uid]
	if !ok {
		l.names, l.ok = ls.readCatalogColumns(uid)
		ls.catalogCols[uid] = l
	}
	return l.names, l.ok
}

func (ls *lineageSide) readCatalogColumns(uid string) ([]string, bool) {
	if ls.cat == nil {
		return nil, false
	}
	cn := ls.cat.Nodes[uid]
	if cn == nil {
		cn = ls.cat.Sources[uid]
	}
	if cn == nil {
		return nil, false
	}
	type ic struct {
		name  string
		index int
	}
	var cols []ic
	cn.eachColumn(func(name string, c *CatalogColumn) { cols = append(cols, ic{name, c.Index}) })
	sort.Slice(cols, func(i, j int) bool {
		if cols[i].index != cols[j].index {
			return cols[i].index < cols[j].index
		}
		return cols[i].name < cols[j].name
	})
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out, true
}

func (ls *lineageSide) catalog(r lineage.Relation) ([]string, bool) {
	uid := ls.nodeOf(r)
	if uid == "" {
		return nil, false
	}
	return ls.catalogColumns(uid)
}

// parseCache parses each distinct statement once, whichever side it is on.
type parseCache struct {
	mu   sync.Mutex
	done map[parseKey]*parseEntry
}

type parseKey struct {
	sql     string
	dialect string
}

type parseEntry struct {
	once sync.Once
	q    *sqlparse.Query
	err  error
}

func (pc *parseCache) parse(sql string, d sqlparse.Dialect) (*sqlparse.Query, error) {
	pc.mu.Lock()
	k := parseKey{sql, d.Name()}
	e := pc.done[k]
	if e == nil {
		e = &parseEntry{}
		pc.done[k] = e
	}
	pc.mu.Unlock()
	e.once.Do(func() { e.q, e.err = sqlparse.Parse(sql, d) })
	return e.q, e.err
}

// analyse computes the lineage of the given models on each side, in
// parallel (models are independent), each within budget, then indexes who
// reads what. It stops early, with ctx's error, when ctx ends.
func analyse(ctx context.Context, work map[*lineageSide][]string, parallelism int, budget lineage.Budget) error {
	type job struct {
		ls  *lineageSide
		uid string
	}
	var jobs []job
	for ls, uids := range work {
		for _, uid := range uids {
			jobs = append(jobs, job{ls, uid})
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].uid < jobs[j].uid })
	results := make([]*modelLineage, len(jobs))
	pc := &parseCache{done: map[parseKey]*parseEntry{}}
	if parallelism <= 0 {
		parallelism = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(parallelism, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() == nil {
					results[i] = jobs[i].ls.analyseModel(ctx, jobs[i].uid, pc, budget)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, j := range jobs {
		j.ls.models[j.uid] = results[i]
	}
	for ls := range work {
		ls.indexReaders()
	}
	return nil
}

// analyseModel reads one model's lineage. A model it cannot read — the
// SQL does not parse, or its lineage is over budget — has a reason, and
// level 2 treats it as level 1 does.
func (ls *lineageSide) analyseModel(ctx context.Context, uid string, pc *parseCache, budget lineage.Budget) *modelLineage {
	ml := &modelLineage{uid: uid}
	n := ls.relations[uid]
	switch {
	case n == nil:
		ml.reason = "not in the manifest"
	case n.ResourceType == "seed":
		ml.reason = "a seed has no SQL"
	case n.Language != "" && n.Language != "sql":
		ml.reason = n.Language + " model"
	case strings.TrimSpace(n.CompiledCode) == "":
		ml.reason = "no compiled SQL"
	case !ls.dialectOK:
		ml.reason = fmt.Sprintf("no SQL parser for adapter %q (known: %s)", ls.m.AdapterType, strings.Join(sqlparse.Dialects(), ", "))
	}
	if ml.reason != "" {
		return ml
	}
	q, err := pc.parse(n.CompiledCode, ls.dialect)
	if err != nil {
		ml.reason = "SQL does not parse: " + err.Error()
		return ml
	}
	res, err := lineage.AnalyzeQuery(ctx, q, lineage.Options{Dialect: ls.dialect, Catalog: ls.catalog, Budget: budget})
	if err != nil {
		// Over budget; or ctx ended, and analyse reports that instead.
		ml.reason = err.Error()
		return ml
	}
	ml.res = res
	if len(res.Columns) == 0 {
		if _, ok := ls.catalogColumns(uid); !ok {
			ml.reason = "no columns known"
			return ml
		}
	}
	ml.cols = map[string]map[colKey]lineage.Mechanism{}
	ml.feeds = map[colKey][]feed{}
	ml.reads = map[string]bool{}
	for _, c := range res.Columns {
		if _, dup := ml.cols[c.Name]; dup {
			continue
		}
		m := map[colKey]lineage.Mechanism{}
		var keys []colKey
		for _, s := range c.Sources() {
			if uid := ls.nodeOf(s.Relation); uid != "" {
				k := colKey{uid, s.Column}
				if _, dup := m[k]; !dup {
					keys = append(keys, k)
				}
				m[k] = s.Mechanism // two names of one node: the last
				ml.reads[uid] = true
			}
		}
		for _, k := range keys {
			ml.feeds[k] = append(ml.feeds[k], feed{c.Name, m[k]})
		}
		ml.cols[c.Name] = m
		ml.order = append(ml.order, c.Name)
	}
	ml.filter = map[colKey]bool{}
	for _, s := range res.FilterColumns {
		if uid := ls.nodeOf(s.Relation); uid != "" {
			ml.filter[colKey{uid, s.Column}] = true
			ml.reads[uid] = true
		}
	}
	ml.rowParents = map[string]bool{}
	for _, r := range res.RowRelations {
		if uid := ls.nodeOf(r); uid != "" {
			ml.rowParents[uid] = true
			ml.reads[uid] = true
		}
	}
	for _, r := range res.Relations {
		if uid := ls.nodeOf(r); uid != "" {
			ml.reads[uid] = true
		}
	}
	return ml
}

func (ls *lineageSide) indexReaders() {
	ls.readers = map[string][]string{}
	ls.anyUnanalysed = false
	for uid, ml := range ls.models {
		if !ml.analysed() {
			ls.anyUnanalysed = true
			continue
		}
		for p := range ml.reads {
			ls.readers[p] = append(ls.readers[p], uid)
		}
	}
	for p := range ls.readers {
		sort.Strings(ls.readers[p])
	}
}

// below calls f once on every model and snapshot below any of starts in
// this side's graph, but not on the starts themselves: one walk, however
// many starts (tests and exposures are not walked into; other node kinds
// are walked through).
func (ls *lineageSide) below(starts []string, f func(uid string)) {
	ls.descend(starts, func(c string) bool {
		switch resourcePrefix(c) {
		case "test", "unit_test", "exposure":
			return false
		case "model", "snapshot":
			f(c)
		}
		return true
	})
}

// findExposures are the exposures that read uid directly or through nodes
// that are not models (semantic models, metrics, saved queries).
func (ls *lineageSide) findExposures(uid string) []string {
	var out []string
	ls.descend([]string{uid}, func(c string) bool {
		switch resourcePrefix(c) {
		case "exposure":
			out = append(out, c)
			return false
		case "test", "unit_test", "model", "snapshot", "seed":
			return false
		}
		return true
	})
	return out
}

// columnSet is a node's columns on this side at level 2: the catalog's when
// it has the node, else the lineage's, else the documented ones.
func (ls *lineageSide) columnSet(uid string) ([]column, bool) {
	cols, backed := ls.columns(uid)
	if backed {
		return cols, true
	}
	if ml := ls.models[uid]; ml.analysed() && len(ml.order) > 0 {
		out := make([]column, 0, len(ml.order))
		for _, c := range ml.order {
			out = append(out, column{name: c})
		}
		sortColumns(out)
		return out, false
	}
	return cols, false
}

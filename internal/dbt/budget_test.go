package dbt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/lineage/lineagetest"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/sqlparse"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testctx"
)

// TestWorkOfTheCorpus measures the lineage work of every statement the
// project has real or reference examples of — the lineage corpus's
// statements and changeset models, the real dbt projects, a generated
// 500-model project — and checks that lineage.DefaultBudget is a wide
// margin above the largest (docs/lineage.md records the figures).
func TestWorkOfTheCorpus(t *testing.T) {
	var most lineage.Work
	var mostNodes, mostSources string
	record := func(id string, w lineage.Work) {
		if w.Nodes > most.Nodes {
			most.Nodes, mostNodes = w.Nodes, id
		}
		if w.Sources > most.Sources {
			most.Sources, mostSources = w.Sources, id
		}
	}
	dir := testcorpus.Path(t, "lineage-cases")
	for _, f := range testcorpus.Glob(t, dir, "sql/*.json", lineageSQLCases) {
		var c sqlCase
		if err := json.Unmarshal(readFile(t, f), &c); err != nil {
			t.Fatal(err)
		}
		d := sqlparse.Generic
		if c.Dialect != nil {
			d, _ = sqlparse.DialectFor(*c.Dialect)
		}
		schema := c.Schema
		res, err := lineage.Analyze(t.Context(), c.SQL, lineage.Options{Dialect: d, Catalog: func(r lineage.Relation) ([]string, bool) {
			cols, ok := schema[r.Name]
			return cols, ok
		}})
		if err == nil {
			record(c.ID, res.Work)
		} else if !lineage.IsParseError(err) {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
	project := func(id string, m *Manifest, cat *Catalog) {
		g, err := NewGraph(t.Context(), m, cat, 1)
		if err != nil {
			t.Fatal(err)
		}
		for uid, ml := range g.ls.models {
			if ml.res != nil {
				record(id+" "+uid, ml.res.Work)
			} else if strings.Contains(ml.reason, "budget") {
				t.Errorf("%s %s: %s", id, uid, ml.reason)
			}
		}
	}
	for _, f := range testcorpus.Glob(t, dir, "changeset/*/case.json", lineageChangesetCases) {
		for _, side := range []string{"base", "head"} {
			d := filepath.Join(filepath.Dir(f), side)
			project(d, manifest(t, filepath.Join(d, "manifest.json")), optionalCatalog(t, filepath.Join(d, "catalog.json")))
		}
	}
	for _, d := range []string{"v10-dbt-1.6.0", "v11-dbt-1.7.0", "pair-a2094336-f5b6f07b/base", "pair-a2094336-f5b6f07b/head"} {
		d = filepath.Join(referenceDir, d)
		project(d, manifest(t, filepath.Join(d, "manifest.json")), catalog(t, filepath.Join(d, "catalog.json")))
	}
	gen, genCat := genProject(500, true)
	project("generated", gen, genCat)

	t.Logf("most work of one statement: %d nodes (%s), %d sources (%s)", most.Nodes, mostNodes, most.Sources, mostSources)
	const margin = 100
	if lineage.DefaultBudget.Nodes < margin*most.Nodes || lineage.DefaultBudget.Sources < margin*most.Sources {
		t.Errorf("the default budget %+v is less than %d times the corpus's most %+v", lineage.DefaultBudget, margin, most)
	}
}

func optionalCatalog(t *testing.T, path string) *Catalog {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return catalog(t, path)
}

// wideProject is a model of n computed columns over a source model; edit
// changes every column's expression.
func wideProject(t testing.TB, n int, edit bool) project {
	var cols []string
	cat := map[string]string{}
	for i := 0; i < n; i++ {
		op := "+ 1"
		if edit {
			op = "+ 2"
		}
		cols = append(cols, fmt.Sprintf("c%d %s as c%d", i, op, i))
		cat[fmt.Sprintf("c%d", i)] = "integer"
	}
	return project{models: []model{
		{uid: "model.p.src", name: "src", compiled: "select 1", checksum: "s", catalog: cat},
		{uid: "model.p.wide", name: "wide", compiled: "select " + strings.Join(cols, ", ") + " from wh.marts.src",
			checksum: fmt.Sprint(edit), deps: []string{"model.p.src"}, catalog: cat},
	}}
}

// chainProject is n models in a chain, each reading the one before it;
// edit changes every model's SQL.
func chainProject(t testing.TB, n int, edit bool) project {
	cat := map[string]string{"id": "integer", "a": "integer", "b": "integer"}
	p := project{models: []model{{uid: "model.p.m0", name: "m0", compiled: "select 1 as id, 2 as a, 3 as b", checksum: "x", catalog: cat}}}
	for i := 1; i < n; i++ {
		e := "a + 1"
		if edit {
			e = "a + 2"
		}
		p.models = append(p.models, model{uid: fmt.Sprintf("model.p.m%d", i), name: fmt.Sprintf("m%d", i),
			compiled: fmt.Sprintf("select id, %s as a, b from wh.marts.m%d", e, i-1), checksum: fmt.Sprint(edit),
			deps: []string{fmt.Sprintf("model.p.m%d", i-1)}, catalog: cat})
	}
	return p
}

// oneModelProject is a source model with columns id, a0…a{width-1}, a
// model m with the given SQL over it, and a model after reading m.
func oneModelProject(sql string, width int, outputs ...string) project {
	src := map[string]string{"id": "integer"}
	for i := 0; i < width; i++ {
		src[fmt.Sprintf("a%d", i)] = "integer"
	}
	out := map[string]string{}
	for _, c := range outputs {
		out[c] = "integer"
	}
	return project{models: []model{
		{uid: "model.p.src", name: "src", compiled: "select 1", checksum: "s", catalog: src},
		{uid: "model.p.m", name: "m", compiled: sql, checksum: sql, deps: []string{"model.p.src"}, catalog: out},
		{uid: "model.p.after", name: "after", compiled: "select * from wh.marts.m", checksum: "a", deps: []string{"model.p.m"}, catalog: out},
	}}
}

// src is how the models of oneModelProject name its source model.
const src = "wh.marts.src"

func inputs(t testing.TB, base, head project) Inputs {
	return Inputs{Base: base.manifest(t), Head: head.manifest(t), BaseCatalog: base.catalog(t), HeadCatalog: head.catalog(t), Parallelism: 1}
}

// TestCTEChainModel: a model whose SQL chains 16 or 24 CTEs, each reading
// the two before it, is read at level 2 within a small fraction of its
// lineage budget: only the column whose derivation changed is a change.
// Its value doubles per link, past the bound of a canonical form, so the
// change is not proven either way.
func TestCTEChainModel(t *testing.T) {
	for _, n := range []int{16, 24} {
		in := inputs(t, oneModelProject(lineagetest.CTEChain(n, 1, src), 2, "id", "a", "b"), oneModelProject(lineagetest.CTEChain(n, 2, src), 2, "id", "a", "b"))
		cs, warnings, l2, err := buildLevel2(t.Context(), in)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("%d CTEs: %v %q", n, err, warnings)
		}
		ml := l2.head.models["model.p.m"]
		if !ml.analysed() || ml.res.Work.Nodes > 20_000 {
			t.Errorf("%d CTEs: analysed %v, work %+v", n, ml.analysed(), ml.res)
		}
		if len(cs.Changes) != 1 || cs.Changes[0].Column != "a" || *cs.Changes[0].Semantic != policy.SemanticIndeterminate {
			t.Errorf("%d CTEs: changes %v", n, summarize(cs))
		}
	}
}

// TestOverBudgetModelFallsBack: a model whose lineage is over its budget
// is read at level 1, as a model whose SQL does not parse: every column
// changed, nothing proven, and a warning saying which model and why. The
// changeset is built all the same, the reach of each change walked.
func TestOverBudgetModelFallsBack(t *testing.T) {
	tests := []struct {
		name       string
		base, head string
		width      int
		outputs    []string
		budget     lineage.Budget
	}{
		{"sources that grow with n², over the default budget", lineagetest.Accumulating(1200, 1, src), lineagetest.Accumulating(1200, 2, src),
			1200, []string{"id", "x"}, lineage.Budget{}},
		{"a CTE chain over a small budget", lineagetest.CTEChain(16, 1, src), lineagetest.CTEChain(16, 2, src),
			2, []string{"id", "a", "b"}, lineage.Budget{Nodes: 1000}},
	}
	for _, tc := range tests {
		in := inputs(t, oneModelProject(tc.base, tc.width, tc.outputs...), oneModelProject(tc.head, tc.width, tc.outputs...))
		in.LineageBudget = tc.budget
		cs, warnings, err := BuildLevel2(t.Context(), in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "m: column lineage unavailable (") || !strings.Contains(warnings[0], "the budget of one statement") {
			t.Errorf("%s: warnings %q", tc.name, warnings)
		}
		if len(cs.Changes) != len(tc.outputs) {
			t.Errorf("%s: %d changes, want every column of m: %v", tc.name, len(cs.Changes), summarize(cs))
		}
		for _, c := range cs.Changes {
			if c.Model != "m" || c.Kind != policy.KindLogicChanged || *c.Semantic != policy.SemanticIndeterminate ||
				!c.Reach.Resolved || len(c.Reach.Models) != 1 || c.Reach.Models[0].Name != "after" {
				t.Errorf("%s: %s.%s %s %v, reach %+v", tc.name, c.Model, c.Column, c.Kind, c.Semantic, c.Reach)
			}
		}
		roundTrip(t, cs)
	}
}

// TestWideModel: a model of 8,000 changed columns is read at level 2 with
// work in proportion to its columns: its lineage a few dozen nodes a
// column, each column's reach walk one step.
func TestWideModel(t *testing.T) {
	const n = 8000
	in := inputs(t, wideProject(t, n, false), wideProject(t, n, true))
	cs, warnings, l2, err := buildLevel2(t.Context(), in)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %q", err, warnings)
	}
	if len(cs.Changes) != n {
		t.Errorf("%d changes, want %d", len(cs.Changes), n)
	}
	if w := l2.head.models["model.p.wide"].res.Work; w.Nodes > 40*n || w.Sources > 10*n {
		t.Errorf("lineage work %+v for %d columns", w, n)
	}
	if l2.walkSteps > n {
		t.Errorf("%d walk steps for %d changes that reach nothing", l2.walkSteps, n)
	}
}

// TestChainedModels: 3,000 changed models in a chain, each change reaching
// every model below it. The reach the changeset carries grows with the
// square of the chain (9.0 million entries, inside DefaultReachBudget);
// the walks' work is what they reach, one step a reached column.
func TestChainedModels(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	in := inputs(t, chainProject(t, n, false), chainProject(t, n, true))
	cs, warnings, l2, err := buildLevel2(t.Context(), in)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %q", err, warnings)
	}
	entries, columns := 0, 0
	for _, c := range cs.Changes {
		entries += len(c.Reach.Models) + len(c.Reach.Columns) + len(c.Reach.Exposures)
		columns += len(c.Reach.Columns)
	}
	if len(cs.Changes) != n-1 || columns != (n-1)*(n-2)/2 {
		t.Errorf("%d changes reaching %d columns, want %d and %d", len(cs.Changes), columns, n-1, (n-1)*(n-2)/2)
	}
	if l2.walkSteps > columns+len(cs.Changes) {
		t.Errorf("%d walk steps for %d reached columns", l2.walkSteps, columns)
	}
	if entries != 2*columns || entries > DefaultReachBudget {
		t.Errorf("%d reach entries for %d reached columns, and a budget of %d", entries, columns, DefaultReachBudget)
	}
	res, err := policy.Evaluate(t.Context(), mustPolicy(t, chainPolicy), cs)
	if err != nil || res.Verdict.Decision != policy.DecisionWarn {
		t.Errorf("verdict %v, %v", res, err)
	}
}

const chainPolicy = `version: 1
rules:
  - id: rebuild-changed
    predicate:
      change: { field: kind, op: in, value: [removed, type_changed, logic_changed] }
    action: { type: add-to-build-set, include: both }
  - id: recomputed-downstream
    scope: aggregate
    predicate:
      reach: { kind: column, mechanism: [derived_recompute], min_count: 2 }
    action: { type: warn }
`

func mustPolicy(t testing.TB, text string) *policy.Policy {
	t.Helper()
	p, err := policy.Load([]byte(text), "policy.yml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReachBudget: past the changeset's reach budget, the changes left
// carry an unresolved reach, which a policy treats fail-safe, and a
// warning says how many; the changeset is still one the engine reads.
func TestReachBudget(t *testing.T) {
	base, head := chainProject(t, 200, false), chainProject(t, 200, true)
	for _, build := range []struct {
		name string
		fn   func(context.Context, Inputs) (*policy.Changeset, []string, error)
	}{{"level 1", Build}, {"level 2", BuildLevel2}} {
		in := inputs(t, base, head)
		in.ReachBudget = 5000
		cs, warnings, err := build.fn(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		resolved, entries := 0, 0
		for _, c := range cs.Changes {
			if c.Reach.Resolved {
				resolved++
				entries += len(c.Reach.Models) + len(c.Reach.Columns) + len(c.Reach.Exposures)
			}
		}
		unresolved := len(cs.Changes) - resolved
		want := fmt.Sprintf("%d changes have an unresolved reach: the changeset's reach is over its budget of 5000", unresolved)
		if unresolved == 0 || len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("%s: %d of %d resolved; warnings %q", build.name, resolved, len(cs.Changes), warnings)
		}
		if entries < 5000 || entries > 5000+400 {
			t.Errorf("%s: %d entries carried for a budget of 5000", build.name, entries)
		}
		roundTrip(t, cs)
	}
}

// TestBuildStopsWhenTheContextEnds: both builders return the context's
// error once it has ended, whether before they start or while they work.
func TestBuildStopsWhenTheContextEnds(t *testing.T) {
	in := inputs(t, chainProject(t, 300, false), chainProject(t, 300, true))
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"ended", ended}, {"ends while analysing", testctx.StopAfter(t.Context(), 20)}, {"ends while walking", testctx.StopAfter(t.Context(), 320)}} {
		if _, _, err := BuildLevel2(tc.ctx, in); !errors.Is(err, context.Canceled) {
			t.Errorf("BuildLevel2, %s: %v", tc.name, err)
		}
	}
	if _, _, err := Build(ended, in); !errors.Is(err, context.Canceled) {
		t.Errorf("Build: %v", err)
	}
}

func BenchmarkBuildLevel2Wide(b *testing.B) {
	in := inputs(b, wideProject(b, 8000, false), wideProject(b, 8000, true))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := BuildLevel2(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChainedModels is the level-2 changeset of 3,000 changed models
// in a chain and the policy's verdict on it.
func BenchmarkChainedModels(b *testing.B) {
	in := inputs(b, chainProject(b, 3000, false), chainProject(b, 3000, true))
	p := mustPolicy(b, chainPolicy)
	b.ReportAllocs()
	for b.Loop() {
		cs, _, err := BuildLevel2(b.Context(), in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := policy.Evaluate(b.Context(), p, cs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildLevel2CTEChain(b *testing.B) {
	for _, n := range []int{16, 24} {
		in := inputs(b, oneModelProject(lineagetest.CTEChain(n, 1, src), 2, "id", "a", "b"), oneModelProject(lineagetest.CTEChain(n, 2, src), 2, "id", "a", "b"))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := BuildLevel2(b.Context(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

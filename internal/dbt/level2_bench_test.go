package dbt

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/sqlparse"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// genProject is a generated dbt project of n models over n/10 sources: staging
// models with import and rename CTEs, then models that join two earlier
// models inside CTE chains, with aggregates, CASE, window functions,
// QUALIFY and WHERE clauses. Every model has eight columns and a catalog
// entry. edit changes the SQL of some models: an expression (every 25th), a
// WHERE clause (every 40th), a column rename (every 60th).
func genProject(n int, edit bool) (*Manifest, *Catalog) {
	mdata, cdata := genProjectJSON(n, edit)
	m, err := ReadManifest(mdata, "gen-manifest.json")
	if err != nil {
		panic(err)
	}
	c, err := ReadCatalog(cdata, "gen-catalog.json")
	if err != nil {
		panic(err)
	}
	return m, c
}

// genProjectJSON is genProject's manifest.json and catalog.json as dbt
// would write them.
func genProjectJSON(n int, edit bool) (manifestJSON, catalogJSON []byte) {
	rng := rand.New(rand.NewSource(42))
	nodes := map[string]any{}
	sources := map[string]any{}
	catNodes := map[string]any{}
	catSources := map[string]any{}
	children := map[string][]string{}
	cols := []string{"k", "a", "b", "c", "d", "e", "f", "g"}
	catalogCols := func(names []string) map[string]any {
		out := map[string]any{}
		for i, c := range names {
			out[c] = map[string]any{"name": c, "type": "INTEGER", "index": i + 1}
		}
		return out
	}
	nSources := max(1, n/10)
	for i := 0; i < nSources; i++ {
		uid := fmt.Sprintf("source.gen.raw.t%d", i)
		sources[uid] = map[string]any{"unique_id": uid, "name": fmt.Sprintf("t%d", i), "identifier": fmt.Sprintf("raw_%d", i),
			"database": "db", "schema": "raw", "relation_name": fmt.Sprintf(`"db"."raw"."raw_%d"`, i)}
		catSources[uid] = map[string]any{"columns": catalogCols([]string{"id", "a", "b", "c", "d", "e", "f", "g"})}
	}
	rel := func(i int) string { return fmt.Sprintf(`"db"."main"."m%d"`, i) }
	// edited is changed in model i when the project is edited and i is the
	// last of every run of period models, else plain.
	edited := func(i, period int, plain, changed string) string {
		if edit && i%period == period-1 {
			return changed
		}
		return plain
	}
	// gColumn is the name of model i's column g.
	gColumn := func(i int) string { return edited(i, 60, "g", "g_renamed") }
	for i := 0; i < n; i++ {
		uid := fmt.Sprintf("model.gen.m%d", i)
		var sql string
		var deps []string
		outCols := append(cols[:7:7], gColumn(i))
		if i < nSources {
			src := fmt.Sprintf("source.gen.raw.t%d", i)
			deps = []string{src}
			amount := edited(i, 25, "a / 100.0", "round(a / 100.0, 2)")
			where := edited(i, 40, "where b is not null", "where b is not null and c > 0")
			sql = fmt.Sprintf(`with source as (
    select * from "db"."raw"."raw_%d"
),
renamed as (
    select id as k, %s as a, b, cast(c as bigint) as c, d, e, f, g as %s
    from source
    %s
)
select * from renamed`, i, amount, outCols[7], where)
		} else {
			l, r := rng.Intn(i), rng.Intn(i)
			deps = []string{fmt.Sprintf("model.gen.m%d", l), fmt.Sprintf("model.gen.m%d", r)}
			expr := edited(i, 25, "x.a + coalesce(y.a, 0)", "x.a - coalesce(y.a, 0)")
			where := edited(i, 40, "x.e > 0", "x.e >= 0")
			sql = fmt.Sprintf(`with x as (select * from %s),
y as (select * from %s),
joined as (
    select
        x.k,
        %s as a,
        case when x.b > 10 then 'high' when x.b > 5 then 'mid' else 'low' end as b,
        sum(x.c) over (partition by x.k order by x.d rows between unbounded preceding and current row) as c,
        row_number() over (partition by x.k order by x.d desc) as rn,
        x.d,
        y.e,
        x.f,
        x.%s as g
    from x
    left join y on x.k = y.k
    where %s
),
agg as (
    select k, max(a) as a, max(b) as b, sum(c) as c, max(d) as d, max(e) as e, count(*) as f, max(g) as g
    from joined
    where rn = 1
    group by k
)
select k, a, b, c, d, e, f, g as %s from agg`, rel(l), rel(r), expr, gColumn(l), where, outCols[7])
		}
		node := map[string]any{"unique_id": uid, "resource_type": "model", "name": fmt.Sprintf("m%d", i), "package_name": "gen",
			"database": "db", "schema": "main", "alias": fmt.Sprintf("m%d", i), "relation_name": rel(i),
			"language": "sql", "compiled_code": sql, "checksum": map[string]any{"checksum": fmt.Sprint(len(sql))},
			"config":     map[string]any{"materialized": "table", "meta": map[string]any{"tier": []string{"gold", "silver"}[i%2]}},
			"depends_on": map[string]any{"nodes": deps}, "columns": map[string]any{}}
		nodes[uid] = node
		catNodes[uid] = map[string]any{"columns": catalogCols(outCols)}
		for _, d := range deps {
			children[d] = append(children[d], uid)
		}
		if _, ok := children[uid]; !ok {
			children[uid] = []string{}
		}
	}
	manifest := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.8.7", "adapter_type": "duckdb"},
		"nodes":    nodes, "sources": sources, "exposures": map[string]any{}, "child_map": children,
	}
	catalog := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
		"nodes":    catNodes, "sources": catSources,
	}
	mdata, _ := json.Marshal(manifest)
	cdata, _ := json.Marshal(catalog)
	return mdata, cdata
}

// TestGeneratedProject: the generated project is read fully at level 2
// (every model analysed) and its edits come out as column changes.
func TestGeneratedProject(t *testing.T) {
	base, baseCat := genProject(500, false)
	head, headCat := genProject(500, true)
	cs, warnings, err := BuildLevel2(t.Context(), Inputs{Base: base, Head: head, BaseCatalog: baseCat, HeadCatalog: headCat})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %q", warnings)
	}
	kinds := map[string]int{}
	for _, c := range cs.Changes {
		kinds[c.Kind]++
		if c.Reach.ColumnsComplete == nil || !*c.Reach.ColumnsComplete {
			t.Errorf("%s.%s: column reach incomplete", c.Model, c.Column)
		}
	}
	if kinds["logic_changed"] == 0 || kinds["removed"] == 0 || kinds["added"] == 0 {
		t.Errorf("change kinds %v: the edits should give logic, removed and added changes", kinds)
	}
}

// BenchmarkBuildLevel2Generated is the level-2 changeset of a 500-model
// generated project on one core (docs/lineage.md).
func BenchmarkBuildLevel2Generated(b *testing.B) { benchGenerated(b, BuildLevel2, 1) }

// BenchmarkBuildLevel2GeneratedParallel is the same on every core
// (Parallelism 0 = GOMAXPROCS).
func BenchmarkBuildLevel2GeneratedParallel(b *testing.B) { benchGenerated(b, BuildLevel2, 0) }

// BenchmarkBuildLevel1Generated is the level-1 changeset of the same
// project, for comparison.
func BenchmarkBuildLevel1Generated(b *testing.B) { benchGenerated(b, Build, 0) }

// benchGenerated builds the changeset of the generated 500-model project's
// edit with build, parallelism models at once.
func benchGenerated(b *testing.B, build func(context.Context, Inputs) (*policy.Changeset, []string, error), parallelism int) {
	base, baseCat := genProject(500, false)
	head, headCat := genProject(500, true)
	in := Inputs{Base: base, Head: head, BaseCatalog: baseCat, HeadCatalog: headCat, Parallelism: parallelism}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := build(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeCorpus parses and analyses every statement of the lineage
// corpus; ns/op divided by the statement count is the time per statement
// (reported as ns/stmt).
func BenchmarkAnalyzeCorpus(b *testing.B) {
	files := testcorpus.Glob(b, testcorpus.Path(b, "lineage-cases"), "sql/*.json", lineageSQLCases)
	type stmt struct {
		sql     string
		dialect sqlparse.Dialect
		catalog lineage.Catalog
	}
	var stmts []stmt
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var c sqlCase
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
		d := sqlparse.Generic
		if c.Dialect != nil {
			d, _ = sqlparse.DialectFor(*c.Dialect)
		}
		schema := c.Schema
		stmts = append(stmts, stmt{c.SQL, d, func(r lineage.Relation) ([]string, bool) {
			cols, ok := schema[r.Name]
			return cols, ok
		}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range stmts {
			lineage.Analyze(b.Context(), s.sql, lineage.Options{Dialect: s.dialect, Catalog: s.catalog})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(stmts)), "ns/stmt")
}

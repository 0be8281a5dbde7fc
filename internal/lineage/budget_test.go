package lineage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/lineage/lineagetest"
	"github.com/celine-eu/governanced/internal/sqlparse"
	"github.com/celine-eu/governanced/internal/testctx"
)

func wideCatalog(n int) Catalog {
	cols := []string{"id"}
	for i := 0; i < n; i++ {
		cols = append(cols, fmt.Sprintf("a%d", i))
	}
	return func(r Relation) ([]string, bool) {
		if r.Name == "wide" {
			return cols, true
		}
		return testCatalog(r)
	}
}

// wideSelect is one SELECT of n computed columns.
func wideSelect(n int) string {
	var b strings.Builder
	b.WriteString("select ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "a%d * 2 + id as c%d", i, i)
	}
	b.WriteString(" from wide")
	return b.String()
}

// joinFan joins n relations, each on the one before it, and reads a column
// of each.
func joinFan(n int) string {
	var sel, from strings.Builder
	from.WriteString("wide t0")
	for i := 0; i < n; i++ {
		if i > 0 {
			sel.WriteString(", ")
			fmt.Fprintf(&from, " join wide t%d on t%d.id = t%d.id", i, i, i-1)
		}
		fmt.Fprintf(&sel, "t%d.a%d", i, i)
	}
	return "select " + sel.String() + " from " + from.String()
}

// unionChain is n branches of UNION ALL over the same two columns.
func unionChain(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" union all ")
		}
		fmt.Fprintf(&b, "select id, a%d as v from wide", i)
	}
	return b.String()
}

// TestWorkIsLinear: statements built to defeat a resolver that repeats
// work — CTE chains reading the ones before them, a wide select list, a
// join of many relations, a long UNION — resolve within a work that grows
// with their text: about a node visited and a fraction of a source carried
// per byte.
func TestWorkIsLinear(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		width int // of the relation wide
	}{
		{"16 CTEs each reading the two before", lineagetest.CTEChain(16, 1, "wide"), 2},
		{"24 CTEs each reading the two before", lineagetest.CTEChain(24, 1, "wide"), 2},
		{"200 CTEs each reading the two before", lineagetest.CTEChain(200, 1, "wide"), 2},
		{"8,000 computed columns", wideSelect(8000), 8000},
		{"a join of 300 relations", joinFan(300), 300},
		{"a UNION ALL of 2,000 branches", unionChain(2000), 2000},
	}
	for _, tc := range tests {
		res, err := Analyze(t.Context(), tc.sql, Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(tc.width)})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if res.Work.Nodes > 2*len(tc.sql) || res.Work.Sources > len(tc.sql) {
			t.Errorf("%s: work %+v for %d bytes of SQL", tc.name, res.Work, len(tc.sql))
		}
	}
}

// TestCTEChainDoesNotDouble: each CTE of a chain is resolved once, so a
// chain of n costs about n times one link, not 2.4ⁿ.
func TestCTEChainDoesNotDouble(t *testing.T) {
	work := func(n int) int {
		res, err := Analyze(t.Context(), lineagetest.CTEChain(n, 1, "wide"), Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(2)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Work.Nodes
	}
	w16, w32 := work(16), work(32)
	if link := (w32 - w16) / 16; w32 > 3*w16 || link > 2*(w16/16+1) {
		t.Errorf("16 CTEs: %d nodes; 32: %d (%d a link): the chain is not linear", w16, w32, link)
	}
}

// TestBudgetError: a statement whose lineage needs more than its budget
// has no result but a *BudgetError naming what ran out; the default budget
// stops a statement whose sources carried grow with the square of its
// length.
func TestBudgetError(t *testing.T) {
	tests := []struct {
		name   string
		sql    string
		budget Budget
		what   string
	}{
		{"a small node budget", lineagetest.CTEChain(16, 1, "wide"), Budget{Nodes: 500}, "nodes"},
		{"a small source budget", lineagetest.Accumulating(50, 0, "wide"), Budget{Sources: 100}, "sources"},
		{"the default budget: sources carried grow as n²", lineagetest.Accumulating(1200, 0, "wide"), Budget{}, "sources"},
	}
	for _, tc := range tests {
		res, err := Analyze(t.Context(), tc.sql, Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(1200), Budget: tc.budget})
		var over *BudgetError
		if !errors.As(err, &over) || res != nil {
			t.Errorf("%s: got %v, %v; want a *BudgetError", tc.name, res, err)
			continue
		}
		if over.What != tc.what || !strings.Contains(err.Error(), "budget of one statement") {
			t.Errorf("%s: %q (what %q), want what %q", tc.name, err, over.What, tc.what)
		}
	}
	// Within its budget, the same shape resolves.
	res, err := Analyze(t.Context(), lineagetest.Accumulating(50, 0, "wide"), Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(50)})
	if err != nil || len(res.Column("x").Sources()) != 50 {
		t.Fatalf("a chain of 50 within its budget: %v, %v", res, err)
	}
}

func TestAnalysisStopsWhenTheContextEnds(t *testing.T) {
	sql := wideSelect(8000)
	ctx := testctx.StopAfter(t.Context(), 3)
	res, err := Analyze(ctx, sql, Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(8000)})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("got %v, %v; want context.Canceled mid-way", res, err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Analyze(cancelled, "select 1", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: %v", err)
	}
}

func BenchmarkAnalyzeCTEChain(b *testing.B) {
	for _, n := range []int{16, 24} {
		sql := lineagetest.CTEChain(n, 1, "wide")
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Analyze(b.Context(), sql, Options{Dialect: sqlparse.DuckDB, Catalog: wideCatalog(2)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAnalyzeWide(b *testing.B) {
	sql := wideSelect(8000)
	catalog := wideCatalog(8000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(b.Context(), sql, Options{Dialect: sqlparse.DuckDB, Catalog: catalog}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeOverBudget is what a statement costs before its budget
// stops it.
func BenchmarkAnalyzeOverBudget(b *testing.B) {
	sql := lineagetest.Accumulating(1200, 0, "wide")
	catalog := wideCatalog(1200)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(b.Context(), sql, Options{Dialect: sqlparse.DuckDB, Catalog: catalog}); err == nil {
			b.Fatal("within budget")
		}
	}
}

package propagate

import (
	"context"
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/lineage"
)

// chain is a source then n models, each reading the one before through a
// function of its own, each governed green and open and offered.
func chain(n int) (*Graph, rules) {
	g := &Graph{Relations: []*Relation{{Name: "src", Key: "src", Kind: Origin}}}
	r := rules{"src": rule("pii", "restricted", false, false)}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("m%d", i)
		g.Relations = append(g.Relations, &Relation{Name: name, Key: name, Kind: Derived, Columns: []*Column{{Name: "x",
			Inputs: []Input{{Ref: Ref{i - 1, "x"}, Mechanism: lineage.Derived, Through: []string{fmt.Sprintf("f%05d", i)}, ThroughKnown: true}}}}})
		r[name] = rule("green", "open", false, true)
	}
	return g, r
}

// TestDeepChain: a chain of 5,000 models is audited in proportion to its
// length: each finding lists at most MaxPath hops and says how many it
// left out, and functions past MaxThrough are unknown, not a list growing
// with the chain.
func TestDeepChain(t *testing.T) {
	const n = 5000
	g, r := chain(n)
	res, err := Infer(context.Background(), g, r)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(res, AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != n {
		t.Fatalf("%d findings, want %d", len(rep.Findings), n)
	}
	hops := 0
	for _, f := range rep.Findings {
		hops += len(f.Path)
		if len(f.Path)+f.PathOmitted != depthOf(f.Relation)+1 || len(f.Path) > MaxPath {
			t.Fatalf("%s: %d hops listed and %d omitted", f.Relation, len(f.Path), f.PathOmitted)
		}
		if f.Path[0].Relation != "src" || f.Path[len(f.Path)-1].Relation != f.Relation {
			t.Fatalf("%s: path from %s to %s", f.Relation, f.Path[0].Relation, f.Path[len(f.Path)-1].Relation)
		}
	}
	if hops > n*MaxPath {
		t.Errorf("%d hops listed", hops)
	}
	last, _ := res.Column(n, "x")
	if last.ThroughKnown || len(last.Through) != 0 {
		t.Errorf("through %d functions, known %v: want unknown past %d", len(last.Through), last.ThroughKnown, MaxThrough)
	}
	if first, _ := res.Column(1, "x"); !first.ThroughKnown || len(first.Through) != 1 {
		t.Errorf("the first model's functions: %v", first.Through)
	}
}

func depthOf(name string) int {
	var d int
	fmt.Sscanf(name, "m%d", &d)
	return d
}

// TestCyclesAndBadRefs: relations reading each other end in finite work,
// as incomplete; references outside the graph are ignored.
func TestCyclesAndBadRefs(t *testing.T) {
	g := &Graph{Relations: []*Relation{
		{Name: "src", Key: "src", Kind: Origin},
		{Name: "a", Key: "a", Kind: Derived, Columns: []*Column{{Name: "x", Inputs: []Input{{Ref: Ref{2, "x"}}, {Ref: Ref{0, "x"}}, {Ref: Ref{99, "x"}}, {Ref: Ref{-1, "x"}}}}}},
		{Name: "b", Key: "b", Kind: Derived, Columns: []*Column{{Name: "x", Inputs: []Input{{Ref: Ref{1, "x"}}}}}, RowInputs: []Ref{{7, "y"}}},
	}}
	res, err := Infer(context.Background(), g, rules{"src": rule("red", "", false, false)})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := res.Column(1, "x")
	b, _ := res.Column(2, "x")
	if a.Levels.Classification != "red" || a.Complete {
		t.Errorf("a.x: %+v, want red, incomplete (it reads b before b is known)", a)
	}
	if b.Levels.Classification != "red" || b.Complete {
		t.Errorf("b.x: %+v, want red from a, incomplete like a", b)
	}
}

// BenchmarkInferChain is the inference and audit of TestDeepChain's chain.
func BenchmarkInferChain(b *testing.B) {
	g, r := chain(5000)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Infer(b.Context(), g, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Audit(res, AuditOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

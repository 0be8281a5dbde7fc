package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// seedExamplePolicies are the seed's three shipped example policies, verbatim
// in conformance cases 001, 005 and 009.
var seedExamplePolicies = []struct{ name, caseDir string }{
	{"example1-pii-outside-allowlist", "001-example1-pii-reaches-non-allowlisted-reader"},
	{"example2-breaking-reaches-critical", "005-example2-breaking-reaches-critical-blocks-and-rebuilds"},
	{"example3-provable-break-blocks", "009-example3-provable-break-blocks"},
}

// benchChangeset is 1 000 changed columns (100 models × 10 columns), each
// reaching 100 of 1 000 downstream marts by mixed mechanisms, with the meta the
// seed policies read spread so that every branch of their predicates runs.
func benchChangeset() *Changeset {
	const subjects, columnsPerSubject, marts, reachPerChange = 100, 10, 1000, 100
	cs := &Changeset{ChangesetVersion: 1, Models: map[string]*Model{}, Exposures: map[string]*Exposure{}}
	allowlist := []any{"COMPLIANCE", "PAYMENT_OPS"}
	for k := 0; k < marts; k++ {
		meta := map[string]any{}
		switch k % 4 {
		case 0:
			meta["readable_by"] = allowlist
		case 1:
			meta["readable_by"] = []any{"COMPLIANCE"}
		case 2:
			meta["readable_by"] = []any{"MARKETING", "COMPLIANCE"}
		} // case 3 declares no readers
		if k%10 == 0 {
			meta["critical"] = true
		}
		cs.Models[fmt.Sprintf("mart_%04d", k)] = &Model{Meta: meta, Columns: map[string]*Column{}}
	}
	semantics := []*string{ptr(SemanticEquivalent), ptr(SemanticMeaningChanged), ptr(SemanticIndeterminate), nil}
	mechs := [][]string{{MechanismDerivedRecompute}, {MechanismRowsetFilter}, {MechanismDirectPassthrough, MechanismRenamedPassthrough}, nil}
	for i := 0; i < subjects; i++ {
		model := fmt.Sprintf("stg_%03d", i)
		m := &Model{Meta: map[string]any{"owner_team": "data"}, Columns: map[string]*Column{}}
		cs.Models[model] = m
		for j := 0; j < columnsPerSubject; j++ {
			column := fmt.Sprintf("col_%d", j)
			m.Columns[column] = &Column{Meta: map[string]any{"pii": j%3 == 0}}
			n := i*columnsPerSubject + j
			c := &Change{
				Model:             model,
				Column:            column,
				Kind:              changeKinds[n%len(changeKinds)],
				Semantic:          semantics[n%len(semantics)],
				ProvableTestBreak: n%50 == 0,
				Reach:             Reach{Resolved: true, Exposures: []ReachedExposure{}},
			}
			for r := 0; r < reachPerChange; r++ {
				k := (n*7 + r*13) % marts
				c.Reach.Models = append(c.Reach.Models, ReachedModel{Name: fmt.Sprintf("mart_%04d", k), Mechanisms: mechs[(n+r)%len(mechs)]})
			}
			cs.Changes = append(cs.Changes, c)
		}
	}
	return cs
}

func ptr(s string) *string { return &s }

// BenchmarkSeedPolicies evaluates each seed example policy, and all three in
// one pass, on the generated 1 000 × 100 changeset.
func BenchmarkSeedPolicies(b *testing.B) {
	cs := benchChangeset()
	var all []*Policy
	for _, sp := range seedExamplePolicies {
		data, err := os.ReadFile(filepath.Join(policyCases.Dir(b), sp.caseDir, "policy.yml"))
		if err != nil {
			b.Fatal(err)
		}
		p, err := Load(data, "policy.yml")
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, p)
		b.Run(sp.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Evaluate(b.Context(), p, cs)
			}
		})
	}
	b.Run("all-three", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range all {
				Evaluate(b.Context(), p, cs)
			}
		}
	})
}

package owners

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// FuzzParse feeds the registry loader arbitrary documents: it must never panic,
// and whatever it accepts must build into a registry whose lookups agree.
func FuzzParse(f *testing.F) {
	// dataset-api's registry (the project's copy), then the package's own cases.
	b, err := os.ReadFile(testcorpus.Path(f, "reference/dataset-api/owners.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, name := range []string{"dataset-api-owners.yaml", "merged-base.yaml", "merged-deploy.yaml", "partial.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"owners:\n  - {id: a, aliases: [b]}\n  - {id: b, aliases: [a, c]}\n  - {id: a, url: u}\n",
		"owners:\n  - id: a\n    organization_config: {create: 'Y', attributes: {k: v}}\n",
		"owners: [{id: '', did: '', url: ''}]\n", "- a\n", "owners: {}\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {Validate: true}} {
			file, err := Parse(data, "fuzz.yaml", opts)
			if err != nil {
				if file != nil {
					t.Fatal("an error with a half-loaded file")
				}
				continue
			}
			for _, r := range []*Registry{file.Build(), Materialise(file)} {
				all := r.All()
				if r.Len() != len(all) {
					t.Fatalf("Len %d, All %d", r.Len(), len(all))
				}
				seen := map[string]bool{}
				for _, e := range all {
					if seen[e.ID] {
						t.Fatalf("id %q listed twice", e.ID)
					}
					seen[e.ID] = true
					if got := r.ByID(e.ID); got != e {
						t.Fatalf("ByID(%q) is not the listed entry", e.ID)
					}
					if _, err := e.MarshalJSON(); err != nil {
						t.Fatal(err)
					}
				}
				for _, a := range r.Aliases() {
					if seen[a.Alias] {
						t.Fatalf("alias %q shadows an id", a.Alias)
					}
					if r.ByID(a.Alias) == nil || r.ByID(a.Alias).ID != a.ID {
						t.Fatalf("alias %q does not resolve to %q", a.Alias, a.ID)
					}
				}
			}
		}
	})
}

package governance

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// FuzzParse: whatever the bytes, Parse either returns a *Error naming the
// file, with a class, or a configuration every source of which resolves and
// renders to valid JSON — alone, merged with itself as an overlay, and as a
// facet. Seeded with the reference apps' governance.yaml files.
func FuzzParse(f *testing.F) {
	paths := testcorpus.ReferenceApps(f)
	for _, data := range testcorpus.ReadFiles(f, paths) {
		f.Add(data)
	}
	for _, s := range []string{
		"defaults: {access_level: internal}\nsources:\n  ds.a: {expose: true}\n  ds.*: {tags: [x]}\n",
		"defaults: &d {tags: [a]}\nsources:\n  ds.a: {<<: *d, expose: yes}\n  'ds.[ab]': null\n",
		"defaults: {}\nsources: {ds.a: {dataspace: {expose: true, purpose: [R]}, retention_days: 017}}\n",
		"sources: [", "", "- a\n", "defaults: {extra: {k: [1, 2024-01-01]}}\nsources: {}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.yaml")
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) || ge.File != "fuzz.yaml" || ge.Class == "" {
				t.Fatalf("error %T %v: want a *governance.Error naming the file, with a class", err, err)
			}
			return
		}
		for _, c := range []*Config{cfg, MergeConfigs(cfg, cfg)} {
			var buf bytes.Buffer
			for _, src := range c.Sources {
				for _, name := range []string{src.Key, src.Key + ".x", "unmatched"} {
					rule, _ := c.Resolve(name)
					buf.Reset()
					rule.AppendJSON(&buf)
					if !json.Valid(buf.Bytes()) {
						t.Fatalf("%q resolves to invalid JSON: %s", name, buf.Bytes())
					}
					if _, err := json.Marshal(BuildFacet(rule, DefaultProducer, true)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := c.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
		// The same document as an overlay.
		if doc, err := yaml11.Parse(data); err == nil {
			_, _ = ParseOverlayDocument(doc, "fuzz.yaml")
		}
	})
}

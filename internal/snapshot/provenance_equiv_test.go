package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// The provenance a merged rule records (governance.Rule.AppendProvenanceJSON)
// must be byte for byte what appendProvenance reads from the layers' YAML
// nodes: the tests below hold the two to each other over every rule of the
// real files, the test trees, generated trees and hand-written edge cases.

// provUnit is one base document and its overlay ("" for none), as text.
type provUnit struct {
	name                  string
	baseFile, overlayFile string
	base, overlay         []byte
}

// compareProvenance parses a unit as the check does (ParseDocument,
// ParseOverlayDocument, MergeConfigs), then for every sources key and for
// the defaults compares the merged rule's provenance with the one
// appendProvenance derives from the documents. It returns how many rules it
// compared.
func compareProvenance(t *testing.T, pu provUnit) int {
	t.Helper()
	baseRoot, err := yaml11.Parse(pu.base)
	if err != nil {
		t.Fatalf("%s: %v", pu.name, err)
	}
	cfg, err := governance.ParseDocument(baseRoot, pu.baseFile)
	if err != nil {
		t.Fatalf("%s: %v", pu.name, err)
	}
	var overlayRoot *yaml11.Node
	if pu.overlayFile != "" {
		if overlayRoot, err = yaml11.Parse(pu.overlay); err != nil {
			t.Fatalf("%s: %v", pu.name, err)
		}
		ov, err := governance.ParseOverlayDocument(overlayRoot, pu.overlayFile)
		if err != nil {
			t.Fatalf("%s: %v", pu.name, err)
		}
		cfg = governance.MergeConfigs(cfg, ov)
	}
	lay := newUnitLayers(unit{app: pu.name, base: pu.baseFile, overlay: pu.overlayFile, config: cfg, baseRoot: baseRoot, overlayRoot: overlayRoot})
	n := 0
	check := func(what string, rule *governance.Rule, key string, withSource bool) {
		t.Helper()
		want := appendProvenanceJSON(nil, lay.appendProvenance(nil, key, withSource), pu.baseFile, pu.overlayFile)
		got := rule.AppendProvenanceJSON(nil)
		n++
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %s: provenance differs\n got: %s\nwant: %s", pu.name, what, got, want)
		}
	}
	for _, src := range cfg.Sources {
		check("sources/"+src.Key, governance.MergeRules(cfg.Defaults, src.Rule), src.Key, true)
	}
	check("defaults", cfg.Defaults, "", false)
	return n
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProvenanceEquivalenceReal: the 17 real files alone, each laid over
// itself (every key stated in all four layers), and each with the next as
// its overlay (keys of both, and keys of the overlay alone).
func TestProvenanceEquivalenceReal(t *testing.T) {
	paths := testcorpus.Glob(t, testcorpus.Path(t, "reference/celine-pipelines/apps"), "*/governance.yaml", 17)
	n := 0
	for i, p := range paths {
		app := filepath.Base(filepath.Dir(p))
		base := readFile(t, p)
		file := "apps/" + app + "/governance.yaml"
		n += compareProvenance(t, provUnit{name: app, baseFile: file, base: base})
		n += compareProvenance(t, provUnit{name: app + " over itself", baseFile: file, base: base,
			overlayFile: "apps/" + app + "/governance." + app + ".yaml", overlay: base})
		next := paths[(i+1)%len(paths)]
		n += compareProvenance(t, provUnit{name: app + " under " + filepath.Base(filepath.Dir(next)), baseFile: file, base: base,
			overlayFile: "apps/" + app + "/governance." + app + ".yaml", overlay: readFile(t, next)})
	}
	// 174 keys and 17 defaults, three ways, and the keys the next file adds.
	if n < 3*(174+17) {
		t.Errorf("compared %d rules, want at least %d", n, 3*(174+17))
	}
	t.Logf("compared %d rules", n)
}

// treeUnits reads the units of a tree on disk: apps/<app>/governance.yaml
// and, beside it, governance.<app>.yaml as its overlay.
func treeUnits(t *testing.T, root string) []provUnit {
	t.Helper()
	bases, err := filepath.Glob(filepath.Join(root, "apps", "*", "governance.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no apps under %s (%v)", root, err)
	}
	var out []provUnit
	for _, p := range bases {
		app := filepath.Base(filepath.Dir(p))
		pu := provUnit{name: app, baseFile: "apps/" + app + "/governance.yaml", base: readFile(t, p)}
		if ov, err := os.ReadFile(filepath.Join(filepath.Dir(p), "governance."+app+".yaml")); err == nil {
			pu.overlayFile, pu.overlay = "apps/"+app+"/governance."+app+".yaml", ov
		}
		out = append(out, pu)
	}
	return out
}

// compareSnapshot builds a snapshot of the tree as the server does (the
// check, owners resolution, display paths) and compares, for every dataset
// and every app's defaults, the provenance it serves with the one its rule
// records.
func compareSnapshot(t *testing.T, in Inputs) int {
	t.Helper()
	s, err := (&Loader{Inputs: in}).Build()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range s.Apps() {
		for _, d := range append([]*Dataset{a.defaults}, a.Datasets...) {
			n++
			if got, want := d.Rule().AppendProvenanceJSON(nil), d.Provenance(); !bytes.Equal(got, want) {
				t.Errorf("%s %q: provenance differs\n got: %s\nwant: %s", a.Name, d.ID, got, want)
			}
		}
	}
	return n
}

func TestProvenanceEquivalenceTestTrees(t *testing.T) {
	apiTree := filepath.Join(filepath.Dir(testcorpus.Root(t)), "api", "testdata", "tree")
	demoTree := t.TempDir()
	if err := demo.WriteTo(demoTree); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{apiTree, demoTree} {
		units := treeUnits(t, root)
		overlays, n := 0, 0
		for _, pu := range units {
			n += compareProvenance(t, pu)
			if pu.overlayFile != "" {
				overlays++
			}
		}
		if overlays == 0 {
			t.Errorf("%s: no unit has an overlay", root)
		}
		n += compareSnapshot(t, Inputs{Trees: []string{root}, Owners: []string{filepath.Join(root, "owners.yaml")}})
		t.Logf("%s: compared %d rules", root, n)
	}
}

func TestProvenanceEquivalenceGenerated(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 4; seed++ {
		tree := treegen.Generate(treegen.Options{Apps: 10, Sources: 1000, Seed: seed, OverlayShare: 0.6, OverlayName: "ovl"})
		overlays := 0
		for a := range 10 {
			dir := fmt.Sprintf("apps/app_%03d/", a)
			pu := provUnit{name: fmt.Sprintf("seed %d %s", seed, dir), baseFile: dir + "governance.yaml", base: tree.Files[dir+"governance.yaml"]}
			if ov, ok := tree.Files[dir+"governance.ovl.yaml"]; ok {
				pu.overlayFile, pu.overlay = dir+"governance.ovl.yaml", ov
				overlays++
			}
			total += compareProvenance(t, pu)
		}
		if overlays == 0 {
			t.Errorf("seed %d: no app has an overlay", seed)
		}
	}
	// One tree served whole: owners resolved, overlays paired by the check.
	tree := treegen.Generate(treegen.Options{Apps: 5, Sources: 500, Seed: 9, OverlayShare: 1})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	total += compareSnapshot(t, Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy"})
	if total < 4*1000+500 {
		t.Errorf("compared %d rules, want at least %d", total, 4*1000+500)
	}
	t.Logf("compared %d rules", total)
}

// provEdgeCases are pairs of documents for every rule of the merge table
// provenance follows; each is compared for every key and the defaults.
var provEdgeCases = []struct {
	name, base, overlay string // overlay "" for none
}{
	{"last stating layer wins, four layers",
		"defaults: {title: D, license: L, expose: false}\nsources:\n  a: {title: S, expose: null}\n  b: {}\n  c:\n",
		"defaults: {title: OD, license: null}\nsources:\n  a: {title: OS}\n  b: {license: OL}\n"},
	{"ownership and row_filters: last non-empty, else last stating",
		"defaults: {ownership: [x], row_filters: []}\nsources:\n  a: {ownership: []}\n  b: {row_filters: [{handler: h}]}\n  c: {ownership: [], row_filters: []}\n",
		"defaults: {row_filters: []}\nsources:\n  a: {ownership: []}\n  c: {ownership: [y], row_filters: []}\n"},
	{"empty lists everywhere",
		"defaults: {ownership: [], row_filters: []}\nsources:\n  a: {ownership: []}\n  b: {row_filters: []}\n",
		"defaults: {ownership: []}\nsources:\n  b: {row_filters: [], ownership: []}\n"},
	{"empty lists without an overlay",
		"defaults: {ownership: [], tags: []}\nsources:\n  a: {ownership: [], tags: []}\n  b: {ownership: [o]}\n", ""},
	{"null blocks inherit the last mapping",
		"defaults:\n  dcat: {themes: [t], conforms_to: c}\n  dataspace: {medallion: gold, expose: true}\n  ontology: {spec: s, spec_file: f}\nsources:\n  a: {dcat: null, dataspace: null, ontology: null}\n  b: {dcat: {themes: []}, dataspace: {expose: false}, ontology: {spec_file: g}}\n  c: {}\n",
		"defaults: {dcat: null, ontology: null}\nsources:\n  a: {dataspace: null}\n  b: {dcat: null, ontology: null, dataspace: null}\n"},
	{"null blocks with no mapping anywhere",
		"defaults: {dcat: null, dataspace: null, ontology: null}\nsources:\n  a: {dcat: null, dataspace: null, ontology: null}\n  b: {}\n",
		"defaults: {dcat: null}\nsources:\n  a: {ontology: null}\n  c: {dataspace: null}\n"},
	{"empty mappings replace the block's place",
		"defaults: {dcat: {themes: [t]}, ontology: {spec: s}, dataspace: {purpose: [p]}}\nsources:\n  a: {dcat: {}, ontology: {}, dataspace: {}}\n",
		"sources:\n  a: {ontology: {spec_file: f}}\n  b: {ontology: {}}\n"},
	{"ontology sub-fields follow the winning mapping",
		"defaults: {ontology: {spec: s, spec_file: f}}\nsources:\n  a: {ontology: {spec_file: g}}\n  b: {ontology: {spec: null}}\n",
		"defaults: {ontology: {spec: t}}\nsources:\n  a: {ontology: null}\n"},
	{"temporal: a null resets start and end",
		"defaults: {dcat: {temporal: {start: '2020', end: '2021'}}}\nsources:\n  a: {dcat: {temporal: null}}\n  b: {dcat: {temporal: {end: '2022'}}}\n  c: {dcat: {temporal: null}}\n  d: {dcat: null}\n",
		"defaults: {dcat: {temporal: {end: '2023'}}}\nsources:\n  c: {dcat: {temporal: {start: '2024'}}}\n  d: {dcat: {temporal: null}}\n"},
	{"temporal: a null in the base source, a mapping in the overlay source",
		"defaults: {dcat: {temporal: {start: '2020', end: '2021'}}}\nsources:\n  a: {dcat: {temporal: null}}\n",
		"sources:\n  a: {dcat: {temporal: {start: '2024'}}}\n"},
	{"temporal: a null in the overlay defaults",
		"defaults: {dcat: {temporal: {start: '2020'}}}\nsources:\n  a: {dcat: {temporal: {end: '2021'}}}\n  b: {dcat: {publisher_uri: p}}\n",
		"defaults: {dcat: {temporal: null}}\n"},
	{"temporal: empty mappings and null bounds",
		"defaults: {dcat: {temporal: {}}}\nsources:\n  a: {dcat: {temporal: {start: null}}}\n  b: {dcat: {temporal: {}}}\n",
		"defaults: {dcat: {temporal: {end: null}}}\nsources:\n  b: {dcat: {temporal: null}}\n"},
	{"every dcat field",
		"defaults:\n  dcat: {publisher_uri: p, themes: [t], language_uris: [l], spatial_uris: [s], accrual_periodicity: a, conforms_to: c, temporal: {start: x, end: y}, other: dropped}\nsources:\n  a: {dcat: {language_uris: [], conforms_to: null}}\n",
		"sources:\n  a: {dcat: {spatial_uris: [z], 7: x}}\n"},
	{"tags merged from two to four layers",
		"defaults: {tags: [a]}\nsources:\n  two: {tags: [b]}\n  three: {tags: [c]}\n  four: {tags: []}\n  one: {}\n",
		"defaults: {tags: [d]}\nsources:\n  three: {title: x}\n  four: {tags: [e]}\n  only: {tags: [f]}\n"},
	{"tags in one layer",
		"sources:\n  a: {tags: [x, x]}\n  b: {}\n",
		"sources:\n  b: {tags: [y]}\n"},
	{"dataspace flags and purpose merged from every mapping",
		"defaults: {dataspace: {purpose: [p], contract_required: true, consent_required: false}}\nsources:\n  a: {dataspace: {purpose: [q], contract_required: false}}\n  b: {dataspace: null}\n  c: {dataspace: {consent_required: yes, odrl_action: read}}\n  d: {dataspace: {}}\n",
		"defaults: {dataspace: {purpose: [r], consent_required: true}}\nsources:\n  a: {dataspace: {purpose: [], contract_required: true, consent_required: false}}\n  b: {dataspace: {contract_required: true}}\n  c: {dataspace: null}\n  e: {dataspace: {purpose: [s], expose: true, medallion: null}}\n"},
	{"dataspace flags without an overlay",
		"defaults: {dataspace: {purpose: [p]}}\nsources:\n  a: {dataspace: {purpose: [q], expose: true}}\n  b: {dataspace: {medallion: m, extra_edc: {x: 1}}}\n", ""},
	{"extra keys, first met across layers",
		"defaults: {k1: 1, k2: {a: b}}\nsources:\n  a: {k3: 3, k1: one}\n  b: {}\n",
		"defaults: {k4: 4}\nsources:\n  a: {k2: two, k5: 5}\n  b: {k5: five, k1: uno}\n  c: {k6: 6}\n"},
	{"extra keys in the overlay alone",
		"defaults: {title: T}\nsources:\n  a: {title: A}\n",
		"defaults: {k: v}\nsources:\n  a: {x: [1, 2], extra: e, \"q\\\"uote\": 1, é: 2}\n"},
	{"blocks nested under governance",
		"defaults:\n  governance: {title: D, tags: [a]}\nsources:\n  a:\n    governance: {title: A, k: v}\n    ignored: 1\n  b: {governance: null}\n  c: {governance: {}}\n",
		"defaults: {governance: {tags: [b]}}\nsources:\n  a: {governance: {tags: [c], k: w}}\n  b: {governance: {expose: true}}\n"},
	{"anchors, aliases and merge keys",
		"defaults: &d {tags: [a], dataspace: &ds {purpose: [p]}}\nsources:\n  a: {<<: *d, title: A}\n  b: {dataspace: *ds, tags: [b]}\n",
		"x: &x {tags: [z], k: v}\ndefaults: *x\nsources: {a: *x}\n"},
	{"null and empty documents and defaults",
		"defaults: null\nsources:\n  a: null\n  b: {title: B}\n",
		"defaults:\nsources: null\n"},
	{"an empty overlay",
		"defaults: {tags: [a], dcat: {themes: [t]}}\nsources:\n  a: {tags: [b]}\n",
		"# nothing\n"},
	{"overlay-only sources keys",
		"defaults: {ownership: [a]}\nsources: {}\n",
		"sources:\n  'ds.*': {ownership: [b], dataspace: {purpose: [p], consent_required: true}}\n  ds.x: {tags: [t]}\n"},
	{"every field in every layer",
		everyField("D"), everyField("O")},
}

// everyField is a document stating every field, in its defaults and in one
// source block.
func everyField(v string) string {
	block := fmt.Sprintf(`{title: %[1]s, description: %[1]s, expose: true, license: %[1]s, attribution: %[1]s,
    ownership: [%[1]s], access_level: %[1]s, access_requirements: %[1]s, classification: %[1]s, tags: [%[1]s],
    retention_days: 1, documentation_url: %[1]s, source_system: %[1]s, row_filters: [{handler: %[1]s}],
    user_filter_column: %[1]s, dcat: {publisher_uri: %[1]s, themes: [%[1]s], language_uris: [%[1]s],
    spatial_uris: [%[1]s], accrual_periodicity: %[1]s, conforms_to: %[1]s, temporal: {start: %[1]s, end: %[1]s}},
    ontology: {spec: %[1]s, spec_file: %[1]s}, dataspace: {medallion: %[1]s, contract_required: true,
    consent_required: true, odrl_action: %[1]s, purpose: [%[1]s], expose: true}, x_%[1]s: 1, shared: %[1]s}`, v)
	return "defaults: " + block + "\nsources:\n  a: " + block + "\n  b: {}\n"
}

func TestProvenanceEquivalenceEdgeCases(t *testing.T) {
	n := 0
	for _, c := range provEdgeCases {
		pu := provUnit{name: c.name, baseFile: "apps/edge/governance.yaml", base: []byte(c.base)}
		if c.overlay != "" {
			pu.overlayFile, pu.overlay = "apps/edge/governance.edge.yaml", []byte(c.overlay)
		}
		n += compareProvenance(t, pu)
		// The base alone as well, and the overlay as a base of its own.
		n += compareProvenance(t, provUnit{name: c.name + " (base alone)", baseFile: pu.baseFile, base: pu.base})
		if c.overlay != "" {
			n += compareProvenance(t, provUnit{name: c.name + " (overlay as a base)", baseFile: pu.overlayFile, base: pu.overlay})
		}
	}
	t.Logf("compared %d rules", n)
}

// TestProvenanceEdgeCasesSayWhatTheyTest keeps the edge cases honest: each
// path the merge table treats specially appears in some case's provenance,
// with merged_from lists of two, three and four layers.
func TestProvenanceEdgeCasesSayWhatTheyTest(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range provEdgeCases {
		baseRoot, _ := yaml11.Parse([]byte(c.base))
		cfg, err := governance.ParseDocument(baseRoot, "b.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.overlay != "" {
			ovRoot, _ := yaml11.Parse([]byte(c.overlay))
			ov, err := governance.ParseOverlayDocument(ovRoot, "o.yaml")
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			cfg = governance.MergeConfigs(cfg, ov)
		}
		for _, src := range cfg.Sources {
			var prov map[string]struct {
				Layer      string            `json:"layer"`
				MergedFrom []json.RawMessage `json:"merged_from"`
			}
			if err := json.Unmarshal(governance.MergeRules(cfg.Defaults, src.Rule).AppendProvenanceJSON(nil), &prov); err != nil {
				t.Fatal(err)
			}
			for path, p := range prov {
				if strings.HasPrefix(path, "extra.") {
					path = "extra"
				}
				seen[path] = true
				seen[path+" from "+p.Layer] = true
				if n := len(p.MergedFrom); n > 0 {
					seen[fmt.Sprintf("%s merged from %d", path, n)] = true
				}
			}
		}
	}
	for _, want := range []string{
		"tags merged from 2", "tags merged from 3", "tags merged from 4",
		"dataspace.purpose merged from 2", "dataspace.purpose merged from 3",
		"dataspace.contract_required merged from 3", "dataspace.consent_required merged from 2",
		"dcat.temporal.start from overlay.source", "dcat.temporal.end from source",
		"ontology.spec_file from source", "extra from overlay.source", "extra from overlay.defaults",
		"ownership from overlay.source", "row_filters from source",
	} {
		if !seen[want] {
			t.Errorf("no edge case has %s", want)
		}
	}
}

// FuzzProvenanceEquivalence compares the two on any pair of documents that
// parse: a base and an overlay, each key and the defaults. Seeded with the
// edge cases.
func FuzzProvenanceEquivalence(f *testing.F) {
	for _, c := range provEdgeCases {
		f.Add([]byte(c.base), []byte(c.overlay))
	}
	f.Fuzz(func(t *testing.T, base, overlay []byte) {
		for _, doc := range [][]byte{base, overlay} {
			root, err := yaml11.Parse(doc)
			if err != nil {
				return
			}
			if _, err := governance.ParseDocument(root, "x.yaml"); err != nil {
				return
			}
		}
		compareProvenance(t, provUnit{name: "fuzz", baseFile: "apps/f/governance.yaml", base: base,
			overlayFile: "apps/f/governance.f.yaml", overlay: overlay})
	})
}

package governance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/yaml11"
)

func parseDocText(t testing.TB, file, text string, overlay bool) *Config {
	t.Helper()
	doc, err := yaml11.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	parse := ParseDocument
	if overlay {
		parse = ParseOverlayDocument
	}
	cfg, err := parse(doc, file)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// origin renders one expected origin object.
func origin(layer, file string, line, col int, from ...string) string {
	s := fmt.Sprintf(`{"layer":%q,"file":%q,"line":%d,"column":%d`, layer, file, line, col)
	if len(from) > 0 {
		s += `,"merged_from":[` + strings.Join(from, ",") + `]`
	}
	return s + "}"
}

// TestProvenanceOfServedRule renders the provenance of a rule merged from
// the four layers of a base and its overlay, positions counted by hand.
func TestProvenanceOfServedRule(t *testing.T) {
	base := parseDocText(t, "b.yaml", `defaults:
  tags: [a]
  dataspace: {purpose: [p]}
sources:
  ds:
    title: T
    dataspace: {purpose: [q], expose: true}
    k: v
`, false)
	overlay := parseDocText(t, "o.yaml", `defaults:
  tags: [b]
sources:
  ds:
    dcat: {temporal: {start: x}}
`, true)
	cfg := MergeConfigs(base, overlay)
	rule, _ := cfg.ResolveKey("ds")
	const b, o = "b.yaml", "o.yaml"
	want := "{" + strings.Join([]string{
		`"title":` + origin(LayerSource, b, 6, 12),
		`"tags":` + origin(LayerOverlayDefaults, o, 2, 9, origin(LayerDefaults, b, 2, 9), origin(LayerOverlayDefaults, o, 2, 9)),
		`"dcat":` + origin(LayerOverlaySource, o, 5, 11),
		`"dcat.temporal":` + origin(LayerOverlaySource, o, 5, 22),
		`"dcat.temporal.start":` + origin(LayerOverlaySource, o, 5, 30),
		`"dataspace":` + origin(LayerSource, b, 7, 16),
		`"dataspace.purpose":` + origin(LayerSource, b, 7, 26, origin(LayerDefaults, b, 3, 24), origin(LayerSource, b, 7, 26)),
		`"dataspace.expose":` + origin(LayerSource, b, 7, 39),
		`"extra.k":` + origin(LayerSource, b, 8, 8),
	}, ",") + "}"
	if got := string(rule.AppendProvenanceJSON(nil)); got != want {
		t.Errorf("provenance:\n got %s\nwant %s", got, want)
	}
	samePlaces(t, "the served rule", rule, []byte(want))
	// The defaults alone: two layers.
	wantDefaults := `{"tags":` + origin(LayerOverlayDefaults, o, 2, 9, origin(LayerDefaults, b, 2, 9), origin(LayerOverlayDefaults, o, 2, 9)) +
		`,"dataspace":` + origin(LayerDefaults, b, 3, 14) + `,"dataspace.purpose":` + origin(LayerDefaults, b, 3, 24) + "}"
	if got := string(cfg.Defaults.AppendProvenanceJSON(nil)); got != wantDefaults {
		t.Errorf("defaults' provenance:\n got %s\nwant %s", got, wantDefaults)
	}
	// Origin answers the same places.
	if got := placeOf(rule, FieldTags); got != (place{o, 2, 9}) {
		t.Errorf("Origin(tags) = %+v", got)
	}
	if l := rule.Origin(FieldDcat).Layer; l == nil || l.Name != LayerOverlaySource || l.Kind != "overlay" {
		t.Errorf("Origin(dcat).Layer = %+v, want the overlay's sources", l)
	}
}

// TestOriginOfEmptyLists: with no non-empty ownership or row_filters
// anywhere, the value is the (empty) base's and its place the last
// statement's, as explain=true reports it.
func TestOriginOfEmptyLists(t *testing.T) {
	a := parseRuleText(t, "a.yaml", "ownership: []\n")
	b := parseRuleText(t, "b.yaml", "\nownership: []\nrow_filters: []\n")
	c := parseRuleText(t, "c.yaml", "\n\nownership: [x]\n")
	for _, tt := range []struct {
		name      string
		rule      *Rule
		f         Field
		want      place
		wantOwner int
	}{
		{"[] then []", MergeRules(a, b), FieldOwnership, place{"b.yaml", 2, 12}, 0},
		{"unset then []", MergeRules(&Rule{}, b), FieldRowFilters, place{"b.yaml", 3, 14}, 0},
		{"[x] then []", MergeRules(c, b), FieldOwnership, place{"c.yaml", 3, 12}, 1},
		{"[] then [x]", MergeRules(a, c), FieldOwnership, place{"c.yaml", 3, 12}, 1},
		{"[] then unset", MergeRules(a, &Rule{}), FieldOwnership, place{"a.yaml", 1, 12}, 0},
	} {
		if got := placeOf(tt.rule, tt.f); got != tt.want {
			t.Errorf("%s: %s from %+v, want %+v", tt.name, tt.f.Key(), got, tt.want)
		}
		if len(tt.rule.Ownership()) != tt.wantOwner {
			t.Errorf("%s: ownership %v", tt.name, tt.rule.Ownership())
		}
	}
}

// TestMergeSharesUnchangedProvenance: a merge whose override states nothing
// with provenance of its own below the top level keeps the base's entries
// without copying them, and a merge of rules stating no nested path, no
// tags on both sides and no extra key allocates only the rule, and its
// places when the override states a field (a merge over nothing, the
// rule alone).
func TestMergeSharesUnchangedProvenance(t *testing.T) {
	base := parseRuleText(t, "a.yaml", "dcat: {themes: [t]}\nk: v\ntags: [x]\n")
	over := parseRuleText(t, "b.yaml", "title: T\n")
	placesAt := func(r *Rule) *byte { return unsafe.StringData(string(r.places)) }
	if m := MergeRules(base, over); len(m.places) == 0 || placesAt(m) == placesAt(base) || !slices.Equal(m.paths(nil), base.paths(nil)) {
		t.Errorf("the merge's entries %v, want the base's %v in places of its own", m.paths(nil), base.paths(nil))
	}
	if m := MergeRules(base, &Rule{}); len(m.places) == 0 || placesAt(m) != placesAt(base) {
		t.Errorf("a merge over nothing copied the base's places")
	}
	flatBase := parseRuleText(t, "a.yaml", "license: L\naccess_level: internal\n")
	flatOver := parseRuleText(t, "b.yaml", "title: T\nexpose: true\nrow_filters: []\n")
	if n := testing.AllocsPerRun(100, func() { MergeRules(flatBase, flatOver) }); n != 2 {
		t.Errorf("a merge of flat rules made %v allocations, want 2 (the rule, its places)", n)
	}
	nothing := &Rule{}
	if n := testing.AllocsPerRun(100, func() { MergeRules(flatBase, nothing) }); n != 1 {
		t.Errorf("a merge over nothing made %v allocations, want 1 (the rule)", n)
	}
}

// FuzzMergeProvenance merges up to four blocks (the values of the input's
// root mapping, parsed as a base's defaults and sources and an overlay's) in
// the order a served rule is merged and as a left fold, and checks what any
// merge must hold: no panic; valid JSON with each path once; every entry
// naming one of the input layers at a real position; entries sorted and the
// operands unchanged; and the paths with provenance being the paths the
// merged value states. A left fold states exactly those paths. Merged in the
// served order, dcat.temporal.start and end may be stated without an entry:
// the value then keeps a bound a null in the override's first layer reset
// (see temporalBounds); every other path must match.
func FuzzMergeProvenance(f *testing.F) {
	for _, s := range []string{
		"a: {tags: [x], dcat: {temporal: {start: s}}}\nb: {tags: [y]}\nc: {dcat: {temporal: null}}\nd: {dcat: {temporal: {end: e}}}\n",
		"a: {dataspace: {purpose: [p], contract_required: true}}\nb: {dataspace: null}\nc: {dataspace: {purpose: [q]}}\nd: {dataspace: {consent_required: true, purpose: []}}\n",
		"a: {ontology: {spec: s, spec_file: f}, k: 1}\nb: {ontology: null, j: 2}\nc: {ontology: {}, k: 3}\nd: {governance: {ownership: [], row_filters: [{handler: h}]}}\n",
		"a: {ownership: []}\nb: {ownership: []}\nc: {ownership: [x]}\nd: {ownership: []}\n",
		"a: {dcat: {themes: [t], temporal: {start: s}}}\nc: {dcat: {temporal: null}}\nd: {dcat: {temporal: {end: e}}}\nb: null\n",
		"a: {}\nb:\nc: {title: null, expose: null}\nd: {extra: {x: 1}, '': 2}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := yaml11.Parse(data)
		if err != nil || doc == nil || doc.Kind != yaml11.Map {
			return
		}
		bd, bs := newLayers("base.yaml", false)
		od, os := newLayers("overlay.yaml", true)
		layers := []*Layer{bd, od, bs, os}
		var rules []*Rule
		for i, pair := range doc.Pairs {
			if i == len(layers) {
				break
			}
			p := &parser{file: layers[i].File, layer: layers[i]}
			r, err := p.block(pair.Value, "")
			if err != nil {
				return
			}
			rules = append(rules, r)
		}
		for len(rules) < len(layers) {
			rules = append(rules, &Rule{})
		}
		before := make([][]byte, len(rules))
		for i, r := range rules {
			before[i] = r.AppendProvenanceJSON(nil)
			holdsProvenance(t, "block "+layers[i].Name, r, layers[i:i+1], false)
		}
		served := MergeRules(MergeRules(rules[0], rules[1]), MergeRules(rules[2], rules[3]))
		holdsProvenance(t, "served", served, layers, true)
		fold := rules[0]
		for _, r := range rules[1:] {
			fold = MergeRules(fold, r)
			holdsProvenance(t, "fold", fold, layers, false)
		}
		for i, r := range rules {
			if got := r.AppendProvenanceJSON(nil); !bytes.Equal(got, before[i]) {
				t.Fatalf("merging changed block %d's provenance:\n%s\n%s", i, before[i], got)
			}
		}
	})
}

// holdsProvenance checks a rule's provenance against its value; with
// twoStep, temporal bounds may be stated without an entry.
func holdsProvenance(t *testing.T, what string, r *Rule, layers []*Layer, twoStep bool) {
	t.Helper()
	if es := r.paths(nil); !slices.IsSortedFunc(es, func(a, b pathPosition) int { return int(a.code) - int(b.code) }) {
		t.Fatalf("%s: entries out of order: %v", what, es)
	}
	body := r.AppendProvenanceJSON(nil)
	samePlaces(t, what, r, body)
	if list := provenanceListJSON(r.Provenance()); list != string(body) {
		t.Fatalf("%s: Provenance() says\n%s\nAppendProvenanceJSON says\n%s", what, list, body)
	}
	type originJSON struct {
		Layer, File  string
		Line, Column int
	}
	var prov map[string]struct {
		originJSON
		MergedFrom []originJSON `json:"merged_from"`
	}
	if err := json.Unmarshal(body, &prov); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	paths := jsonKeys(t, body)
	if len(paths) != len(prov) {
		t.Fatalf("%s: a path twice: %s", what, body)
	}
	known := func(o originJSON) bool {
		return o.Line > 0 && o.Column > 0 && slices.ContainsFunc(layers, func(l *Layer) bool { return l.Name == o.Layer && l.File == o.File })
	}
	for path, p := range prov {
		if !known(p.originJSON) {
			t.Fatalf("%s: %s: %+v names no input layer (%s)", what, path, p.originJSON, body)
		}
		for _, m := range p.MergedFrom {
			if !known(m) {
				t.Fatalf("%s: %s merged from %+v, no input layer", what, path, m)
			}
		}
		if n := len(p.MergedFrom); n == 1 || n > len(layers) {
			t.Fatalf("%s: %s merged from %d statements", what, path, n)
		}
	}
	stated := statedPaths(r)
	for _, p := range stated {
		if _, ok := prov[p]; !ok && !(twoStep && strings.HasPrefix(p, "dcat.temporal.")) {
			t.Fatalf("%s: %s is stated, without provenance: %s", what, p, body)
		}
	}
	for _, p := range paths {
		if !slices.Contains(stated, p) {
			t.Fatalf("%s: provenance for %s, which the rule does not state: %s", what, p, body)
		}
	}
}

// statedPaths are the field paths r's value states, in rendering order.
func statedPaths(r *Rule) []string {
	var out []string
	for f := Field(0); f < FieldExtra; f++ {
		if !r.Set.Has(f) {
			continue
		}
		out = append(out, f.Key())
		switch {
		case f == FieldDcat && r.Dcat != nil:
			for i, k := range dcatKeys {
				if r.Dcat.Set.Has(DcatField(i)) {
					out = append(out, "dcat."+k)
				}
			}
			if t := r.Dcat.Temporal; t != nil {
				if t.StartSet {
					out = append(out, "dcat.temporal.start")
				}
				if t.EndSet {
					out = append(out, "dcat.temporal.end")
				}
			}
		case f == FieldOntology && r.Ontology() != nil:
			if r.Ontology().SpecSet {
				out = append(out, "ontology.spec")
			}
			if r.Ontology().SpecFileSet {
				out = append(out, "ontology.spec_file")
			}
		case f == FieldDataspace && r.Dataspace != nil:
			for i, k := range dataspaceKeys {
				if r.Dataspace.Set.Has(DataspaceField(i)) {
					out = append(out, "dataspace."+k)
				}
			}
		}
	}
	for _, e := range r.Extra() {
		out = append(out, "extra."+e.Key)
	}
	return out
}

// jsonKeys are the member names of a JSON object, in order, repeats kept.
func jsonKeys(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestStatedPathsRenderInOrder(t *testing.T) {
	base := parseDocText(t, "b.yaml", "defaults: {k: 1, dataspace: {expose: true}, ontology: {spec: s}, dcat: {themes: [t]}, tags: [a], title: T}\n", false)
	got := jsonKeys(t, base.Defaults.AppendProvenanceJSON(nil))
	want := []string{"title", "tags", "dcat", "dcat.themes", "ontology", "ontology.spec", "dataspace", "dataspace.expose", "extra.k"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, statedPaths(base.Defaults)); diff != "" {
		t.Errorf("stated paths (-want +got):\n%s", diff)
	}
}

// TestTemporalResetAcrossTheTwoSteps records where the served value and its
// provenance part: the base's source block resets dcat.temporal with a null
// and the overlay's source block states a temporal mapping. Merged in the
// two steps of governance-format.md §8, the value keeps the defaults' end
// (the override's temporal is a mapping, merged field by field), while
// provenance, following the layers in order, lets the null reset it and
// names no end. Provenance is kept as explain=true has always reported it;
// which of the two is right is an open question of the spec (§6.4 says a
// chain behaves as if every layer were applied in order).
func TestTemporalResetAcrossTheTwoSteps(t *testing.T) {
	base := parseDocText(t, "b.yaml", "defaults: {dcat: {temporal: {end: '2021'}}}\nsources:\n  ds: {dcat: {temporal: null}}\n", false)
	overlay := parseDocText(t, "o.yaml", "sources:\n  ds: {dcat: {temporal: {start: '2024'}}}\n", true)
	rule, _ := MergeConfigs(base, overlay).ResolveKey("ds")
	if tm := rule.Dcat.Temporal; tm == nil || !tm.EndSet || *tm.End != "2021" || !tm.StartSet {
		t.Fatalf("temporal = %+v, want the overlay's start and the defaults' end", tm)
	}
	prov := string(rule.AppendProvenanceJSON(nil))
	if !strings.Contains(prov, `"dcat.temporal.start"`) || strings.Contains(prov, `"dcat.temporal.end"`) {
		t.Errorf("provenance %s: want temporal.start and no temporal.end", prov)
	}
}

// samePlaces holds Provenance to the provenance body: the same paths in the
// same order, each at the same layer, file, line and column.
func samePlaces(t *testing.T, what string, r *Rule, body []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	var want []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Layer, File  string
			Line, Column int
		}
		if err := dec.Decode(&o); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s %s %s %d:%d", k, o.Layer, o.File, o.Line, o.Column))
	}
	var got []string
	for _, e := range r.Provenance() {
		got = append(got, fmt.Sprintf("%s %s %s %d:%d", e.Path, e.Origin.Layer.Name, e.Origin.Layer.File, e.Origin.Line, e.Origin.Column))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s: Provenance is not what the body says (-body +Provenance):\n%s", what, d)
	}
}

// provenanceListJSON renders Provenance's entries as AppendProvenanceJSON
// renders the rule's: the two must never disagree.
func provenanceListJSON(es []ProvenanceEntry) string {
	parts := make([]string, len(es))
	for i, e := range es {
		var from []string
		for _, m := range e.MergedFrom {
			from = append(from, origin(m.Layer.Name, m.Layer.File, int(m.Line), int(m.Column)))
		}
		// The served body escapes only what JSON requires; json.Marshal
		// would also escape <, > and & as HTML.
		var key strings.Builder
		enc := json.NewEncoder(&key)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(e.Path)
		parts[i] = strings.TrimSuffix(key.String(), "\n") + ":" + origin(e.Layer.Name, e.Layer.File, int(e.Line), int(e.Column), from...)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestProvenanceList holds Provenance to AppendProvenanceJSON on the rule of
// four layers above and on every served rule of the real files.
func TestProvenanceList(t *testing.T) {
	base := parseDocText(t, "b.yaml", "defaults:\n  tags: [a]\n  dataspace: {purpose: [p]}\nsources:\n  ds:\n    title: T\n    dataspace: {purpose: [q], expose: true}\n    k: v\n    \"x\\\"y\": 1\n", false)
	overlay := parseDocText(t, "o.yaml", "defaults:\n  tags: [b]\nsources:\n  ds:\n    dcat: {temporal: {start: x}}\n", true)
	rule, _ := MergeConfigs(base, overlay).ResolveKey("ds")
	es := rule.Provenance()
	if got, want := provenanceListJSON(es), string(rule.AppendProvenanceJSON(nil)); got != want {
		t.Errorf("Provenance:\n got %s\nwant %s", got, want)
	}
	var paths []string
	for _, e := range es {
		paths = append(paths, e.Path)
	}
	want := []string{"title", "tags", "dcat", "dcat.temporal", "dcat.temporal.start", "dataspace", "dataspace.purpose", "dataspace.expose", "extra.k", `extra.x"y`}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if es[1].Layer.Kind != "overlay" || len(es[1].MergedFrom) != 2 || es[1].MergedFrom[0].Layer.Kind != "base" {
		t.Errorf("tags: %+v", es[1])
	}
	n := 0
	for _, p := range testcorpus.ReferenceApps(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := Parse(data, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cfg.Sources {
			r := MergeRules(cfg.Defaults, s.Rule)
			if got, want := provenanceListJSON(r.Provenance()), string(r.AppendProvenanceJSON(nil)); got != want {
				t.Errorf("%s %s:\n got %s\nwant %s", p, s.Key, got, want)
			}
			n++
		}
	}
	if n < 17 {
		t.Errorf("only %d rules of the real files", n)
	}
}

package owners

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
)

const registryText = `owners:
  - id: example-dso
    type: schema:Corporation
    name: Example DSO
    did: did:web:dso.example
    url: https://dso.example
  - id: example-rec
    type: schema:Project
    name: Example REC
    url: https://rec.example
    aliases: [community, rec]
  - id: dso
    type: schema:Corporation
    name: An owner whose id is a common placeholder
`

func owner(name, typ string) governance.Owner { return governance.Owner{Name: name, Type: typ} }

func TestResolveName(t *testing.T) {
	reg := mustParse(t, registryText)
	placeholders := map[string]string{"dso": "example-rec", "grid": "example-dso", "gone": "nobody", "via-alias": "community", "chain": "grid"}
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"example-dso", "example-dso", true}, // an id stays
		{"dso", "dso", true},                 // an id wins over a placeholder of the same name
		{"grid", "example-dso", true},        // a placeholder
		{"via-alias", "example-rec", true},   // a placeholder whose target is an alias
		{"community", "example-rec", true},   // an alias
		{"rec", "example-rec", true},         // an alias, no placeholder
		{"chain", "chain", false},            // no chaining through placeholders
		{"gone", "gone", false},              // placeholder target unknown, no alias either
		{"nobody", "nobody", false},
		{"DSO", "DSO", false},
	}
	for _, tt := range tests {
		got, ok := ResolveName(tt.name, reg, placeholders)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ResolveName(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	// A placeholder whose target is unknown falls through to the alias step.
	if got, ok := ResolveName("rec", reg, map[string]string{"rec": "nobody"}); got != "example-rec" || !ok {
		t.Errorf("fall-through: %q %v", got, ok)
	}
	if got, ok := ResolveName("x", nil, nil); got != "x" || ok {
		t.Errorf("nil lookup: %q %v", got, ok)
	}
}

func parseConfig(t *testing.T, src string) *governance.Config {
	t.Helper()
	cfg, err := governance.Parse([]byte(src), "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const configText = `defaults:
  ownership:
    - {name: rec, type: DATA_OWNER}
    - {name: example-rec, type: DATA_OWNER}
    - {name: example-rec, type: DATA_STEWARD}
sources:
  datasets.a:
    ownership:
      - {name: ghost, type: OWNER}
      - {name: grid, type: OWNER}
      - {name: ghost, type: OWNER}
  datasets.b:
    ownership:
      - {name: phantom, type: OWNER}
      - {name: ghost, type: OWNER}
  datasets.c:
    title: no owners
  datasets.d:
    ownership: []
`

func TestResolveConfigOwnership(t *testing.T) {
	reg := mustParse(t, registryText)
	cfg := parseConfig(t, configText)
	before, _ := cfg.MarshalJSON()
	placeholders := map[string]string{"grid": "example-dso"}

	got, ws, err := ResolveConfigOwnership(cfg, reg, false, placeholders)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]governance.Owner{owner("example-rec", "DATA_OWNER"), owner("example-rec", "DATA_STEWARD")}, got.Defaults.Ownership()); diff != "" {
		t.Errorf("defaults: a placeholder beside its id collapses, two types stay (-want +got):\n%s", diff)
	}
	a := got.Source("datasets.a").Rule
	if diff := cmp.Diff([]governance.Owner{owner("ghost", "OWNER"), owner("example-dso", "OWNER")}, a.Ownership()); diff != "" {
		t.Errorf("datasets.a (-want +got):\n%s", diff)
	}
	if !got.Source("datasets.d").Rule.Set.Has(governance.FieldOwnership) || got.Source("datasets.c").Rule.Set.Has(governance.FieldOwnership) {
		t.Error("set-ness of ownership must be kept")
	}
	var keys []string
	for _, s := range got.Sources {
		keys = append(keys, s.Key)
	}
	if diff := cmp.Diff([]string{"datasets.a", "datasets.b", "datasets.c", "datasets.d"}, keys); diff != "" {
		t.Errorf("sources order (-want +got):\n%s", diff)
	}
	if r, _ := got.Resolve("datasets.a"); r.Ownership()[1].Name != "example-dso" {
		t.Errorf("resolution of the new document uses the resolved blocks: %v", r.Ownership())
	}
	if uri, _ := reg.CanonicalURI(a.Ownership()[1].Name); uri != "did:web:dso.example" {
		t.Errorf("canonical URI after resolution = %q", uri)
	}
	after, _ := cfg.MarshalJSON()
	if string(before) != string(after) {
		t.Error("the input configuration was modified")
	}
	wantWarns := []warn{
		{WarnUnresolvedOwner, 9, "unresolved owner name 'ghost' in sources/datasets.a — kept as written"},
		{WarnUnresolvedOwner, 14, "unresolved owner name 'phantom' in sources/datasets.b — kept as written"},
		{WarnUnresolvedOwner, 14, "unresolved owner name 'ghost' in sources/datasets.b — kept as written"},
	}
	if diff := cmp.Diff(wantWarns, warns(ws)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	for _, w := range ws {
		if w.File != "governance.yaml" {
			t.Errorf("warning without its file: %+v", w)
		}
	}

	_, _, err = ResolveConfigOwnership(cfg, reg, true, placeholders)
	var ue *UnresolvedError
	if !errors.As(err, &ue) {
		t.Fatalf("strict: %v", err)
	}
	want := "unresolved owner name(s):\n  - ghost: sources/datasets.a, sources/datasets.b\n  - phantom: sources/datasets.b"
	if err.Error() != want {
		t.Errorf("strict message\n got %q\nwant %q", err.Error(), want)
	}

	if _, ws, err := ResolveConfigOwnership(cfg, reg, true, map[string]string{"grid": "example-dso", "ghost": "dso", "phantom": "rec"}); err != nil || len(ws) != 0 {
		t.Errorf("strict with every name resolved: %v %v", ws, err)
	}
}

func TestUnresolvedOwners(t *testing.T) {
	reg := mustParse(t, registryText)
	cfg := parseConfig(t, "defaults:\n  ownership: [{name: zed, type: O}]\nsources:\n  b: {ownership: [{name: ghost, type: O}, {name: zed, type: O}]}\n  a: {ownership: [{name: ghost, type: X}]}\n")
	got := UnresolvedOwners(cfg, reg, nil)
	want := []Unresolved{{"zed", []string{"defaults", "sources/b"}}, {"ghost", []string{"sources/b", "sources/a"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := UnresolvedOwners(cfg, reg, map[string]string{"zed": "dso", "ghost": "rec"}); len(got) != 0 {
		t.Errorf("all resolved: %v", got)
	}
}

func TestResolveOwnershipRule(t *testing.T) {
	reg := mustParse(t, registryText)
	rule, _ := parseConfig(t, "defaults: {ownership: [{name: rec, type: A}, {name: nobody, type: B}], title: t}\nsources: {}\n").Resolve("x")
	got, ws, err := ResolveOwnership(rule, reg, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]governance.Owner{owner("example-rec", "A"), owner("nobody", "B")}, got.Ownership()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if title, _ := got.Title(); title != "t" || rule.Ownership()[0].Name != "rec" {
		t.Error("other fields kept, input untouched")
	}
	if diff := cmp.Diff([]warn{{WarnUnresolvedOwner, 1, "unresolved owner name 'nobody' in <rule> — kept as written"}}, warns(ws)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, _, err = ResolveOwnership(rule, reg, true, nil)
	if err == nil || err.Error() != "unresolved owner name(s):\n  - nobody: <rule>" {
		t.Errorf("strict: %v", err)
	}
}

// TestResolveConfigOwnershipSharesResolvedLists: rules stating the same
// list (one list, as the parser shares it) get one resolved list; a list
// with a name that resolves to nothing is still noted at every place.
func TestResolveConfigOwnershipSharesResolvedLists(t *testing.T) {
	reg := mustParse(t, registryText)
	cfg := parseConfig(t, `defaults: {}
sources:
  a: {ownership: [{name: grid, type: OWNER}]}
  b: {ownership: [{name: grid, type: OWNER}]}
  c: {ownership: [{name: ghost, type: OWNER}]}
  d: {ownership: [{name: ghost, type: OWNER}]}
`)
	got, ws, err := ResolveConfigOwnership(cfg, reg, false, map[string]string{"grid": "example-dso"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := got.Source("a").Rule.Ownership(), got.Source("b").Rule.Ownership()
	if diff := cmp.Diff([]governance.Owner{owner("example-dso", "OWNER")}, a); diff != "" {
		t.Errorf("a (-want +got):\n%s", diff)
	}
	if &a[0] != &b[0] {
		t.Error("two rules stating one list hold a resolved list each")
	}
	if got.Source("c").Rule != cfg.Source("c").Rule {
		t.Error("a rule whose names resolve as written was copied")
	}
	want := []warn{
		{WarnUnresolvedOwner, 5, "unresolved owner name 'ghost' in sources/c — kept as written"},
		{WarnUnresolvedOwner, 6, "unresolved owner name 'ghost' in sources/d — kept as written"},
	}
	if diff := cmp.Diff(want, warns(ws)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// A configuration asked for a rule before its names are resolved has merged
// that rule from its own blocks: the resolved copy must merge its own.
func TestResolveConfigOwnershipAfterResolve(t *testing.T) {
	reg := mustParse(t, registryText)
	cfg := parseConfig(t, configText)
	if r, _ := cfg.Resolve("datasets.a"); r.Ownership()[1].Name != "grid" {
		t.Fatalf("as written: %v", r.Ownership())
	}
	got, _, err := ResolveConfigOwnership(cfg, reg, false, map[string]string{"grid": "example-dso"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"datasets.a"} {
		if r, _ := got.Resolve(name); r.Ownership()[1].Name != "example-dso" {
			t.Errorf("%s resolved after the source answered as written: %v", name, r.Ownership())
		}
	}
	if r, _ := cfg.Resolve("datasets.a"); r.Ownership()[1].Name != "grid" {
		t.Errorf("the input configuration answers resolved names: %v", r.Ownership())
	}
}

// askedLookup records the ids asked of a registry, each once, in the order
// first asked: what a server digests a unit's answers by.
type askedLookup struct {
	Lookup
	asked []string
}

func (l *askedLookup) ByID(key string) *Entry {
	if !slices.Contains(l.asked, key) {
		l.asked = append(l.asked, key)
	}
	return l.Lookup.ByID(key)
}

// TestResolvesAs: ResolvesAs answers whether ResolveConfigOwnership of the
// written configuration gives every rule of the served one its list, for
// a configuration resolved against one registry and asked about another,
// and asks the registry what that resolution asks, in the same order.
func TestResolvesAs(t *testing.T) {
	registries := []struct{ name, text string }{
		{"the registry", registryText},
		{"a display name edited", strings.Replace(registryText, "name: Example REC", "name: The REC", 1)},
		{"the alias rec removed", strings.Replace(registryText, "aliases: [community, rec]", "aliases: [community]", 1)},
		{"the alias rec moved", strings.Replace(strings.Replace(registryText, "aliases: [community, rec]", "aliases: [community]", 1),
			"url: https://dso.example", "url: https://dso.example\n    aliases: [rec]", 1)},
		{"the DSO removed", strings.Replace(registryText, "  - id: example-dso\n    type: schema:Corporation\n    name: Example DSO\n", "  - id: other\n    type: schema:Corporation\n    name: Other\n", 1)},
	}
	placeholders := map[string]string{"grid": "example-dso"}
	written := parseConfig(t, configText)
	writtenOf := func(i int) []governance.Owner {
		if i < 0 {
			return written.Defaults.Ownership()
		}
		return written.Sources[i].Rule.Ownership()
	}
	same, other := 0, 0
	for _, from := range registries {
		served, _, err := ResolveConfigOwnership(written, mustParse(t, from.text), false, placeholders)
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range registries {
			resolving := &askedLookup{Lookup: mustParse(t, to.text)}
			again, _, err := ResolveConfigOwnership(written, resolving, false, placeholders)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Equal(again.Defaults.Ownership(), served.Defaults.Ownership())
			for i := range again.Sources {
				want = want && slices.Equal(again.Sources[i].Rule.Ownership(), served.Sources[i].Rule.Ownership())
			}
			asking := &askedLookup{Lookup: mustParse(t, to.text)}
			if got := ResolvesAs(served, writtenOf, asking, placeholders); got != want {
				t.Errorf("resolved with %s, asked about %s: ResolvesAs = %v, resolution gives every rule its list: %v", from.name, to.name, got, want)
			} else if got && !slices.Equal(asking.asked, resolving.asked) {
				t.Errorf("resolved with %s, asked about %s: asked %q, resolution asks %q", from.name, to.name, asking.asked, resolving.asked)
			}
			if want {
				same++
			} else {
				other++
			}
		}
	}
	if same == len(registries) || other == 0 {
		t.Errorf("%d pairs resolve as before and %d otherwise: the test needs both beyond each registry with itself", same, other)
	}
}

// TestResolvesAsWithoutDefaults: a configuration with no defaults rule
// (one made in code) is answered, not dereferenced: as served when the
// defaults have no list as written, not so when a list is said to be
// written for a rule that is not there.
func TestResolvesAsWithoutDefaults(t *testing.T) {
	served := &governance.Config{}
	reg := mustParse(t, registryText)
	none := func(int) []governance.Owner { return nil }
	if !ResolvesAs(served, none, reg, nil) {
		t.Error("no defaults and no list written: ResolvesAs = false")
	}
	some := func(i int) []governance.Owner {
		if i < 0 {
			return []governance.Owner{owner("rec", "DATA_OWNER")}
		}
		return nil
	}
	if ResolvesAs(served, some, reg, nil) {
		t.Error("a list written for defaults that are not there: ResolvesAs = true")
	}
}

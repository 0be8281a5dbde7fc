package owners

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/schema"
	"github.com/celine-eu/governanced/internal/yaml11"
)

func mustParse(t testing.TB, src string) *Registry {
	t.Helper()
	f, err := Parse([]byte(src), "owners.yaml", Options{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f.Build()
}

func ids(es []*Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

type warn struct {
	Code string
	Line int
	Msg  string
}

func warns(ws []Warning) []warn {
	out := []warn{}
	for _, w := range ws {
		out = append(out, warn{w.Code, w.Pos.Line, w.Msg})
	}
	return out
}

// label names an entry in test tables: its name, else "id=<id>"; "" for none.
func label(e *Entry) string {
	switch {
	case e == nil:
		return ""
	case e.Name != nil:
		return *e.Name
	}
	return "id=" + e.ID
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		ids     []string
		aliases []Alias
		byID    map[string]string // key → label of the entry found ("" for none)
		warns   []warn
	}{
		{
			name: "id beats an alias written earlier",
			src: `owners:
  - id: a
    name: A
    aliases: [b]
  - id: b
    name: B
`,
			ids:     []string{"a", "b"},
			aliases: []Alias{},
			byID:    map[string]string{"a": "A", "b": "B"},
			warns:   []warn{{WarnAliasShadowsID, 4, "Owner alias 'b' (from 'a') shadows an owner id — ignoring the alias"}},
		},
		{
			name: "id beats an alias written later",
			src: `owners:
  - id: b
    name: B
  - id: a
    name: A
    aliases: [b]
`,
			ids:     []string{"b", "a"},
			aliases: []Alias{},
			byID:    map[string]string{"b": "B"},
			warns:   []warn{{WarnAliasShadowsID, 6, "Owner alias 'b' (from 'a') shadows an owner id — ignoring the alias"}},
		},
		{
			name: "own id as an alias",
			src:  "owners:\n  - id: self\n    aliases: [self, other]\n",
			ids:  []string{"self"}, aliases: []Alias{{"other", "self"}},
			byID:  map[string]string{"self": "id=self", "other": "id=self"},
			warns: []warn{{WarnAliasShadowsID, 3, "Owner alias 'self' (from 'self') shadows an owner id — ignoring the alias"}},
		},
		{
			name: "first alias claimant keeps it",
			src: `owners:
  - id: one
    name: One
    aliases: [x]
  - id: two
    name: Two
    aliases: [x, y]
`,
			ids:     []string{"one", "two"},
			aliases: []Alias{{"x", "one"}, {"y", "two"}},
			byID:    map[string]string{"x": "One", "y": "Two"},
			warns:   []warn{{WarnAliasClaimed, 7, "Owner alias 'x' claimed by both 'one' and 'two' — keeping 'one'"}},
		},
		{
			name: "duplicate id: later wins, the taken-over entry's aliases still resolve to it",
			src: `owners:
  - id: dup
    name: first
    url: https://first.example
    aliases: [old, both]
  - id: dup
    name: second
    url: https://second.example
    aliases: [new, both]
`,
			ids:     []string{"dup"},
			aliases: []Alias{{"old", "dup"}, {"both", "dup"}, {"new", "dup"}},
			byID:    map[string]string{"dup": "second", "old": "first", "new": "second", "both": "second"},
			warns:   []warn{{WarnDuplicateID, 6, "Duplicate owner id 'dup' — later entry wins"}},
		},
		{
			name: "duplicate id keeps the first position",
			src:  "owners:\n  - {id: a, name: A1}\n  - {id: b, name: B}\n  - {id: a, name: A2}\n",
			ids:  []string{"a", "b"}, aliases: []Alias{},
			byID:  map[string]string{"a": "A2", "b": "B", "A": ""},
			warns: []warn{{WarnDuplicateID, 4, "Duplicate owner id 'a' — later entry wins"}},
		},
		{
			name: "lookups are exact and case-sensitive",
			src:  "owners:\n  - {id: dso, name: D, aliases: [grid]}\n",
			ids:  []string{"dso"}, aliases: []Alias{{"grid", "dso"}},
			byID:  map[string]string{"DSO": "", "": "", " dso": "", "Grid": "", "grid": "D"},
			warns: []warn{},
		},
		{
			name: "empty",
			src:  "owners:\n", ids: []string{}, aliases: []Alias{},
			byID: map[string]string{"a": ""}, warns: []warn{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.src)
			if diff := cmp.Diff(tt.ids, ids(r.All())); diff != "" {
				t.Errorf("All (-want +got):\n%s", diff)
			}
			if r.Len() != len(tt.ids) {
				t.Errorf("Len = %d, want %d", r.Len(), len(tt.ids))
			}
			if diff := cmp.Diff(tt.aliases, r.Aliases()); diff != "" {
				t.Errorf("Aliases (-want +got):\n%s", diff)
			}
			for key, want := range tt.byID {
				e := r.ByID(key)
				if got := label(e); got != want {
					t.Errorf("ByID(%q) = %q, want %q", key, got, want)
				}
				if (e != nil) != r.Contains(key) {
					t.Errorf("Contains(%q) disagrees with ByID", key)
				}
			}
			if diff := cmp.Diff(tt.warns, warns(r.Warnings())); diff != "" {
				t.Errorf("Warnings (-want +got):\n%s", diff)
			}
			for _, w := range r.Warnings() {
				if w.File != "owners.yaml" || w.Pos.Column == 0 {
					t.Errorf("warning without a place: %+v", w)
				}
			}
		})
	}
}

func TestURIs(t *testing.T) {
	r := mustParse(t, `owners:
  - {id: a, did: "", url: https://a.example}
  - {id: b, did: did:web:b.example, url: https://b.example}
  - {id: c, did: "", url: ""}
  - {id: d, url: https://a.example}
  - {id: e, url: did:web:b.example}
`)
	canon := map[string]string{}
	for _, k := range []string{"a", "b", "c", "d", "e", "zz"} {
		if uri, ok := r.CanonicalURI(k); ok {
			canon[k] = uri
		}
	}
	want := map[string]string{"a": "https://a.example", "b": "did:web:b.example", "d": "https://a.example", "e": "did:web:b.example"}
	if diff := cmp.Diff(want, canon); diff != "" {
		t.Errorf("CanonicalURI (-want +got):\n%s", diff)
	}
	byURI := map[string]string{}
	for _, u := range []string{"", "https://a.example", "did:web:b.example", "https://b.example", "urn:owner:a"} {
		if e := r.ByURI(u); e != nil {
			byURI[u] = e.ID
		}
	}
	// A later registration wins a shared URI, a url overwriting another's did too.
	wantURI := map[string]string{"https://a.example": "d", "did:web:b.example": "e", "https://b.example": "b"}
	if diff := cmp.Diff(wantURI, byURI); diff != "" {
		t.Errorf("ByURI (-want +got):\n%s", diff)
	}
}

func TestEntryFields(t *testing.T) {
	r := mustParse(t, `owners:
  - id: a
    organization_config: {create: "yes", role: rec, attributes: {country: IT, tier: "1"}}
  - id: b
    organization: {role: from-yaml}
    organization_config: {role: from-ir}
  - id: c
    organization: null
    organization_config: {create: true}
  - id: d
    type: schema:NGO
    name: D
    role: publisher
    status: verified
    verified_by: ops
    collects_consent: true
    dataspace: {did: did:web:d.example, roles: [Provider]}
    homepage: ignored
    organization: {create: 0, extra: ignored}
`)
	a := r.ByID("a")
	if a.Type != DefaultType || a.Name != nil || !a.HasKeycloakOrganization() {
		t.Errorf("a: %+v", a)
	}
	if diff := cmp.Diff([]Attribute{{"country", "IT"}, {"tier", "1"}}, a.Organization.Attributes); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if b := r.ByID("b").Organization; b == nil || b.Create || *b.Role != "from-yaml" || b.Attributes == nil {
		t.Errorf("b: organization wins over organization_config: %+v", b)
	}
	if c := r.ByID("c"); c.Organization != nil {
		t.Errorf("c: a null organization is still the one read: %+v", c.Organization)
	}
	d := r.ByID("d")
	if d.Status.Str != "verified" || d.VerifiedBy.Str != "ops" || !d.CollectsConsent.Bool || d.EvidenceRef != nil {
		t.Errorf("d identity keys: %+v", d)
	}
	if !d.HasDID() || a.HasDID() || d.HasKeycloakOrganization() {
		t.Errorf("HasDID/HasKeycloakOrganization wrong")
	}
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"d","type":"schema:NGO","aliases":[],"name":"D","role":"publisher","organization":{"create":false,"attributes":{}},` +
		`"status":"verified","verified_by":"ops","collects_consent":true,"dataspace":{"did":"did:web:d.example","roles":["Provider"]}}`
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(a)
	want = `{"id":"a","type":"schema:Organization","aliases":[],"organization":{"create":true,"role":"rec","attributes":{"country":"IT","tier":"1"}}}`
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		kind ErrorKind
		want string // the whole message
	}{
		{"list root", "- a\n", Malformed, "owners.yaml:1:1: an owners registry must be a mapping with an owners list, got a list"},
		{"string root", "text\n", Malformed, "owners.yaml:1:1: an owners registry must be a mapping with an owners list, got string 'text'"},
		{"owners a mapping", "owners: {id: a}\n", Invalid, "owners.yaml:1:9: owners: must be a list of owner entries, got a mapping"},
		{"entry a string", "owners:\n  - a\n", Invalid, "owners.yaml:2:5: owners/0: an owner entry must be a mapping, got string 'a'"},
		{"missing id", "owners:\n  - {id: a}\n  - name: B\n", Invalid, "owners.yaml:3:5: owners/1: an owner entry needs an id"},
		{"non-string id", "owners:\n  - id: 12\n", Invalid, "owners.yaml:2:9: owners/0/id: must be a string, got int 12"},
		{"null type", "owners:\n  - id: a\n    type:\n", Invalid, "owners.yaml:3:10: owners/0/type: must be a string, got null"},
		{"date name", "owners:\n  - id: a\n    name: 2024-01-01\n", Invalid, "owners.yaml:3:11: owners/0/name: must be a string, got the unquoted date 2024-01-01 (quote it to make it a string)"},
		{"non-list aliases", "owners:\n  - id: a\n    aliases: x\n", Invalid, "owners.yaml:3:14: owners/0/aliases: must be a list of strings, got string 'x'"},
		{"null aliases", "owners:\n  - id: a\n    aliases:\n", Invalid, "owners.yaml:3:13: owners/0/aliases: must be a list of strings, got null"},
		{"non-string alias", "owners:\n  - id: a\n    aliases: [x, 1]\n", Invalid, "owners.yaml:3:18: owners/0/aliases/1: an alias must be a string, got int 1"},
		{"organization a list", "owners:\n  - id: a\n    organization: [x]\n", Invalid, "owners.yaml:3:19: owners/0/organization: must be a mapping, got a list"},
		{"create 2", "owners:\n  - id: a\n    organization_config: {create: 2}\n", Invalid, "owners.yaml:3:35: owners/0/organization_config/create: must be a boolean, got int 2"},
		{"create padded", "owners:\n  - id: a\n    organization: {create: \"yes \"}\n", Invalid, "owners.yaml:3:28: owners/0/organization/create: must be a boolean, got string 'yes '"},
		{"null attributes", "owners:\n  - id: a\n    organization: {attributes: null}\n", Invalid, "owners.yaml:3:32: owners/0/organization/attributes: must be a mapping of strings, got null"},
		{"attribute not a string", "owners:\n  - id: a\n    organization: {attributes: {n: 1}}\n", Invalid, "owners.yaml:3:36: owners/0/organization/attributes/n: an attribute value must be a string, got int 1"},
		{"first error in file order", "owners:\n  - id: a\n    aliases: [1]\n  - name: no id\n", Invalid, "owners.yaml:3:15: owners/0/aliases/0: an alias must be a string, got int 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.src), "owners.yaml", Options{})
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, %v; want *Error", f, err)
			}
			if oe.Kind != tt.kind {
				t.Errorf("kind %v, want %v", oe.Kind, tt.kind)
			}
			if err.Error() != tt.want {
				t.Errorf("message\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, src := range []string{"", "# comments only\n", "null\n", "false\n", "[]\n", "{}\n", "owners:\n", "owners: []\n", "other: x\n"} {
		f, err := Parse([]byte(src), "owners.yaml", Options{})
		if err != nil || len(f.Entries) != 0 {
			t.Errorf("%q: %v, %v; want an empty registry", src, f, err)
		}
	}
}

func TestValidateOption(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"", []string{"<root>: 'owners' is a required property"}},
		{"owners:\n", []string{"owners: None is not of type 'array'"}},
		{"owners: []\n", []string{"owners: [] should be non-empty"}},
		{"- a\n", []string{"<root>: ['a'] is not of type 'object'"}},
		{"owners:\n  - id: a\n    homepage: x\n", []string{
			"owners/0: 'type' is a required property",
			"owners/0: 'name' is a required property",
			"owners/0: Additional properties are not allowed ('homepage' was unexpected)"}},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src), "o.yaml", Options{Validate: true})
		var ve *schema.Error
		if !errors.As(err, &ve) {
			t.Errorf("%q: %v, want a *schema.Error", tt.src, err)
			continue
		}
		if diff := cmp.Diff(tt.want, ve.Lines()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.src, diff)
		}
		if !strings.HasPrefix(err.Error(), "o.yaml failed governance validation:\n  - ") {
			t.Errorf("message: %s", err)
		}
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "owners.yaml")
	_, err := Load(missing, Options{})
	var oe *Error
	if !errors.As(err, &oe) || oe.Kind != NotFound || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	r, err := Load(missing, Options{MissingOK: true})
	if err != nil || r.Len() != 0 {
		t.Errorf("missing file with MissingOK: %v, %v", r, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("owners: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ye *yaml11.Error
	if _, err := Load(bad, Options{}); !errors.As(err, &ye) || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad YAML: %v", err)
	}
	fsys := fstest.MapFS{"o.yaml": {Data: []byte("owners: [{id: a}]\n")}}
	if r, err := LoadFS(fsys, "o.yaml", Options{}); err != nil || r.Len() != 1 {
		t.Errorf("LoadFS: %v %v", r, err)
	}
	if _, err := LoadFS(fsys, "none.yaml", Options{}); !errors.As(err, &oe) || oe.Kind != NotFound {
		t.Errorf("LoadFS missing: %v", err)
	}
}

func TestRealRegistry(t *testing.T) {
	r, err := Load(filepath.Join("testdata", "dataset-api-owners.yaml"), Options{Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example_dso", "example_rec", "spxl", "celine", "dwd", "openstreetmap"}, ids(r.All())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Alias{{"dso", "example_dso"}, {"rec", "example_rec"}}, r.Aliases()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if uri, _ := r.CanonicalURI("rec"); uri != "https://example.com" || len(r.Warnings()) != 0 {
		t.Errorf("canonical %q, warnings %v", uri, r.Warnings())
	}
}

func TestMaterialise(t *testing.T) {
	r, err := LoadAll(filepath.Join("testdata", "merged-base.yaml"), filepath.Join("testdata", "merged-deploy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"rec", "dso", "uni"}, ids(r.All())); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	dso := r.ByID("dso")
	if *dso.Name != "Trentino Grid Operator" || dso.DID != nil {
		t.Errorf("the later entry replaces the earlier whole, no field merge: %+v", dso)
	}
	if r.ByID("grid") != nil || r.ByURI("did:web:dso.example") != nil {
		t.Error("the replaced entry's aliases and URIs must be gone")
	}
	if r.ByID("community").ID != "rec" {
		t.Error("untouched entries keep their aliases")
	}
	w := warns(r.Warnings())
	want := []warn{{WarnOverridden, 3, "Owner 'dso' of " + filepath.Join("testdata", "merged-base.yaml") + " replaced whole by a later registry file"}}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got := r.Warnings()[0].File; got != filepath.Join("testdata", "merged-deploy.yaml") {
		t.Errorf("the override is reported in the overriding file, got %q", got)
	}

	// Each file is validated strictly on its own: a partial file fails.
	_, err = LoadAll(filepath.Join("testdata", "merged-base.yaml"), filepath.Join("testdata", "partial.yaml"))
	var ve *schema.Error
	if !errors.As(err, &ve) || !strings.HasSuffix(ve.Source, "partial.yaml") {
		t.Errorf("partial file: %v", err)
	}
	if _, err := LoadAll(filepath.Join("testdata", "nope.yaml")); err == nil {
		t.Error("a missing file must fail LoadAll")
	}
}

func TestMaterialiseDuplicateWithinAFile(t *testing.T) {
	f, err := Parse([]byte("owners:\n  - {id: a, name: A1, aliases: [old]}\n  - {id: a, name: A2}\n"), "o.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := Materialise(f)
	if r.ByID("old") != nil || *r.ByID("a").Name != "A2" {
		t.Error("a materialised registry drops the taken-over entry whole")
	}
	if diff := cmp.Diff([]warn{{WarnDuplicateID, 3, "Duplicate owner id 'a' — later entry wins"}}, warns(r.Warnings())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMaterialiseSameFileTwice: a file named twice merges again in its place
// but is no override of itself, and its own warnings are said once; a file
// between the two mentions is overridden as usual.
func TestMaterialiseSameFileTwice(t *testing.T) {
	a, err := Parse([]byte("owners:\n  - {id: x, name: A}\n  - {id: d, name: D1}\n  - {id: d, name: D2}\n"), "a.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte("owners:\n  - {id: x, name: B}\n"), "b.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files []*File
		wantX string
		want  []warn
	}{
		{name: "twice in a row", files: []*File{a, a}, wantX: "A",
			want: []warn{{WarnDuplicateID, 4, "Duplicate owner id 'd' — later entry wins"}}},
		{name: "another file between", files: []*File{a, b, a}, wantX: "A",
			want: []warn{
				{WarnDuplicateID, 4, "Duplicate owner id 'd' — later entry wins"},
				{WarnOverridden, 2, "Owner 'x' of a.yaml replaced whole by a later registry file"},
				{WarnOverridden, 2, "Owner 'x' of b.yaml replaced whole by a later registry file"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Materialise(tt.files...)
			if got := *r.ByID("x").Name; got != tt.wantX {
				t.Errorf("x is %q, want %q (files merge in the order given)", got, tt.wantX)
			}
			if diff := cmp.Diff(tt.want, warns(r.Warnings())); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateYAMLKeyIsWarned(t *testing.T) {
	r := mustParse(t, "owners:\n  - id: a\n    name: x\n    name: y\n")
	ws := r.Warnings()
	if len(ws) != 1 || ws[0].Code != WarnDuplicateKey || ws[0].File != "owners.yaml" || *r.ByID("a").Name != "y" {
		t.Errorf("got %v", ws)
	}
}

func TestNilRegistryLookups(t *testing.T) {
	var r *Registry
	if r.ByID("a") != nil {
		t.Error("nil registry found an owner")
	}
}

// TestUnplaced: the copy says everything the entry says and nothing of where
// it was written; the entry itself is left as it was.
func TestUnplaced(t *testing.T) {
	r := mustParse(t, "owners:\n  - id: a\n    aliases: [x, y]\n    did: did:web:a.example\n    dataspace: {roles: [Provider]}\n")
	e := r.ByID("a")
	u := e.Unplaced()
	if u.File != "" || u.Pos != (yaml11.Pos{}) || u.aliasPos != nil {
		t.Errorf("Unplaced kept a place: %q %+v %v", u.File, u.Pos, u.aliasPos)
	}
	if e.Pos.Line != 2 || len(e.aliasPos) != 2 {
		t.Errorf("the entry itself changed: %+v %v", e.Pos, e.aliasPos)
	}
	want, _ := json.Marshal(e)
	got, _ := json.Marshal(u)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("what the copy says (-entry +copy):\n%s", diff)
	}
	if !u.HasDID() || u.ID != "a" {
		t.Errorf("copy: %+v", u)
	}
}

// TestReadPlaceholders: well-formed entries are read whatever else the map
// holds; every other entry is an error at its key, naming the file, the
// line, the column and the key; a root that is not a mapping is one error.
func TestReadPlaceholders(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]string
		errs      []string // Error() of each
	}{
		{"strings", "data-team: org.celine.data\nops: org.celine.ops\n",
			map[string]string{"data-team": "org.celine.data", "ops": "org.celine.ops"}, nil},
		{"a number, a list", "ok: a\n7: b\nbad: [c]\n",
			map[string]string{"ok": "a"},
			[]string{"deploy/placeholders.yaml:2:1: 7: placeholder 7: 'b' must map a string name to a string owner id",
				"deploy/placeholders.yaml:3:1: bad: placeholder 'bad': ['c'] must map a string name to a string owner id"}},
		{"a list", "- a\n", nil,
			[]string{"deploy/placeholders.yaml:1:1: placeholders must map ownership names to owner ids"}},
	}
	for _, tc := range tests {
		root, err := yaml11.Parse([]byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, errs := ReadPlaceholders(root, "deploy/placeholders.yaml")
		var texts []string
		for _, e := range errs {
			texts = append(texts, e.Error())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: map (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.errs, texts); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, diff)
		}
	}
}

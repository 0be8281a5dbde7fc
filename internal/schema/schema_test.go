package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

func parse(t testing.TB, src string) *yaml11.Node {
	t.Helper()
	n, err := yaml11.Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Document(n)
}

func strs(vs []Violation) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

func TestViolationsMessages(t *testing.T) {
	const levels = "['open', 'internal', 'restricted', 'secret', None]"
	tests := []struct {
		name, schema, doc string
		want              []string
	}{
		{"clean", "governance", "defaults: {}\nsources: {}\n", []string{}},
		{"empty document", "governance", "", []string{
			"<root>: 'defaults' is a required property",
			"<root>: 'sources' is a required property"}},
		{"falsy root is empty", "governance", "false\n", []string{
			"<root>: 'defaults' is a required property",
			"<root>: 'sources' is a required property"}},
		{"overlay needs neither", "governance-overlay", "", []string{}},
		{"non-mapping root", "governance", "- a\n", []string{"<root>: ['a'] is not of type 'object'"}},
		{"enum", "governance", "defaults: {access_level: x}\nsources: {}\n", []string{
			"defaults/access_level: 'x' is not one of " + levels}},
		{"type and enum both", "governance", "defaults: {access_level: 5}\nsources: {}\n", []string{
			"defaults/access_level: 5 is not of type 'string', 'null'",
			"defaults/access_level: 5 is not one of " + levels}},
		{"secret is valid", "governance", "defaults: {access_level: secret}\nsources: {}\n", []string{}},
		{"additionalProperties sorted", "governance", "defaults: {}\nsources: {}\ndepends_on: [{dataset: a, foo: 1, bar: 2}]\n", []string{
			"depends_on/0: Additional properties are not allowed ('bar', 'foo' were unexpected)"}},
		{"required before additionalProperties", "governance", "defaults: {}\nsources: {}\ndepends_on: [{zz: 1}]\n", []string{
			"depends_on/0: 'dataset' is a required property",
			"depends_on/0: Additional properties are not allowed ('zz' was unexpected)"}},
		{"depends_on null", "governance", "defaults: {}\nsources: {}\ndepends_on:\n", []string{
			"depends_on: None is not of type 'array'"}},
		{"oneOf empty ontology", "governance", "defaults: {}\nsources: {x: {ontology: {}}}\n", []string{
			"sources/x/ontology: {} is not valid under any of the given schemas"}},
		{"ontology spec null is valid", "governance", "defaults: {ontology: {spec: null}}\nsources: {}\n", []string{}},
		{"oneOf renders the whole block", "governance", "defaults: {dcat: {themes: [a], bogus: 1}}\nsources: {}\n", []string{
			"defaults/dcat: {'themes': ['a'], 'bogus': 1} is not valid under any of the given schemas"}},
		{"unquoted date in temporal", "governance", "defaults:\n  dcat:\n    temporal: {start: 2024-01-01}\nsources: {}\n", []string{
			"defaults/dcat: {'temporal': {'start': datetime.date(2024, 1, 1)}} is not valid under any of the given schemas"}},
		{"timestamp is not a string", "governance", "defaults: {title: 2024-01-01 10:30:00+02:00}\nsources: {}\n", []string{
			"defaults/title: datetime.datetime(2024, 1, 1, 10, 30, tzinfo=datetime.timezone(datetime.timedelta(seconds=7200))) is not of type 'string', 'null'"}},
		{"timestamp in an open place is fine", "governance", "defaults: {created: 2024-01-01, dataspace: {at: 2024-01-01}}\nsources: {}\n", []string{}},
		{"timestamp against an enum", "governance", "defaults: {classification: 2024-01-01}\nsources: {}\n", []string{
			"defaults/classification: datetime.date(2024, 1, 1) is not of type 'string', 'null'",
			"defaults/classification: datetime.date(2024, 1, 1) is not one of ['pii', 'red', 'yellow', 'green', None]"}},
		{"coerced scalars are type errors", "governance", "active: \"yes\"\ndefaults: {retention_days: '30', expose: \"off\"}\nsources: {}\n", []string{
			"active: 'yes' is not of type 'boolean'",
			"defaults/expose: 'off' is not of type 'boolean'",
			"defaults/retention_days: '30' is not of type 'integer', 'null'"}},
		{"whole float is an integer", "governance", "defaults: {retention_days: 30.0}\nsources: {}\n", []string{}},
		{"fractional float is not", "governance", "defaults: {retention_days: 30.5}\nsources: {}\n", []string{
			"defaults/retention_days: 30.5 is not of type 'integer', 'null'"}},
		{"boolean is not an integer", "governance", "defaults: {retention_days: true}\nsources: {}\n", []string{
			"defaults/retention_days: True is not of type 'integer', 'null'"}},
		{"big integer is an integer", "governance", "defaults: {retention_days: 123456789012345678901234567890}\nsources: {}\n", []string{}},
		{"nan and inf are not integers", "governance", "defaults: {retention_days: .nan, tags: [.inf, -.inf], x: .nan}\nsources: {}\n", []string{
			"defaults/retention_days: nan is not of type 'integer', 'null'",
			"defaults/tags/0: inf is not of type 'string'",
			"defaults/tags/1: -inf is not of type 'string'"}},
		{"floats render like Python", "governance", "defaults: {tags: [1.0e+20, 0.0001, 1.5e-07]}\nsources: {}\n", []string{
			"defaults/tags/0: 1e+20 is not of type 'string'",
			"defaults/tags/1: 0.0001 is not of type 'string'",
			"defaults/tags/2: 1.5e-07 is not of type 'string'"}},
		{"null block", "governance", "defaults: {}\nsources:\n  datasets.a:\n", []string{
			"sources/datasets.a: None is not of type 'object'"}},
		{"nested governance is not validated", "governance", "defaults: {}\nsources: {a: {governance: {tags: x, expose: maybe}}}\n", []string{}},
		{"non-string source key is left out", "governance", "defaults: {1: x}\nsources: {true: 5, b: {}}\n", []string{}},
		{"non-string key in a closed block", "governance", "defaults: {}\nsources: {}\ndepends_on: [{dataset: a, 1: x, true: y, null: z}]\n", []string{
			"depends_on/0: Additional properties are not allowed (1, None were unexpected)"}},
		{"owner shape", "governance", "defaults:\n  ownership:\n    - rec\n    - name: spxl\n    - name: 1\n      type: OWNER\nsources: {}\n", []string{
			"defaults/ownership/0: 'rec' is not of type 'object'",
			"defaults/ownership/1: 'type' is a required property",
			"defaults/ownership/2/name: 1 is not of type 'string'"}},
		{"row filters", "governance", "defaults:\n  row_filters:\n    - args: {a: 1}\n    - {handler: h, extra: 1}\n    - {handler: h, args: x}\nsources: {}\n", []string{
			"defaults/row_filters/0: 'handler' is a required property",
			"defaults/row_filters/1: Additional properties are not allowed ('extra' was unexpected)",
			"defaults/row_filters/2/args: 'x' is not of type 'object'"}},
		{"format is not asserted", "governance", "defaults: {documentation_url: not a uri, dcat: {publisher_uri: '::', themes: [x]}}\nsources: {}\n", []string{}},
		{"order is by path, not by line", "governance", "sources:\n  z.z: {expose: 1}\n  a.a: {expose: 1}\ndefaults:\n  expose: x\n  dataspace: {expose: x}\nactive: x\n", []string{
			"active: 'x' is not of type 'boolean'",
			"defaults/dataspace: {'expose': 'x'} is not valid under any of the given schemas",
			"defaults/expose: 'x' is not of type 'boolean'",
			"sources/a.a/expose: 1 is not of type 'boolean'",
			"sources/z.z/expose: 1 is not of type 'boolean'"}},
		{"indices numerically", "governance", "defaults: {tags: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\nsources: {}\n", func() []string {
			var w []string
			for i := 0; i < 11; i++ {
				w = append(w, fmt.Sprintf("defaults/tags/%d: %d is not of type 'string'", i, i+1))
			}
			return w
		}()},
		{"string quoting", "governance", "defaults: {tags: [1], access_level: \"it's\", classification: \"a\\tb\\u00a0é\"}\nsources: {}\n", []string{
			"defaults/access_level: \"it's\" is not one of " + levels,
			"defaults/classification: 'a\\tb\\xa0é' is not one of ['pii', 'red', 'yellow', 'green', None]",
			"defaults/tags/0: 1 is not of type 'string'"}},

		{"owners empty list", "owners", "owners: []\n", []string{"owners: [] should be non-empty"}},
		{"owners empty document", "owners", "", []string{"<root>: 'owners' is a required property"}},
		{"owners null", "owners", "owners:\n", []string{"owners: None is not of type 'array'"}},
		{"owners required in order", "owners", "owners: [{id: spxl}]\n", []string{
			"owners/0: 'type' is a required property",
			"owners/0: 'name' is a required property"}},
		{"owners id pattern", "owners", "owners: [{id: Bad ID, type: schema:NGO, name: n}]\n", []string{
			"owners/0/id: 'Bad ID' does not match '^[a-z0-9][a-z0-9_-]*[a-z0-9]$|^[a-z0-9]$'"}},
		{"pattern $ before a final newline", "owners", "owners: [{id: \"abc\\n\", type: schema:NGO, name: n, aliases: [\"a\\nb\"]}]\n", []string{
			"owners/0/aliases/0: 'a\\nb' does not match '^[a-z0-9][a-z0-9_-]*[a-z0-9]$|^[a-z0-9]$'"}},
		{"minLength counts code points", "owners", "owners: [{id: a, type: schema:NGO, name: é, role: \"\"}]\n", []string{
			"owners/0/role: '' should be non-empty"}},
		{"owners type enum and type", "owners", "owners: [{id: a, type: 1, name: n}]\n", []string{
			"owners/0/type: 1 is not of type 'string'",
			"owners/0/type: 1 is not one of ['schema:Corporation', 'schema:GovernmentOrganization', 'schema:ResearchOrganization', 'schema:EducationalOrganization', 'schema:NGO', 'schema:Organization', 'schema:Project']"}},
		{"owners unknown keys everywhere", "owners", "owners: [{id: a, type: schema:NGO, name: n, homepage: x, organization: {create: true, kind: x, attributes: {country: IT, n: 1}}}]\nversion: 1\n", []string{
			"<root>: Additional properties are not allowed ('version' was unexpected)",
			"owners/0: Additional properties are not allowed ('homepage' was unexpected)",
			"owners/0/organization: Additional properties are not allowed ('kind' was unexpected)",
			"owners/0/organization/attributes/n: 1 is not of type 'string'"}},
		{"identity-registry keys accepted", "owners", `owners:
  - id: a
    type: schema:NGO
    name: n
    status: verified
    verified_by: ops
    evidence_ref: ticket-1
    collects_consent: true
    organization_config: {create: true, role: rec}
    dataspace:
      legal_name: A
      registration_number: "1"
      registration_type: vat
      hq_country_code: IT
      legal_country_code: IT
      parent_organizations: [p]
      sub_organizations: []
      did: did:web:a.example
      dsp_address: https://a.example/dsp
      roles: [Provider]
      scopes: [s]
      credential_ttl_days: 30
      verified_by: ops
      evidence_ref: e
      accepted: {agreement: dsa, version: "1", locale: it, accepted_by: me}
`, []string{}},
		{"identity-registry keys checked", "owners", `owners:
  - id: a
    type: schema:NGO
    name: n
    status: approved
    collects_consent: "yes"
    dataspace: {did: did:key:x, credential_ttl_days: "30", accepted: {by: me}, roles: Provider, extra: 1}
`, []string{
			"owners/0/collects_consent: 'yes' is not of type 'boolean'",
			"owners/0/dataspace: Additional properties are not allowed ('extra' was unexpected)",
			"owners/0/dataspace/accepted: Additional properties are not allowed ('by' was unexpected)",
			"owners/0/dataspace/credential_ttl_days: '30' is not of type 'integer'",
			"owners/0/dataspace/did: 'did:key:x' does not match '^did:web:.+'",
			"owners/0/dataspace/roles: 'Provider' is not of type 'array'",
			"owners/0/status: 'approved' is not one of ['pending', 'verified', 'suspended', 'revoked']"}},

		{"facet accessLevel null fails the enum", "facet", "_producer: p\n_schemaURL: u\naccessLevel: null\nmedallion: null\n", []string{
			"accessLevel: None is not one of ['open', 'internal', 'restricted']"}},
		{"facet required", "facet", "title: t\n", []string{
			"<root>: '_producer' is a required property",
			"<root>: '_schemaURL' is a required property"}},
		{"facet row filter items are open", "facet", "_producer: p\n_schemaURL: u\nrowFilters: [{handler: h, extra: 1}, {args: {}}]\n", []string{
			"rowFilters/1: 'handler' is a required property"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := Violations(parse(t, tt.doc), tt.schema, "f.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, strs(vs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, v := range vs {
				if v.File != "f.yaml" {
					t.Errorf("%s: File = %q", v, v.File)
				}
			}
		})
	}
}

func TestViolationDetails(t *testing.T) {
	doc := parse(t, "defaults:\n  access_level: 5\n  dcat: {bogus: 1}\nsources: {}\ndepends_on:\n  - {b: 1, a: 2}\n")
	vs, err := Violations(doc, schemas.Governance, "g.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Line, Col int
		Pointer   string
		Subject   string
		Path      string // JSON of the path segments
	}
	var got []row
	for _, v := range vs {
		b, _ := jsonMarshal(v.Path)
		got = append(got, row{v.Pos.Line, v.Pos.Column, v.Path.Pointer(), v.Subject(), string(b)})
	}
	want := []row{
		{2, 17, "/defaults/access_level", "type", `["defaults","access_level"]`},
		{2, 17, "/defaults/access_level", "enum", `["defaults","access_level"]`},
		{3, 9, "/defaults/dcat", "oneOf", `["defaults","dcat"]`},
		{6, 5, "/depends_on/0", "required:dataset", `["depends_on",0]`},
		{6, 5, "/depends_on/0", "additionalProperties:a,b", `["depends_on",0]`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorsAtNestedBlock(t *testing.T) {
	// The tree check validates a nested governance: block against the block
	// schema, with paths continuing below it (check.md §6.1).
	doc := parse(t, "defaults: {}\nsources:\n  a:\n    governance:\n      tags: x\n")
	block := doc.Get("sources").Get("a").Get("governance")
	s, err := Load("governance#/$defs/governanceBlock")
	if err != nil {
		t.Fatal(err)
	}
	vs := s.ViolationsAt(block, "f.yaml", Path{Key("sources"), Key("a"), Key("governance")})
	if diff := cmp.Diff([]string{"sources/a/governance/tags: 'x' is not of type 'array'"}, strs(vs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if vs[0].Pos != (yaml11.Pos{Line: 5, Column: 13}) {
		t.Errorf("Pos = %v", vs[0].Pos)
	}
}

func TestAliasBombIsRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("defaults: {tags: &l0 [x, x, x, x, x, x, x, x, x, x]}\nsources: {}\nx:\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  k%d: &l%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	// The reader refuses the bomb itself (yaml11.Limits.MaxAliasValues); read
	// unbounded, the schema validator must still refuse to walk it.
	bomb, _, err := yaml11.ParseWithWarnings([]byte(b.String()), yaml11.Limits{MaxAliasValues: -1})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Violations(Document(bomb), schemas.Governance, "bomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Keyword != "maxValues" || vs[0].Path.String() != "<root>" {
		t.Fatalf("got %v", strs(vs))
	}
	if got := expandedSize(parse(t, "a: &a [1, 2]\nb: [*a, *a]\n"), 100); got != 13 {
		t.Errorf("expandedSize = %d, want 13", got)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, name := range []string{"nope", "governance#/$defs/nothing", ""} {
		if _, err := Load(name); err == nil {
			t.Errorf("Load(%q) succeeded", name)
		}
	}
	if _, err := Violations(parse(t, "{}"), "nope", ""); err == nil {
		t.Error("Violations with an unknown schema succeeded")
	}
	a, err := Load("governance.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "governance.schema.json" {
		t.Errorf("Name = %q", a.Name())
	}
}

// The stand-in for timestamps, NaN and infinities is a fractional number, which
// would pass a "number" type: no published schema may use one.
func TestSchemasUseNoNumberTypeAndOnlyKnownFormats(t *testing.T) {
	known := map[string]bool{}
	for _, f := range noFormats {
		known[f] = true
	}
	for _, name := range schemas.Names() {
		b, _ := schemas.Get(name)
		var doc any
		if err := jsonUnmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var walk func(v any, at string)
		walk = func(v any, at string) {
			switch x := v.(type) {
			case map[string]any:
				for k, c := range x {
					switch {
					case k == "type" && hasNumber(c):
						t.Errorf("%s%s: type number", name, at)
					case k == "format":
						if !known[fmt.Sprint(c)] {
							t.Errorf("%s%s: format %v would be asserted", name, at, c)
						}
					}
					walk(c, at+"/"+k)
				}
			case []any:
				for i, c := range x {
					walk(c, fmt.Sprintf("%s/%d", at, i))
				}
			}
		}
		walk(doc, "")
	}
}

func hasNumber(typ any) bool {
	if typ == "number" {
		return true
	}
	list, _ := typ.([]any)
	for _, x := range list {
		if x == "number" {
			return true
		}
	}
	return false
}

func TestPatternTranslation(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{`^a$`, "a", true},
		{`^a$`, "a\n", true},
		{`^a$`, "a\n\n", false},
		{`^a$`, "a\nb", false},
		{`a`, "xax", true}, // search, not full match
		{`^did:web:.+`, "did:web:", false},
		{`^did:web:.+`, "did:web:\n", false},
		{`^did:web:.+`, "did:web:x\n", true},
		{`[$]`, "$", true},
		{`\$`, "$", true},
		{`a\Z`, "a", true},
		{`a\Z`, "a\n", false},
		{`[]$]x`, "$x", true},
	}
	for _, tt := range tests {
		re, err := pyRegexp(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got := re.MatchString(tt.s); got != tt.want {
			t.Errorf("%q search %q = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
		if re.String() != tt.pattern {
			t.Errorf("String() = %q, want the pattern as written", re.String())
		}
		if re.MatchString(mangledKey(0)) {
			t.Errorf("%q matched a non-string key", tt.pattern)
		}
	}
	if _, err := pyRegexp(`(?<=a)b`); err == nil {
		t.Error("a pattern RE2 cannot run compiled")
	}
}

func TestPath(t *testing.T) {
	p := Path{Key("sources"), Key("a/b~c"), Index(2)}
	if got := p.String(); got != "sources/a/b~c/2" {
		t.Errorf("String = %q", got)
	}
	if got := p.Pointer(); got != "/sources/a~1b~0c/2" {
		t.Errorf("Pointer = %q", got)
	}
	if got := (Path{}).String(); got != "<root>" {
		t.Errorf("root String = %q", got)
	}
	if got := (Path{}).Pointer(); got != "" {
		t.Errorf("root Pointer = %q", got)
	}
	ordered := []Path{
		{},
		{Key("a")},
		{Key("a"), Index(2)},
		{Key("a"), Index(10)},
		{Key("a"), Key("b")},
		{Key("a.a")},
		{Key("b")},
		{Key("é")},
	}
	for i := range ordered {
		for j := range ordered {
			want := cmpInt(i, j)
			if got := ordered[i].Compare(ordered[j]); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestCheckDocument(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		strict  bool
		unknown []string
		errText string // the whole error message, "" for success
	}{
		{name: "clean", doc: "defaults: {}\nsources: {}\n", unknown: []string{}},
		{name: "unknown keys warn", doc: "depends-on: []\ndefaults: {acces_level: x}\nsources: {ds.x: {zz: 1}}\n",
			unknown: []string{"<root>: depends-on", "defaults: acces_level", "sources/ds.x: zz"}},
		{name: "unknown keys fail under strict", doc: "zz: 1\ndefaults: {acces: 1}\nsources: {}\n", strict: true,
			errText: "f.yaml failed governance validation:\n  - unknown key <root>: zz\n  - unknown key defaults: acces"},
		{name: "schema errors win over unknown keys", doc: "zz: 1\ndefaults: {access_level: x}\nsources: {}\n", strict: true,
			errText: "f.yaml failed governance validation:\n  - defaults/access_level: 'x' is not one of ['open', 'internal', 'restricted', 'secret', None]"},
		{name: "strict and clean", doc: "defaults: {}\nsources: {}\n", strict: true, unknown: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckDocument(parse(t, tt.doc), "f.yaml", tt.strict)
			if tt.errText != "" {
				var ve *Error
				if !errors.As(err, &ve) {
					t.Fatalf("error = %v, want *Error", err)
				}
				if diff := cmp.Diff(tt.errText, err.Error()); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			keys := []string{}
			for _, k := range got {
				keys = append(keys, k.String())
			}
			if diff := cmp.Diff(tt.unknown, keys); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownKeyWarning(t *testing.T) {
	got := UnknownKeyWarning("f.yaml", governance.UnknownKey{Scope: "defaults", Key: "acces"})
	if want := "f.yaml: unknown governance key defaults: acces — ignored"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := CheckFile(filepath.Join(dir, "missing.yaml"), false); governance.ErrorClass(err) != governance.ClassNotFound {
		t.Errorf("missing file: %v (class %q)", err, governance.ErrorClass(err))
	}
	if _, err := CheckFile(write("bad.yaml", "a: [\n"), false); governance.ErrorClass(err) != governance.ClassYAML {
		t.Errorf("bad YAML: %v", err)
	}
	empty := write("empty.yaml", "# nothing\n")
	_, err := CheckFile(empty, false)
	want := empty + " failed governance validation:\n  - <root>: 'defaults' is a required property\n  - <root>: 'sources' is a required property"
	if err == nil || err.Error() != want {
		t.Errorf("empty file: %v", err)
	}
	_, err = CheckFile(write("list.yaml", "- a\n"), false)
	var ve *Error
	if !errors.As(err, &ve) || len(ve.Violations) != 1 || ve.Violations[0].String() != "<root>: ['a'] is not of type 'object'" {
		t.Errorf("list root: %v", err)
	}
	keys, err := CheckFile(write("ok.yaml", "defaults: {x: 1}\nsources: {}\n"), false)
	if err != nil || len(keys) != 1 || keys[0].Pos != (yaml11.Pos{Line: 1, Column: 12}) {
		t.Errorf("lenient: %v %v", keys, err)
	}
}

// All 17 governance files of celine-pipelines validate with no schema error and
// no unknown key (validation.md §5); the dataset-api registry validates too.
func TestRealFiles(t *testing.T) {
	files := realGovernanceFiles(t)
	if len(files) != 17 {
		t.Fatalf("found %d real governance files, want 17", len(files))
	}
	for _, f := range files {
		keys, err := CheckFile(f, true)
		if err != nil || len(keys) != 0 {
			t.Errorf("%s: %v %v", f, keys, err)
		}
	}
	data, err := os.ReadFile(testcorpus.Path(t, "reference/dataset-api/owners.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Violations(parse(t, string(data)), schemas.Owners, "owners.yaml")
	if err != nil || len(vs) != 0 {
		t.Errorf("owners.yaml: %v %v", strs(vs), err)
	}
}

func realGovernanceFiles(t testing.TB) []string {
	return testcorpus.ReferenceApps(t)
}

// realGovernanceDocs are realGovernanceFiles parsed, with the governance
// schema that checks them.
func realGovernanceDocs(tb testing.TB) (*Schema, []*yaml11.Node) {
	tb.Helper()
	var docs []*yaml11.Node
	for _, f := range realGovernanceFiles(tb) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, parse(tb, string(data)))
	}
	s, err := Load(schemas.Governance)
	if err != nil {
		tb.Fatal(err)
	}
	return s, docs
}

func BenchmarkViolationsRealFiles(b *testing.B) {
	s, docs := realGovernanceDocs(b)
	if len(docs) != 17 {
		b.Fatalf("found %d files", len(docs))
	}
	b.ResetTimer()
	for b.Loop() {
		for _, d := range docs {
			if vs := s.Violations(d, ""); len(vs) != 0 {
				b.Fatal(strs(vs))
			}
		}
	}
}

func BenchmarkCheckFileRealFiles(b *testing.B) {
	files := realGovernanceFiles(b)
	for b.Loop() {
		for _, f := range files {
			if _, err := CheckFile(f, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func FuzzViolations(f *testing.F) {
	for _, seed := range []string{
		"defaults: {}\nsources: {}\n",
		"defaults: {access_level: 5, dcat: {temporal: {start: 2024-01-01}}}\nsources: {a: , 1: x}\n",
		"owners: [{id: a, type: x, organization: {attributes: {1: 2}}}]\n",
		"- a\n", "", ".nan\n", "&a [*a]\n", "a: &x {b: 1}\nc: *x\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		root, err := yaml11.Parse([]byte(src))
		if err != nil {
			return
		}
		for _, name := range schemas.Names() {
			vs, err := Violations(Document(root), name, "fuzz.yaml")
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vs {
				if v.Keyword == "" || v.Message == "" || strings.Contains(v.Path.String(), nonStringKey) {
					t.Fatalf("bad violation %+v", v)
				}
				if i > 0 && vs[i-1].Path.Compare(v.Path) > 0 {
					t.Fatalf("out of order: %v before %v", vs[i-1], v)
				}
			}
		}
	})
}

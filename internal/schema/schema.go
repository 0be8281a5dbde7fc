package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// Schema is one compiled schema, or a subschema of one ("governance#/$defs/governanceBlock").
type Schema struct {
	name string
	sch  *jsonschema.Schema
	docs map[string]any // schema document URL → decoded document, for keyword look-ups
	// decide answers whether a document is valid without the library
	// (decide.go); nil when the schema uses a keyword it does not apply.
	decide *decider
}

// Name is the name the schema was loaded with.
func (s *Schema) Name() string { return s.name }

// baseURL is where the embedded documents are registered with the compiler. It
// is never fetched: every document is added as a resource before compiling.
const baseURL = "https://governanced.invalid/schemas/"

// noFormats are the format names the compiler would otherwise assert under
// draft-07. The reference validates without a format checker (validation.md
// §2.6), so each is registered as an annotation that accepts everything.
var noFormats = []string{
	"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
	"idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
	"uri-template", "json-pointer", "relative-json-pointer", "uuid", "period", "semver",
}

// registry compiles each schema once, on first use. The compiler is not safe for
// concurrent use, so loading is serialised; a compiled Schema is immutable and
// validates concurrently.
var registry struct {
	sync.Mutex
	compiler *jsonschema.Compiler
	docs     map[string]any
	compiled map[string]*Schema
}

// Load returns the compiled schema called name: one of schemas.Names (or a
// reference file name such as "governance.schema.json"), optionally followed by
// a JSON-pointer fragment naming a subschema ("governance#/$defs/governanceBlock").
func Load(name string) (*Schema, error) {
	registry.Lock()
	defer registry.Unlock()
	if s, ok := registry.compiled[name]; ok {
		return s, nil
	}
	if registry.compiler == nil {
		c, docs, err := newCompiler()
		if err != nil {
			return nil, err
		}
		registry.compiler, registry.docs, registry.compiled = c, docs, map[string]*Schema{}
	}
	doc, frag, _ := strings.Cut(name, "#")
	canon, err := schemas.Canonical(doc)
	if err != nil {
		return nil, err
	}
	url := baseURL + canon
	if frag != "" {
		url += "#" + frag
	}
	sch, err := registry.compiler.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling schema %q: %w", name, err)
	}
	s := &Schema{name: name, sch: sch, docs: registry.docs, decide: compileDecider(registry.docs, url)}
	registry.compiled[name] = s
	return s, nil
}

func newCompiler() (*jsonschema.Compiler, map[string]any, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseRegexpEngine(pyRegexp)
	for _, f := range noFormats {
		c.RegisterFormat(&jsonschema.Format{Name: f, Validate: func(any) error { return nil }})
	}
	docs := map[string]any{}
	for _, name := range schemas.Names() {
		b, err := schemas.Get(name)
		if err != nil {
			return nil, nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, nil, fmt.Errorf("schema %q: %w", name, err)
		}
		if err := c.AddResource(baseURL+name, doc); err != nil {
			return nil, nil, fmt.Errorf("schema %q: %w", name, err)
		}
		// A separate decoding for keyword look-ups: the compiler owns its copy.
		var raw any
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, nil, fmt.Errorf("schema %q: %w", name, err)
		}
		docs[baseURL+name] = raw
	}
	return c, docs, nil
}

// keywords returns the schema object at a library SchemaURL (document URL plus
// JSON-pointer fragment), or nil.
func (s *Schema) keywords(schemaURL string) map[string]any {
	docURL, frag, _ := strings.Cut(schemaURL, "#")
	v, ok := s.docs[docURL]
	if !ok {
		return nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// Violations returns every violation of the schema by doc, the root of a parsed
// document, ordered as the reference orders them (validation.md §2.3). file is
// recorded on each violation. doc is validated as it is: an empty document is
// a null root (see Document for the reference's reading of empty documents).
func (s *Schema) Violations(doc *yaml11.Node, file string) []Violation {
	return s.ViolationsAt(doc, file, nil)
}

// ViolationsAt is Violations for a value that sits at base inside a larger document:
// every violation's path starts with base. The tree check validates the content
// of a nested governance: block this way (check.md §6.1).
func (s *Schema) ViolationsAt(n *yaml11.Node, file string, base Path) []Violation {
	if n == nil {
		n = &yaml11.Node{Kind: yaml11.Null}
	}
	if expandedSize(n, MaxValues) > MaxValues {
		return []Violation{{File: file, Pos: n.Pos, Path: base, Keyword: "maxValues",
			Message: fmt.Sprintf("the document expands to more than %d values through aliases; it was not validated", MaxValues)}}
	}
	if s.decide != nil && s.decide.valid(n) {
		return nil
	}
	err := s.sch.Validate(instance(n))
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok { // the library returns nothing else from Validate
		return []Violation{{File: file, Pos: n.Pos, Path: base, Keyword: "error", Message: err.Error()}}
	}
	vs := s.violations(verr, n, file, base)
	sortViolations(vs)
	return vs
}

// Violations checks doc against the schema called name (see Load): the
// reference's schema_errors, with positions. It fails only for an unknown
// schema name.
func Violations(doc *yaml11.Node, name, file string) ([]Violation, error) {
	s, err := Load(name)
	if err != nil {
		return nil, err
	}
	return s.Violations(doc, file), nil
}

// Document is the root the reference validates for a parsed file: an empty
// document — null, or another falsy root (false, 0, 0.0, "", [], {}) — reads as
// an empty mapping positioned where the root was (governance-format.md §1.1).
// Any other root is returned unchanged.
func Document(root *yaml11.Node) *yaml11.Node {
	if root == nil {
		return &yaml11.Node{Kind: yaml11.Map, Pos: yaml11.Pos{Line: 1, Column: 1}}
	}
	if root.Kind != yaml11.Map && root.Falsy() {
		return &yaml11.Node{Kind: yaml11.Map, Pos: root.Pos}
	}
	return root
}

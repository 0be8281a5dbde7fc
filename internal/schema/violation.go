package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/celine-eu/governanced/internal/jsonvalue"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Violation is one schema error: where it is and what is wrong. One Violation
// is one error of the reference's schema_errors (validation.md §2).
type Violation struct {
	File string     // the source the document came from ("" when none was given)
	Pos  yaml11.Pos // the offending value; for required and additionalProperties, the mapping
	Path Path       // the offending value's location from the document root

	// Keyword is the failed keyword: type, enum, required, additionalProperties,
	// pattern, minItems, minLength or oneOf (others only if a schema used them);
	// "maxValues" when the document was too large to validate (see MaxValues).
	Keyword string
	// Property is the missing property of a required error.
	Property string
	// Unexpected are the unexpected keys of an additionalProperties error, in the
	// reference's plain text, sorted by code point.
	Unexpected []string

	// Message is the reference's wording (validation.md §2.4), values rendered
	// as Python literals: "'x' is not one of ['open', 'internal', …]".
	Message string
}

// String is the reference's error string: "<path>: <message>".
func (v Violation) String() string { return v.Path.String() + ": " + v.Message }

// Subject names the failed keyword as the tree check reports it (check.md
// §6.1): the keyword, "required:<name>", or "additionalProperties:<k1>,<k2>".
func (v Violation) Subject() string {
	switch v.Keyword {
	case "required":
		return "required:" + v.Property
	case "additionalProperties":
		return "additionalProperties:" + strings.Join(v.Unexpected, ",")
	}
	return v.Keyword
}

// violations flattens the library's error tree into the reference's top-level
// errors: a schema, a group of sibling errors, a $ref and an allOf pass their
// causes through (Python's jsonschema yields those directly), every other
// error is one violation — so a failed oneOf is one error at the value, its
// branch errors discarded.
func (s *Schema) violations(e *jsonschema.ValidationError, root *yaml11.Node, file string, base Path) []Violation {
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		node, path, ok := locate(root, e.InstanceLocation, base)
		if !ok {
			node, path = root, base
		}
		out = append(out, s.describe(e, node, file, path)...)
	}
	walk(e)
	return out
}

// describe turns one library error into the reference's error(s) at node.
func (s *Schema) describe(e *jsonschema.ValidationError, node *yaml11.Node, file string, path Path) []Violation {
	v := Violation{File: file, Pos: node.Pos, Path: path}
	repr := yaml11.ShortRepr(node)
	kw := s.keywords(e.SchemaURL)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		v.Keyword = "type"
		v.Message = repr + " is not of type " + typeList(kw, k.Want)
		out := []Violation{v}
		// The library stops at a failed type; Python goes on to enum, the only
		// keyword the schemas put beside type that is not limited to one type.
		if enum, ok := kw["enum"].([]any); ok && !inEnum(instance(node), enum) {
			ev := Violation{File: file, Pos: node.Pos, Path: path, Keyword: "enum"}
			ev.Message = repr + " is not one of " + pyJSON(enum)
			out = append(out, ev)
		}
		return out
	case *kind.Enum:
		v.Keyword = "enum"
		enum, ok := kw["enum"].([]any)
		if !ok {
			enum = k.Want
		}
		v.Message = repr + " is not one of " + pyJSON(enum)
	case *kind.Required:
		out := make([]Violation, len(k.Missing))
		for i, name := range k.Missing {
			out[i] = Violation{File: file, Pos: node.Pos, Path: path, Keyword: "required", Property: name,
				Message: yaml11.PyQuote(name) + " is a required property"}
		}
		return out
	case *kind.AdditionalProperties:
		v.Keyword = "additionalProperties"
		v.Unexpected, v.Message = unexpected(node, k.Properties)
	case *kind.Pattern:
		v.Keyword = "pattern"
		v.Message = repr + " does not match " + yaml11.PyQuote(k.Want)
	case *kind.MinItems:
		v.Keyword = "minItems"
		v.Message = repr + " " + tooShort(k.Want)
	case *kind.MinLength:
		v.Keyword = "minLength"
		v.Message = repr + " " + tooShort(k.Want)
	case *kind.OneOf:
		v.Keyword = "oneOf"
		if k.Subschemas == nil {
			v.Message = repr + " is not valid under any of the given schemas"
		} else {
			v.Message = repr + " is valid under more than one of the given schemas"
		}
	case *kind.AnyOf:
		v.Keyword = "anyOf"
		v.Message = repr + " is not valid under any of the given schemas"
	case *kind.Not:
		v.Keyword = "not"
		v.Message = repr + " should not be valid under " + pyJSON(kw["not"])
	case *kind.FalseSchema:
		v.Keyword = "false"
		v.Message = "False schema does not allow " + repr
	default: // a keyword the published schemas do not use
		kp := e.ErrorKind.KeywordPath()
		v.Keyword = strings.Join(kp, "/")
		v.Message = repr + ": " + e.ErrorKind.LocalizedString(nil)
	}
	return []Violation{v}
}

// typeList renders the type keyword as the reference does: each name quoted, in
// schema order.
func typeList(kw map[string]any, want []string) string {
	var names []string
	switch t := kw["type"].(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	default:
		names = want
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = yaml11.PyQuote(n)
	}
	return strings.Join(quoted, ", ")
}

func tooShort(want int) string {
	if want == 1 {
		return "should be non-empty"
	}
	return "is too short"
}

// unexpected returns the unexpected keys of a mapping in plain text, sorted by
// code point (Python sorts them by str()), and the reference's message.
func unexpected(m *yaml11.Node, props []string) ([]string, string) {
	type key struct{ text, repr string }
	keys := make([]key, 0, len(props))
	for _, tok := range props {
		if p, ok := pairFor(m, tok); ok {
			keys = append(keys, key{keyText(p.Key), yaml11.PyRepr(p.Key)})
		} else {
			keys = append(keys, key{tok, yaml11.PyQuote(tok)})
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.text, b.text) })
	texts := make([]string, len(keys))
	reprs := make([]string, len(keys))
	for i, k := range keys {
		texts[i], reprs[i] = k.text, k.repr
	}
	verb := "were"
	if len(keys) == 1 {
		verb = "was"
	}
	return texts, fmt.Sprintf("Additional properties are not allowed (%s %s unexpected)", strings.Join(reprs, ", "), verb)
}

// inEnum is the reference's enum membership: exact and type-aware (true is not
// 1, null equals only null), numbers by value.
func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if jsonvalue.Equal(v, e) {
			return true
		}
	}
	return false
}

// pyJSON renders a value decoded from a schema document as a Python literal:
// ['open', None], True, {'a': 1}.
func pyJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return yaml11.PyQuote(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return yaml11.PyFloat(x)
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyJSON(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = yaml11.PyQuote(k) + ": " + pyJSON(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// keywordRank orders errors at one path as the reference's schema key order
// does: type before enum, required (in required order) before
// additionalProperties.
func keywordRank(k string) int {
	switch k {
	case "type":
		return 0
	case "enum":
		return 1
	case "required":
		return 2
	case "additionalProperties":
		return 3
	}
	return 4
}

func sortViolations(vs []Violation) {
	// The library visits object properties in map order; a stable sort on the
	// full key makes the result deterministic. Required errors arrive in
	// required order and keep it.
	slices.SortStableFunc(vs, func(a, b Violation) int {
		if c := a.Path.Compare(b.Path); c != 0 {
			return c
		}
		if c := cmp.Compare(keywordRank(a.Keyword), keywordRank(b.Keyword)); c != 0 {
			return c
		}
		if a.Keyword == "required" {
			return 0
		}
		return strings.Compare(a.Message, b.Message)
	})
}

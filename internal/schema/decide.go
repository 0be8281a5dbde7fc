package schema

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// A decider answers one question of a schema — is this document valid? —
// by walking the YAML tree itself. The library validates JSON values, so
// asking it means converting the whole tree to maps and slices first
// (instance), and that conversion and its garbage were most of what a
// large tree's cold load spent on the schema. Nearly every document of a
// tree is valid, so the decider answers for those, and the library is
// asked only about a document the decider finds invalid: the library
// alone says what is wrong and how the reference words it.
//
// A decider is compiled from the schema documents for the keywords the
// published schemas use, each as the library applies it to the values
// instance gives (a timestamp or a non-finite float is a number that is
// no integer, a non-string key matches no property name). A schema that
// uses any other keyword compiles to no decider, and every document is
// then the library's to judge. TestDeciderAgreesWithTheLibrary and
// FuzzDecider hold the two to the same verdict.
type decider struct {
	ref   *decider // $ref: after type and enum, the only keyword the library applies (draft 7)
	types typeSet  // 0: any type
	enum  []enumValue
	// hasEnum: the enum keyword is present, even when empty (which nothing
	// satisfies).
	hasEnum bool

	props        map[string]*decider
	patterns     []patternDecider
	additional   *decider // nil: any other key is allowed
	noAdditional bool     // additionalProperties: false
	required     []string

	items    *decider
	minItems int // -1: none

	minLength int // -1: none
	pattern   *pyRe

	oneOf, anyOf, allOf []*decider
	not                 *decider

	falseSchema bool // the schema false: nothing is valid
}

type patternDecider struct {
	re *pyRe
	d  *decider
}

// typeSet is a set of JSON types.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeNames = map[string]typeSet{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// enumValue is an enum member the decider can compare a YAML scalar with:
// a string, null or a boolean.
type enumValue struct {
	kind yaml11.Kind
	str  string
	b    bool
}

// annotations are keywords that change no verdict.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "$defs": true, "definitions": true,
	"readOnly": true, "writeOnly": true,
}

// deciderCompiler compiles the schema objects of the registry's documents,
// each once, so that a $ref cycle compiles to a cycle of deciders.
type deciderCompiler struct {
	docs map[string]any
	done map[string]*decider // by document URL and JSON pointer
}

// compileDecider compiles the schema at url (a document URL, optionally
// with a JSON-pointer fragment); nil when it uses a keyword the decider
// does not apply.
func compileDecider(docs map[string]any, url string) *decider {
	c := &deciderCompiler{docs: docs, done: map[string]*decider{}}
	d, ok := c.at(url)
	if !ok {
		return nil
	}
	return d
}

func (c *deciderCompiler) at(url string) (*decider, bool) {
	docURL, frag, _ := strings.Cut(url, "#")
	key := docURL + "#" + frag
	if d, ok := c.done[key]; ok {
		return d, d != nil
	}
	v, ok := c.docs[docURL]
	if !ok {
		return nil, false
	}
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	d := &decider{}
	c.done[key] = d // before compiling: a $ref back here finds it
	if !c.compile(d, v, docURL) {
		c.done[key] = nil
		return nil, false
	}
	return d, true
}

// compile fills d from the schema value v of the document at docURL.
func (c *deciderCompiler) compile(d *decider, v any, docURL string) bool {
	d.minItems, d.minLength = -1, -1
	switch s := v.(type) {
	case bool:
		d.falseSchema = !s
		return true
	case map[string]any:
		for kw, val := range s {
			if annotations[kw] || kw == "format" && val != "regex" {
				continue // formats are annotations here (newCompiler)
			}
			if !c.keyword(d, kw, val, docURL) {
				return false
			}
		}
		return true
	}
	return false
}

func (c *deciderCompiler) sub(v any, docURL string) (*decider, bool) {
	d := &decider{}
	return d, c.compile(d, v, docURL)
}

// keyword fills d with one keyword of a schema object; false for a keyword
// or a value the decider does not take.
func (c *deciderCompiler) keyword(d *decider, kw string, val any, docURL string) bool {
	var ok bool
	switch kw {
	case "$ref":
		ref, isStr := val.(string)
		if !isStr || !strings.HasPrefix(ref, "#") {
			return false // another document: not needed by the published schemas
		}
		d.ref, ok = c.at(docURL + ref)
		return ok
	case "type":
		return d.compileType(val)
	case "enum":
		return d.compileEnum(val)
	case "properties", "patternProperties", "additionalProperties", "required":
		return c.objectKeyword(d, kw, val, docURL)
	case "items":
		if _, isList := val.([]any); isList {
			return false // a tuple: not used by the published schemas
		}
		d.items, ok = c.sub(val, docURL)
		return ok
	case "minItems":
		d.minItems, ok = count(val)
		return ok
	case "minLength":
		d.minLength, ok = count(val)
		return ok
	case "pattern":
		p, isStr := val.(string)
		if !isStr {
			return false
		}
		re, err := pyRegexp(p)
		if err != nil {
			return false
		}
		d.pattern = re.(*pyRe)
		return true
	case "oneOf", "anyOf", "allOf":
		return c.combination(d, kw, val, docURL)
	case "not":
		d.not, ok = c.sub(val, docURL)
		return ok
	}
	return false
}

// objectKeyword compiles one of the keywords about a mapping's members:
// properties, patternProperties, additionalProperties, required.
func (c *deciderCompiler) objectKeyword(d *decider, kw string, val any, docURL string) bool {
	var ok bool
	switch kw {
	case "properties":
		m, isMap := val.(map[string]any)
		if !isMap {
			return false
		}
		d.props = make(map[string]*decider, len(m))
		for name, sv := range m {
			if d.props[name], ok = c.sub(sv, docURL); !ok {
				return false
			}
		}
		return true
	case "patternProperties":
		m, isMap := val.(map[string]any)
		if !isMap {
			return false
		}
		for pattern, sv := range m {
			re, err := pyRegexp(pattern)
			if err != nil {
				return false
			}
			pd := patternDecider{re: re.(*pyRe)}
			if pd.d, ok = c.sub(sv, docURL); !ok {
				return false
			}
			d.patterns = append(d.patterns, pd)
		}
		return true
	case "additionalProperties":
		if b, isBool := val.(bool); isBool {
			d.noAdditional = !b
			return true
		}
		d.additional, ok = c.sub(val, docURL)
		return ok
	case "required":
		list, isList := val.([]any)
		if !isList {
			return false
		}
		for _, x := range list {
			name, isStr := x.(string)
			if !isStr {
				return false
			}
			d.required = append(d.required, name)
		}
		return true
	}
	return false
}

// combination compiles oneOf, anyOf or allOf: a non-empty list of schemas.
func (c *deciderCompiler) combination(d *decider, kw string, val any, docURL string) bool {
	list, isList := val.([]any)
	if !isList || len(list) == 0 {
		return false
	}
	subs := make([]*decider, len(list))
	for i, sv := range list {
		var ok bool
		if subs[i], ok = c.sub(sv, docURL); !ok {
			return false
		}
	}
	switch kw {
	case "oneOf":
		d.oneOf = subs
	case "anyOf":
		d.anyOf = subs
	default:
		d.allOf = subs
	}
	return true
}

// count reads a non-negative integer keyword value.
func count(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func (d *decider) compileType(v any) bool {
	add := func(x any) bool {
		name, ok := x.(string)
		t, known := typeNames[name]
		d.types |= t
		return ok && known
	}
	switch t := v.(type) {
	case string:
		return add(t)
	case []any:
		for _, x := range t {
			if !add(x) {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}

func (d *decider) compileEnum(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	d.hasEnum = true
	for _, x := range list {
		switch e := x.(type) {
		case nil:
			d.enum = append(d.enum, enumValue{kind: yaml11.Null})
		case string:
			d.enum = append(d.enum, enumValue{kind: yaml11.String, str: e})
		case bool:
			d.enum = append(d.enum, enumValue{kind: yaml11.Bool, b: e})
		default:
			return false // numbers and collections compare by the library's rules
		}
	}
	return true
}

// valid reports whether n satisfies the schema, as the library would judge
// instance(n).
func (d *decider) valid(n *yaml11.Node) bool {
	if d.falseSchema {
		return false
	}
	if d.types != 0 && d.types&typeOf(n) == 0 {
		return false
	}
	if d.hasEnum && !d.inEnum(n) {
		return false
	}
	if d.ref != nil {
		// Draft 7: $ref stands for the whole schema beside type and enum,
		// which the library checks first.
		return d.ref.valid(n)
	}
	switch n.Kind {
	case yaml11.Map:
		if !d.validMapping(n) {
			return false
		}
	case yaml11.Seq:
		if d.minItems >= 0 && len(n.Items) < d.minItems {
			return false
		}
		if d.items != nil {
			for _, it := range n.Items {
				if !d.items.valid(it) {
					return false
				}
			}
		}
	case yaml11.String:
		if d.minLength >= 0 && utf8.RuneCountInString(n.Str) < d.minLength {
			return false
		}
		if d.pattern != nil && !d.pattern.MatchString(n.Str) {
			return false
		}
	}
	if d.not != nil && d.not.valid(n) {
		return false
	}
	for _, s := range d.allOf {
		if !s.valid(n) {
			return false
		}
	}
	if d.anyOf != nil {
		any := false
		for _, s := range d.anyOf {
			if s.valid(n) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	if d.oneOf != nil {
		matched := 0
		for _, s := range d.oneOf {
			if s.valid(n) {
				if matched++; matched > 1 {
					return false
				}
			}
		}
		if matched != 1 {
			return false
		}
	}
	return true
}

func (d *decider) validMapping(n *yaml11.Node) bool {
	for _, name := range d.required {
		if n.Get(name) == nil {
			return false
		}
	}
	for _, p := range n.Pairs {
		isStr := p.Key.Kind == yaml11.String
		evaluated := false
		if isStr {
			if s, ok := d.props[p.Key.Str]; ok {
				evaluated = true
				if !s.valid(p.Value) {
					return false
				}
			}
			for _, pd := range d.patterns {
				if pd.re.MatchString(p.Key.Str) {
					evaluated = true
					if !pd.d.valid(p.Value) {
						return false
					}
				}
			}
		}
		// A non-string key matches no property name and no pattern
		// (nonStringKey): it is an additional property.
		if !evaluated {
			if d.noAdditional {
				return false
			}
			if d.additional != nil && !d.additional.valid(p.Value) {
				return false
			}
		}
	}
	return true
}

func (d *decider) inEnum(n *yaml11.Node) bool {
	for _, e := range d.enum {
		if e.kind != n.Kind {
			continue
		}
		switch n.Kind {
		case yaml11.Null:
			return true
		case yaml11.String:
			if e.str == n.Str {
				return true
			}
		case yaml11.Bool:
			if e.b == n.Bool {
				return true
			}
		}
	}
	return false
}

// typeOf is the JSON type the library sees for n's instance value, with
// "integer" beside "number" for an integral number: a timestamp and a
// non-finite float stand in as a number with a fraction (notJSON).
func typeOf(n *yaml11.Node) typeSet {
	switch n.Kind {
	case yaml11.Null:
		return typeNull
	case yaml11.Bool:
		return typeBoolean
	case yaml11.Int:
		return typeInteger | typeNumber
	case yaml11.Float:
		if !math.IsNaN(n.Float) && !math.IsInf(n.Float, 0) && n.Float == math.Trunc(n.Float) {
			return typeInteger | typeNumber
		}
		return typeNumber
	case yaml11.String:
		return typeString
	case yaml11.Map:
		return typeObject
	case yaml11.Seq:
		return typeArray
	}
	return typeNumber // a timestamp
}

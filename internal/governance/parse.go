package governance

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// Warning is something a file says that loads but probably is not what its
// author meant: a key written twice, keys beside a governance: key.
type Warning struct {
	File string
	yaml11.Pos
	Msg string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", w.File, w.Line, w.Column, w.Msg)
}

// Parse reads one governance document from YAML text. file names it in errors
// and provenance; it is not opened.
func Parse(data []byte, file string) (*Config, error) {
	return parseFile(data, file, false)
}

func parseFile(data []byte, file string, overlay bool) (*Config, error) {
	doc, ywarn, err := yaml11.ParseWithWarnings(data, yaml11.Limits{})
	if err != nil {
		return nil, withFile(err, file)
	}
	cfg, err := parseDoc(doc, file, overlay)
	if err != nil {
		return nil, withFile(err, file)
	}
	for _, w := range ywarn {
		cfg.Warnings = append(cfg.Warnings, Warning{File: file, Pos: w.Pos, Msg: w.Msg})
	}
	return cfg, nil
}

// ParseDocument reads a document already loaded by the YAML reader (the
// reference's from_dict).
func ParseDocument(doc *yaml11.Node, file string) (*Config, error) {
	cfg, err := parseDoc(doc, file, false)
	if err != nil {
		return nil, withFile(err, file)
	}
	return cfg, nil
}

// ParseOverlayDocument is ParseDocument for a deployer overlay: the rules'
// provenance names the overlay layer, so explain=true can say which file of
// the pair supplied a value.
func ParseOverlayDocument(doc *yaml11.Node, file string) (*Config, error) {
	cfg, err := parseDoc(doc, file, true)
	if err != nil {
		return nil, withFile(err, file)
	}
	return cfg, nil
}

type parser struct {
	file     string
	layer    *Layer // of the block being read: the document's defaults or its sources
	warnings []Warning
	vals     values
}

// parseDoc reads a document; its defaults and its sources blocks are two
// layers of the file.
func parseDoc(doc *yaml11.Node, file string, overlay bool) (*Config, error) {
	return parseDocWith(doc, file, overlay, nil)
}

// parseDocWith is parseDoc sharing values with the documents shared parsed.
func parseDocWith(doc *yaml11.Node, file string, overlay bool, shared *Values) (*Config, error) {
	defaults, sources := newLayers(file, overlay)
	p := &parser{file: file, vals: values{shared: shared}}
	cfg := &Config{Active: true, Defaults: &Rule{}, Files: []string{file}}
	if doc == nil || doc.Falsy() {
		cfg.index = buildIndex(cfg.Sources)
		return cfg, nil
	}
	if doc.Kind != yaml11.Map {
		return nil, errAt(ClassMalformed, doc, "", "the document root must be a mapping, not %s", yaml11.Describe(doc))
	}
	for _, pair := range doc.Pairs {
		if pair.Key.Kind != yaml11.String {
			continue // an unknown root key: unknown_keys reports it
		}
		v := pair.Value
		switch pair.Key.Str {
		case "active":
			b, err := parseBool(v, "active")
			if err != nil {
				return nil, err
			}
			cfg.Active, cfg.ActiveSet = b, true
		case "defaults":
			p.layer = defaults
			r, err := p.block(v, "defaults")
			if err != nil {
				return nil, err
			}
			cfg.Defaults = r
		case "depends_on":
			deps, err := parseDependsOn(v)
			if err != nil {
				return nil, err
			}
			cfg.DependsOn, cfg.DependsOnSet = deps, true
		case "sources":
			p.layer = sources
			srcs, err := p.sources(v)
			if err != nil {
				return nil, err
			}
			cfg.Sources = srcs
		}
	}
	p.vals.texts.place()
	cfg.Warnings = p.warnings
	cfg.index = buildIndex(cfg.Sources)
	return cfg, nil
}

func (p *parser) sources(v *yaml11.Node) ([]Source, error) {
	if v.Falsy() {
		return nil, nil
	}
	if v.Kind != yaml11.Map {
		return nil, errAt(ClassMalformed, v, "sources", "sources must be a mapping of dataset name or glob to a block, not %s", yaml11.Describe(v))
	}
	out := make([]Source, 0, len(v.Pairs))
	for _, pair := range v.Pairs {
		if pair.Key.Kind != yaml11.String {
			return nil, errAt(ClassValidation, pair.Key, "sources", "a sources key must be a string, not %s", yaml11.Describe(pair.Key))
		}
		key := pair.Key.Str
		r, err := p.block(pair.Value, "sources/"+key)
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Key: key, Rule: r, Line: int32(pair.Key.Pos.Line), Column: int32(pair.Key.Pos.Column)})
	}
	return out, nil
}

// block reads one governance block, bare or nested under governance:.
func (p *parser) block(v *yaml11.Node, path string) (*Rule, error) {
	if v.Falsy() {
		return &Rule{}, nil
	}
	if v.Kind != yaml11.Map {
		return nil, errAt(ClassMalformed, v, path, "a governance block must be a mapping, not %s", yaml11.Describe(v))
	}
	if inner := v.Get("governance"); inner != nil {
		var ignored []string
		for _, pair := range v.Pairs {
			if !(pair.Key.Kind == yaml11.String && pair.Key.Str == "governance") {
				ignored = append(ignored, yaml11.PyStr(pair.Key))
			}
		}
		if len(ignored) > 0 {
			p.warnings = append(p.warnings, Warning{File: p.file, Pos: v.Pos,
				Msg: fmt.Sprintf("%s: keys beside governance: are ignored: %s", path, strings.Join(ignored, ", "))})
		}
		if inner.Falsy() {
			return &Rule{}, nil
		}
		if inner.Kind != yaml11.Map {
			return nil, errAt(ClassMalformed, inner, path+"/governance", "governance: must hold a mapping, not %s", yaml11.Describe(inner))
		}
		v = inner
	}
	return p.vals.parseRule(v, path, p.layer)
}

// ParseRule reads one block (bare or nested under governance:) as written, with
// no defaults and no merging. Its provenance names it a base source block.
func ParseRule(block *yaml11.Node, file string) (*Rule, error) {
	_, source := newLayers(file, false)
	p := &parser{file: file, layer: source}
	r, err := p.block(block, "")
	if err != nil {
		return nil, withFile(err, file)
	}
	p.vals.texts.place()
	return r, nil
}

func (vs *values) parseRule(m *yaml11.Node, path string, layer *Layer) (*Rule, error) {
	r := &Rule{layers: vs.layerList(layer)}
	slot := r.layerSlot(layer)
	rare := vs.rareScratch()
	// The positions of the fields, and the provenance of the paths below
	// the top level and of the extra keys, gathered on the stack and
	// encoded once, sorted.
	var posBuf [numFields]position
	pos := posBuf[:0]
	var buf [16]pathPosition
	prov := buf[:0]
	at := func(key string) string {
		if path == "" {
			return key
		}
		return path + "/" + key
	}
	for _, pair := range m.Pairs {
		if pair.Key.Kind != yaml11.String {
			return nil, errAt(ClassValidation, pair.Key, path, "a block key must be a string, not %s", yaml11.Describe(pair.Key))
		}
		key, v := pair.Key.Str, pair.Value
		f, known := KnownKeys[key]
		if !known {
			if !r.Set.Has(FieldExtra) {
				r.Set.add(FieldExtra)
				pos = withPosition(pos, position{Line: int32(pair.Key.Pos.Line), Column: int32(pair.Key.Pos.Column), field: FieldExtra, layer: slot})
			}
			prov = append(prov, pathPosition{Line: int32(v.Pos.Line), Column: int32(v.Pos.Column), index: uint32(len(rare.extra)),
				layer: slot, code: pathExtra})
			// A copy: the document's nodes may be in an arena that the
			// next document reuses (yaml11.Arena).
			rare.extra = append(rare.extra, ExtraField{Key: key, Value: v.Clone()})
			continue
		}
		// A field's path only names it in an error, and joining it for every
		// field of every source would allocate for every field of a large
		// load. So a field is parsed without it, and parsed again with it when
		// it fails: nothing but the message depends on the path.
		if err := vs.parseField(r, rare, f, v, ""); err != nil {
			if named := vs.parseField(r, rare, f, v, at(key)); named != nil {
				err = named
			}
			return nil, err
		}
		r.Set.add(f)
		pos = withPosition(pos, position{Line: int32(v.Pos.Line), Column: int32(v.Pos.Column), field: f, layer: slot})
		prov = parsedPaths(prov, f, v, slot)
	}
	slices.SortStableFunc(prov, func(a, b pathPosition) int { return int(a.code) - int(b.code) })
	r.places = newPlaces(pos, prov)
	if r.Set&rareFieldSet != 0 {
		r.rare = vs.sameRare(rare)
	}
	return r, nil
}

// parseField parses the value of field f into r, or into rare for a rare
// field; fp is the field's path, for errors only.
func (vs *values) parseField(r *Rule, rare *rareFields, f Field, v *yaml11.Node, fp string) error {
	if s := &ruleFields[f]; s.tabled() {
		return s.parse(vs, r, v, fp)
	}
	if s := &rareFieldTable[f]; s.tabled() {
		return s.parse(vs, rare, v, fp)
	}
	var err error
	switch f {
	case FieldTitle:
		r.title, err = vs.docText(r, v, fp)
	case FieldDescription:
		r.description, err = vs.docText(r, v, fp)
	case FieldOwnership:
		r.ownership, err = vs.ownership(v, fp)
	case FieldRowFilters:
		rare.rowFilters, err = vs.rowFilters(v, fp)
	case FieldDcat:
		r.Dcat, err = vs.dcat(v, fp)
	case FieldOntology:
		rare.ontology, err = vs.ontology(v, fp)
	case FieldDataspace:
		r.Dataspace, err = vs.dataspace(v, fp)
	}
	return err
}

func typeErr(v *yaml11.Node, path, want string) *Error {
	return errAt(ClassValidation, v, path, "expected %s, got %s", want, yaml11.Describe(v))
}

func (vs *values) optString(v *yaml11.Node, path string) (*string, error) {
	switch v.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.String:
		return vs.str(v.Str), nil
	}
	return nil, typeErr(v, path, "a string or null (quote dates and numbers)")
}

func parseString(v *yaml11.Node, path string) (string, error) {
	return parseStringAt(v, func() string { return path })
}

// parseStringAt is parseString for a list item, whose path is joined only for
// the error: a path per item of every list would be garbage on every load.
func parseStringAt(v *yaml11.Node, path func() string) (string, error) {
	if v.Kind != yaml11.String {
		return "", typeErr(v, path(), "a string (quote dates and numbers)")
	}
	return v.Str, nil
}

var boolStrings = map[string]bool{
	"0": false, "off": false, "f": false, "false": false, "n": false, "no": false,
	"1": true, "on": true, "t": true, "true": true, "y": true, "yes": true,
}

// CoerceBool applies the reference model's lax boolean coercion
// (governance-format.md §4.7), shared by every boolean field of governance and
// owners files: a boolean; 0/1 and 0.0/1.0; or one of the words 0 off f false
// n no / 1 on t true y yes, ignoring ASCII case, not trimmed. ok is false for
// anything else.
func CoerceBool(v *yaml11.Node) (value, ok bool) {
	switch v.Kind {
	case yaml11.Bool:
		return v.Bool, true
	case yaml11.Int:
		if v.BigInt == nil && (v.Int == 0 || v.Int == 1) {
			return v.Int == 1, true
		}
	case yaml11.Float:
		if v.Float == 0 || v.Float == 1 {
			return v.Float == 1, true
		}
	case yaml11.String:
		b, ok := boolStrings[asciiLower(v.Str)]
		return b, ok
	}
	return false, false
}

func parseBool(v *yaml11.Node, path string) (bool, error) {
	if b, ok := CoerceBool(v); ok {
		return b, nil
	}
	return false, typeErr(v, path, "a boolean")
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// retention applies the reference's integer coercions, bounded to 64 bits.
func (vs *values) retention(v *yaml11.Node, path string) (*int64, error) {
	var n int64
	switch v.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.Int:
		if v.BigInt != nil {
			return nil, errAt(ClassValidation, v, path, "%s does not fit in a 64-bit integer", yaml11.ShortRepr(v))
		}
		n = v.Int
	case yaml11.Bool:
		if v.Bool {
			n = 1
		}
	case yaml11.Float:
		f := v.Float
		if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
			return nil, typeErr(v, path, "an integer (a float must have no fractional part)")
		}
		if f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
			return nil, errAt(ClassValidation, v, path, "%s does not fit in a 64-bit integer", yaml11.PyFloat(f))
		}
		n = int64(f)
	case yaml11.String:
		i, ok, err := intFromString(v.Str)
		if err != nil {
			return nil, errAt(ClassValidation, v, path, "%v", err)
		}
		if !ok {
			return nil, typeErr(v, path, "an integer")
		}
		if !i.IsInt64() {
			return nil, errAt(ClassValidation, v, path, "%s does not fit in a 64-bit integer", yaml11.ShortRepr(&yaml11.Node{Kind: yaml11.Int, BigInt: i}))
		}
		n = i.Int64()
	default:
		return nil, typeErr(v, path, "an integer")
	}
	return vs.int(n), nil
}

// intFromString is the reference's int-from-str: surrounding whitespace, an
// optional sign, digits with single underscores between digits, optionally
// ".0…". More than yaml11.MaxIntDigits digits is an error, as Python's
// int(str) raises one, checked before converting (which costs time
// quadratic in the digits).
func intFromString(s string) (*big.Int, bool, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false, nil
	}
	if intPart, frac, found := strings.Cut(s, "."); found {
		if frac == "" || strings.Trim(frac, "0") != "" {
			return nil, false, nil
		}
		s = intPart
	}
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if body == "" {
		return nil, false, nil
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '_' {
			if i == 0 || i == len(body)-1 || !isDigit(body[i-1]) || !isDigit(body[i+1]) {
				return nil, false, nil
			}
			continue
		}
		if !isDigit(c) {
			return nil, false, nil
		}
	}
	if d := yaml11.IntDigits(body); d > yaml11.MaxIntDigits {
		return nil, false, &yaml11.DigitsError{Digits: d, Limit: yaml11.MaxIntDigits}
	}
	z, ok := new(big.Int).SetString(strings.ReplaceAll(s, "_", ""), 10)
	return z, ok, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (vs *values) strings(v *yaml11.Node, path string) ([]string, error) {
	l, err := vs.stringsRef(v, path)
	if err != nil {
		return nil, err
	}
	return *l, nil
}

// stringsRef is strings' list behind the pointer the values share it by.
func (vs *values) stringsRef(v *yaml11.Node, path string) (*[]string, error) {
	if v.Kind != yaml11.Seq {
		return nil, typeErr(v, path, "a list of strings")
	}
	var buf [8]string
	out := buf[:0]
	for i, it := range v.Items {
		s, err := parseStringAt(it, func() string { return fmt.Sprintf("%s/%d", path, i) })
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return vs.listRef(out), nil
}

func (vs *values) ownership(v *yaml11.Node, path string) (*[]Owner, error) {
	if v.Kind != yaml11.Seq {
		return nil, typeErr(v, path, "a list of owners")
	}
	var buf [4]Owner
	out := buf[:0]
	for i, it := range v.Items {
		// The item's path, joined only for an error.
		ip := func() string { return fmt.Sprintf("%s/%d", path, i) }
		if it.Kind != yaml11.Map {
			out = append(out, Owner{Name: yaml11.PyStr(it), Type: "OWNER"})
			continue
		}
		o := Owner{Type: "OWNER"}
		name := it.Get("name")
		if name == nil {
			return nil, errAt(ClassValidation, it, ip(), "an owner needs a name")
		}
		var err error
		if o.Name, err = parseStringAt(name, func() string { return ip() + "/name" }); err != nil {
			return nil, err
		}
		if t := it.Get("type"); t != nil {
			if o.Type, err = parseStringAt(t, func() string { return ip() + "/type" }); err != nil {
				return nil, err
			}
		}
		out = append(out, o)
	}
	return vs.ownerList(out), nil
}

func (vs *values) rowFilters(v *yaml11.Node, path string) ([]RowFilter, error) {
	if v.Kind != yaml11.Seq {
		return nil, typeErr(v, path, "a list of row filters")
	}
	for i, it := range v.Items {
		if it.Kind != yaml11.Map {
			return nil, typeErr(it, fmt.Sprintf("%s/%d", path, i), "a row filter mapping ({handler, args})")
		}
		for _, pair := range it.Pairs {
			if pair.Key.Kind != yaml11.String {
				return nil, errAt(ClassValidation, pair.Key, fmt.Sprintf("%s/%d", path, i), "a row filter key must be a string, not %s", yaml11.ShortRepr(pair.Key))
			}
		}
	}
	if len(v.Items) == 0 {
		return nil, nil
	}
	var fbuf [4]RowFilter
	out := fbuf[:0]
	var buf bytes.Buffer
	for _, it := range v.Items {
		buf.Reset()
		it.AppendJSON(&buf)
		f := RowFilter{JSON: vs.bytes(buf.Bytes())}
		if h := it.Get("handler"); h != nil && h.Kind == yaml11.String {
			f.Handler = h.Str
		}
		out = append(out, f)
	}
	return vs.filterList(out), nil
}

// subBlock returns the mapping of a sub-block, or nil for null.
func subBlock(v *yaml11.Node, path string) (*yaml11.Node, error) {
	switch v.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.Map:
		return v, nil
	}
	return nil, typeErr(v, path, "a mapping or null")
}

func (vs *values) dcat(v *yaml11.Node, path string) (*Dcat, error) {
	m, err := subBlock(v, path)
	if m == nil {
		return nil, err
	}
	d := &Dcat{}
	err = parseSubBlock(vs, d, m, path, dcatKeys[:], dcatFields[:], (*uint8)(&d.Set), func(_ int, v *yaml11.Node, fp string) (err error) {
		d.Temporal, err = vs.temporal(v, fp) // the one dcat field of a kind of its own
		return err
	})
	if err != nil {
		return nil, err
	}
	return vs.sameDcat(d), nil
}

func (vs *values) temporal(v *yaml11.Node, path string) (*Temporal, error) {
	m, err := subBlock(v, path)
	if m == nil {
		return nil, err
	}
	t := &Temporal{}
	if t.StartSet, err = vs.optKey(m, path, "start", &t.Start); err != nil {
		return nil, err
	}
	if t.EndSet, err = vs.optKey(m, path, "end", &t.End); err != nil {
		return nil, err
	}
	return t, nil
}

func (vs *values) ontology(v *yaml11.Node, path string) (*Ontology, error) {
	m, err := subBlock(v, path)
	if m == nil {
		return nil, err
	}
	o := &Ontology{}
	if o.SpecSet, err = vs.optKey(m, path, "spec", &o.Spec); err != nil {
		return nil, err
	}
	if o.SpecFileSet, err = vs.optKey(m, path, "spec_file", &o.SpecFile); err != nil {
		return nil, err
	}
	return o, nil
}

// optKey reads block m's key, when m states it, into *dst as optString
// does, reporting whether m stated it: a sub-block's null value is stated,
// an absent key is not.
func (vs *values) optKey(m *yaml11.Node, path, key string, dst **string) (stated bool, err error) {
	v := m.Get(key)
	if v == nil {
		return false, nil
	}
	if *dst, err = vs.optString(v, path+"/"+key); err != nil {
		return false, err
	}
	return true, nil
}

func (vs *values) dataspace(v *yaml11.Node, path string) (*Dataspace, error) {
	m, err := subBlock(v, path)
	if m == nil {
		return nil, err
	}
	d := &Dataspace{OdrlAction: "use"}
	if err := parseSubBlock(vs, d, m, path, dataspaceKeys[:], dataspaceFields[:], (*uint8)(&d.Set), nil); err != nil {
		return nil, err
	}
	return vs.sameDataspace(d), nil
}

func parseDependsOn(v *yaml11.Node) ([]Dependency, error) {
	if v.Kind == yaml11.Null {
		return []Dependency{}, nil
	}
	if v.Kind != yaml11.Seq {
		return nil, typeErr(v, "depends_on", "a list of dependency entries")
	}
	out := make([]Dependency, 0, len(v.Items))
	for i, it := range v.Items {
		d, err := ParseDependency(it, fmt.Sprintf("depends_on/%d", i))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDependency reads one depends_on entry as the reference's Dependency
// model does: a mapping with a string dataset, lax booleans external and
// optional (CoerceBool), a string or null description; other keys ignored.
// path names the entry in errors (depends_on/0). The dependency graph reads
// entries with it so that the two never disagree on what an entry says.
func ParseDependency(it *yaml11.Node, path string) (Dependency, error) {
	var d Dependency
	if it.Kind != yaml11.Map {
		return d, typeErr(it, path, "a dependency mapping ({dataset, external, optional, description})")
	}
	ds := it.Get("dataset")
	if ds == nil {
		return d, errAt(ClassValidation, it, path, "a dependency needs a dataset")
	}
	var err error
	if d.Dataset, err = parseString(ds, path+"/dataset"); err != nil {
		return d, err
	}
	if x := it.Get("external"); x != nil {
		if d.External, err = parseBool(x, path+"/external"); err != nil {
			return d, err
		}
	}
	if x := it.Get("optional"); x != nil {
		if d.Optional, err = parseBool(x, path+"/optional"); err != nil {
			return d, err
		}
	}
	if x := it.Get("description"); x != nil {
		var vs *values // one entry: nothing to share
		if d.Description, err = vs.optString(x, path+"/description"); err != nil {
			return d, err
		}
	}
	return d, nil
}

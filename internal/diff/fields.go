package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// member is one member of a JSON object, in the object's order.
type member struct {
	key   string
	value json.RawMessage
}

// members reads a JSON object's members in order; false when raw is not an
// object. Rules render compact JSON, which a scan splits without decoding
// (a diff of a large app splits thousands); anything else is decoded.
func members(raw []byte) ([]member, bool) {
	if ms, ok := scanMembers(raw); ok {
		return ms, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := t.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key, v})
	}
	return out, true
}

// scanMembers splits a compact JSON object (no blank between tokens) into
// its members; false for anything else, or a key with an escape in it.
func scanMembers(raw []byte) ([]member, bool) {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, false
	}
	var out []member
	i := 1
	if raw[i] == '}' {
		return out, i == len(raw)-1
	}
	for {
		// "key":
		if raw[i] != '"' {
			return nil, false
		}
		end := bytes.IndexByte(raw[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		key := raw[i+1 : i+1+end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false
		}
		i += end + 2
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i++
		// the value, up to the comma or brace that ends it
		start, depth, inString := i, 0, false
	value:
		for ; i < len(raw); i++ {
			c := raw[i]
			switch {
			case inString:
				switch c {
				case '\\':
					i++
				case '"':
					inString = false
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth == 0 {
					break value
				}
				depth--
			case c == ',' && depth == 0:
				break value
			case c == ' ' || c == '\n' || c == '\t' || c == '\r':
				return nil, false
			}
		}
		if i >= len(raw) || i == start {
			return nil, false
		}
		out = append(out, member{string(key), raw[start:i]})
		if raw[i] == '}' {
			return out, i == len(raw)-1
		}
		i++ // the comma
	}
}

func isObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// sameJSON reports whether two JSON texts are the same value: members of an
// object in any order, elements of an array in theirs.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, okA := decodeJSON(a)
	vb, okB := decodeJSON(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func decodeJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// descends reports whether a change below path is listed per member: the
// paths the service's provenance names one by one.
func descends(path []string) bool {
	switch len(path) {
	case 1:
		switch path[0] {
		case "dcat", "ontology", "dataspace", "extra":
			return true
		}
	case 2:
		return path[0] == "dcat" && path[1] == "temporal"
	}
	return false
}

// fieldChanges lists every member path whose value differs between two
// rule objects (or sub-objects, below path): a member one side lacks, or
// whose values differ and are not both objects the service's provenance
// looks into.
func fieldChanges(base, head []byte, path []string) ([]FieldChange, error) {
	bm, okB := members(base)
	hm, okH := members(head)
	if !okB || !okH {
		return nil, fmt.Errorf("diff: a resolved rule is not a JSON object")
	}
	keys := make([]string, 0, len(hm)+len(bm))
	for _, m := range hm {
		keys = append(keys, m.key)
	}
	for _, m := range bm {
		if !slices.Contains(keys, m.key) {
			keys = append(keys, m.key)
		}
	}
	if len(path) == 0 {
		// The rule's own order (governance-format.md §13), whichever side
		// states a field.
		slices.SortStableFunc(keys, func(a, b string) int { return fieldRank(a) - fieldRank(b) })
	}
	var out []FieldChange
	for _, k := range keys {
		bv, inB := lookup(bm, k)
		hv, inH := lookup(hm, k)
		if inB && inH && sameJSON(bv, hv) {
			continue
		}
		p := append(slices.Clip(path), k)
		if inB && inH && descends(p) && isObject(bv) && isObject(hv) {
			sub, err := fieldChanges(bv, hv, p)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		fc := FieldChange{Field: strings.Join(p, "."), Path: p}
		if inB {
			fc.Old = bv
		}
		if inH {
			fc.New = hv
		}
		out = append(out, fc)
	}
	return out, nil
}

func lookup(ms []member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// fieldRank is a top-level key's place in a rule's rendering order.
func fieldRank(key string) int {
	if f, ok := governance.KnownKeys[key]; ok {
		return int(f)
	}
	return int(governance.FieldExtra)
}

// provenance is a rule's provenance entries by path.
type provenance map[string]*Origin

// provenanceOf is the provenance the merge recorded for r.
func provenanceOf(r *governance.Rule) provenance {
	entries := r.Provenance()
	p := make(provenance, len(entries))
	for _, e := range entries {
		var layer, file string
		if l := e.Origin.Layer; l != nil {
			layer, file = l.Name, l.File
		}
		p[e.Path] = &Origin{Layer: layer, File: file, Line: int(e.Origin.Line), Column: int(e.Origin.Column)}
	}
	return p
}

// at is where the rule states path: its own entry, else the nearest
// enclosing one (a whole block stated at once); nil when it states none.
func (p provenance) at(path []string) *Origin {
	for n := len(path); n > 0; n-- {
		if o := p[strings.Join(path[:n], ".")]; o != nil {
			return o
		}
	}
	return nil
}

// atField is at for a dotted field path of the grammar (no extra keys).
func (p provenance) atField(field string) *Origin {
	return p.at(strings.Split(field, "."))
}

package client

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The client's types are hand-written; these tests hold them to the
// contract: every property of a schema they mirror is a field, every field
// a property, nested objects, lists and maps likewise, and each leaf of a
// compatible kind. A property the server gains fails here until the
// client carries it.

// mirrored pairs each schema of openapi.yaml with the type carrying it.
var mirrored = map[string]any{
	"Rule":            Rule{},
	"Match":           Match{},
	"Exposure":        Exposure{},
	"Origin":          Origin{},
	"RuleBody":        RuleBody{},
	"ExposureBody":    ExposureBody{},
	"Facet":           Facet{},
	"DatasetItem":     DatasetItem{},
	"DatasetList":     DatasetList{},
	"OwnerEntry":      OwnerEntry{},
	"OwnerList":       OwnerList{},
	"Owner":           Owner{},
	"Finding":         Finding{},
	"Report":          Report{},
	"Dependency":      Dependency{},
	"Graph":           Graph{},
	"GraphFinding":    GraphFinding{},
	"ReloadEvent":     ReloadEvent{},
	"ResolveRequest":  ResolveRequest{},
	"ResolveResponse": ResolveResponse{},
	"Problem":         Problem{},
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func TestTypesCarryOpenAPI(t *testing.T) {
	doc := readYAML(t, "../openapi.yaml")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, v := range mirrored {
		t.Run(name, func(t *testing.T) {
			s, ok := schemas[name]
			if !ok {
				t.Fatalf("openapi.yaml has no schema %s", name)
			}
			for _, m := range mismatches(doc, s, reflect.TypeOf(v), name) {
				t.Error(m)
			}
		})
	}
}

// TestFacetCarriesTheFacetSchema: the facet's own schema (GET
// /schemas/facet) lists every key build_facet writes.
func TestFacetCarriesTheFacetSchema(t *testing.T) {
	var s map[string]any
	b, err := os.ReadFile("../schemas/facet.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, m := range mismatches(nil, s, reflect.TypeOf(Facet{}), "facet.schema.json") {
		t.Error(m)
	}
}

// TestAMissingFieldIsCaught: the check above fails when the contract gains
// a property, or a type a field, the other does not have.
func TestAMissingFieldIsCaught(t *testing.T) {
	doc := readYAML(t, "../openapi.yaml")
	rule := doc["components"].(map[string]any)["schemas"].(map[string]any)["Rule"].(map[string]any)
	rule["properties"].(map[string]any)["stewardship"] = map[string]any{"type": "string"}
	dcat := rule["properties"].(map[string]any)["dcat"].(map[string]any)
	dcat["properties"].(map[string]any)["keywords"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	got := mismatches(doc, rule, reflect.TypeOf(Rule{}), "Rule")
	want := []string{"Rule.dcat: property keywords is not carried by client.Dcat", "Rule: property stewardship is not carried by client.Rule"}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q", got, want)
	}
	type extra struct {
		Rule
		Stewardship string `json:"stewardship"`
	}
	delete(rule["properties"].(map[string]any), "stewardship")
	delete(dcat["properties"].(map[string]any), "keywords")
	if got := mismatches(doc, rule, reflect.TypeOf(extra{}), "Rule"); !slices.Equal(got, []string{"Rule: field stewardship of client.extra is not in the schema"}) {
		t.Errorf("a field the schema lacks: %q", got)
	}
}

// mismatches compares schema s (of document doc, for $ref) with type typ.
func mismatches(doc map[string]any, s any, typ reflect.Type, at string) []string {
	var out []string
	resolve := func(s any) map[string]any {
		m, _ := s.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			m, _ = doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
		}
		return m
	}
	// properties are an object schema's properties, those of the schemas
	// it is composed of (allOf) included; nil for no object schema.
	var properties func(m map[string]any) map[string]any
	properties = func(m map[string]any) map[string]any {
		var props map[string]any
		if p, ok := m["properties"].(map[string]any); ok {
			props = maps.Clone(p)
		}
		for _, alt := range listOf(m["allOf"]) {
			for k, v := range properties(resolve(alt)) {
				if props == nil {
					props = map[string]any{}
				}
				props[k] = v
			}
		}
		return props
	}
	type visit struct {
		schema uintptr
		typ    reflect.Type
	}
	seen := map[visit]bool{} // a recursive schema (Origin's merged_from) is compared once
	var walk func(s any, typ reflect.Type, at string)
	walk = func(s any, typ reflect.Type, at string) {
		m := resolve(s)
		if m == nil {
			return
		}
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		v := visit{reflect.ValueOf(m).Pointer(), typ}
		if seen[v] {
			return
		}
		seen[v] = true
		// One of several alternatives: the type must carry one of them
		// (a null alternative is the Go zero value).
		for _, key := range []string{"oneOf", "anyOf"} {
			var best []string
			tried := false
			for _, alt := range listOf(m[key]) {
				if am := resolve(alt); am["type"] == "null" {
					continue
				}
				if got := mismatches(doc, alt, typ, at); !tried || len(got) < len(best) {
					best, tried = got, true
				}
			}
			out = append(out, best...)
		}
		closed := m["additionalProperties"] == false
		freeMap := typ.Kind() == reflect.Map && typ.Elem().Kind() == reflect.Interface
		if props := properties(m); props != nil && typ.Kind() != reflect.Interface && !(freeMap && !closed) {
			if typ.Kind() != reflect.Struct {
				out = append(out, at+": an object with properties, carried by "+typ.String())
				return
			}
			fields := jsonFields(typ)
			for name, ps := range props {
				f, ok := fields[name]
				if !ok {
					out = append(out, at+": property "+name+" is not carried by "+typ.String())
					continue
				}
				walk(ps, f.Type, at+"."+name)
			}
			// A field the schema lacks is an error where the schema is
			// closed; an open one (the facet, a problem) may carry more.
			for name := range fields {
				if _, ok := props[name]; !ok && closed {
					out = append(out, at+": field "+name+" of "+typ.String()+" is not in the schema")
				}
			}
		}
		if items, ok := m["items"]; ok {
			if typ.Kind() != reflect.Slice {
				out = append(out, at+": an array, carried by "+typ.String())
				return
			}
			walk(items, typ.Elem(), at+"[]")
		}
		if ap, ok := m["additionalProperties"].(map[string]any); ok && len(ap) > 0 && m["properties"] == nil {
			if typ.Kind() != reflect.Map {
				out = append(out, at+": a map, carried by "+typ.String())
				return
			}
			walk(ap, typ.Elem(), at+"{}")
		}
		if bad := kindMismatch(m, typ); bad != "" {
			out = append(out, at+": "+bad)
		}
	}
	walk(s, typ, at)
	slices.Sort(out)
	return out
}

// listOf is a schema keyword's list value, or none.
func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// kindMismatch says why a leaf's Go type cannot hold the schema's type.
func kindMismatch(m map[string]any, typ reflect.Type) string {
	var types []string
	switch v := m["type"].(type) {
	case string:
		types = []string{v}
	case []any:
		for _, x := range v {
			types = append(types, x.(string))
		}
	}
	if c, ok := m["const"]; ok && len(types) == 0 {
		switch c.(type) {
		case string:
			types = []string{"string"}
		case int, float64:
			types = []string{"integer"}
		}
	}
	k := typ.Kind()
	if k == reflect.Interface || len(types) == 0 {
		return ""
	}
	// A value of several types (a document as text or as an object; a
	// nullable value) needs a type that holds one of them.
	for _, ty := range types {
		ok := true
		switch ty {
		case "string":
			ok = k == reflect.String
		case "boolean":
			ok = k == reflect.Bool
		case "integer":
			ok = k >= reflect.Int && k <= reflect.Uint64 || typ.String() == "time.Duration"
		case "number":
			ok = k == reflect.Float64 || k == reflect.Float32 || k >= reflect.Int && k <= reflect.Uint64
		case "array":
			ok = k == reflect.Slice
		case "object":
			ok = k == reflect.Struct || k == reflect.Map
		}
		if ok || ty == "null" || ty == "string" && typ.String() == "time.Time" {
			return ""
		}
	}
	return "a " + strings.Join(types, " or ") + ", carried by " + typ.String()
}

// jsonFields are the fields of a struct by JSON name, those of embedded
// structs included; fields marked "-" are not on the wire.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out[tag] = f
	}
	return out
}

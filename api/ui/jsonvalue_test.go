package ui

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSON(t *testing.T) {
	v, err := parseJSON([]byte(` {"b": [1, "x", null, true], "a": {"z": {}, "y": []}, "c": "\u00e9\"", "d": -1.5e3} `))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "a", "c", "d"}, v.Keys); diff != "" {
		t.Errorf("member order (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		key     string
		kind    jsonKind
		text    string
		encoded string
	}{
		{"b", jsonArray, "", `[1, "x", null, true]`},
		{"a", jsonObject, "", `{"z": {}, "y": []}`},
		{"c", jsonString, "é\"", `"\u00e9\""`},
		{"d", jsonNumber, "-1.5e3", `-1.5e3`},
	} {
		got := v.get(tt.key)
		if got == nil || got.Kind != tt.kind || got.Text != tt.text || got.Encoded != tt.encoded {
			t.Errorf("%s: %+v", tt.key, got)
		}
	}
	if b := v.get("b"); len(b.Items) != 4 || b.Items[2].Kind != jsonNull || b.Items[3].Text != "true" {
		t.Errorf("b's items: %+v", b.Items)
	}
	for _, bad := range []string{``, `{`, `{"a" 1}`, `[1,]`, `1 2`, `{"a":1}}`} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzParseJSON: what encoding/json reads, parseJSON reads to the same
// value, members in the order written; what it refuses, parseJSON refuses.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `[]`, `"\ud800"`, ` 1 `, `{"a":{"a":{"a":[]}}}`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("%q is not JSON, and parsed", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if got, want := v.Encoded, string(bytes.TrimSpace(data)); got != want {
			t.Fatalf("encoded %q, want %q", got, want)
		}
		// Numbers compared as written: a number beyond float64 (1e700) is
		// valid JSON, and the page shows it as it came.
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, v.value()); diff != "" {
			t.Fatalf("%q (-encoding/json +parseJSON):\n%s", data, diff)
		}
	})
}

// value is v as encoding/json's any: a later member of an object replaces
// an earlier one of the same name, as Unmarshal does.
func (v *jsonValue) value() any {
	switch v.Kind {
	case jsonNull:
		return nil
	case jsonBool:
		return v.Text == "true"
	case jsonNumber:
		return json.Number(v.Text)
	case jsonString:
		return v.Text
	case jsonArray:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = v.Items[i].value()
		}
		return out
	}
	out := map[string]any{}
	for i, k := range v.Keys {
		out[k] = v.Items[i].value()
	}
	return out
}

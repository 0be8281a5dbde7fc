package textpos

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWhere(t *testing.T) {
	tests := []struct {
		file        string
		pos         Pos
		where, text string
	}{
		{"a.yaml", Pos{3, 7}, "a.yaml:3:7", "line 3, column 7"},
		{"a.yaml", Pos{3, 0}, "a.yaml:3", "line 3"},
		{"a.yaml", Pos{}, "a.yaml", ""},
		{"", Pos{3, 7}, "line 3, column 7", "line 3, column 7"},
		{"", Pos{}, "", ""},
	}
	for _, tc := range tests {
		if got := Where(tc.file, tc.pos); got != tc.where {
			t.Errorf("Where(%q, %v) = %q, want %q", tc.file, tc.pos, got, tc.where)
		}
		if got := tc.pos.String(); got != tc.text {
			t.Errorf("%#v.String() = %q, want %q", tc.pos, got, tc.text)
		}
		want := tc.where + ": "
		if tc.where == "" {
			want = ""
		}
		if got := Prefix(tc.file, tc.pos); got != want {
			t.Errorf("Prefix(%q, %v) = %q, want %q", tc.file, tc.pos, got, want)
		}
	}
}

// TestOfJSONError: a syntax error is placed at its offending byte, a type
// error where the decoder stopped, after the value; an empty document has
// no place.
func TestOfJSONError(t *testing.T) {
	tests := []struct {
		doc  string
		want Pos
		ok   bool
	}{
		{"{\n  \"a\": 1,\n  \"b\" 2\n}", Pos{3, 7}, true},
		{"{\"n\": \"x\"}", Pos{1, 10}, true},
		{"", Pos{}, false},
	}
	for _, tc := range tests {
		var v struct{ N int }
		err := json.NewDecoder(strings.NewReader(tc.doc)).Decode(&v)
		if err == nil {
			t.Fatalf("%q decodes", tc.doc)
		}
		if got, ok := OfJSONError([]byte(tc.doc), err); got != tc.want || ok != tc.ok {
			t.Errorf("%q (%v): %v, %v; want %v, %v", tc.doc, err, got, ok, tc.want, tc.ok)
		}
	}
	if got := OfOffset([]byte("ab\ncd"), 99); got != (Pos{2, 3}) {
		t.Errorf("past the end: %v", got)
	}
}

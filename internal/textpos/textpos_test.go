package textpos

import "testing"

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

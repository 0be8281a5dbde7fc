package keyindex

import "testing"

// TestGlobInvalidUTF8: names that are not UTF-8 (any bytes reach a URL)
// match byte for byte, never through U+FFFD.
func TestGlobInvalidUTF8(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"\xf6", "\x85", false},
		// A literal prefix ending inside a code point must not match the
		// bytes of a longer, valid one: "\xe2\x82" are two escaped bytes,
		// "\xe2\x82\xac" is one "€".
		{"\xe2\x82*", "\xe2\x82\xac", false},
		{"\xe2\x82*", "\xe2\x82\x41", true},
		{"ds.\xe2\x82*", "ds.\xe2\x82\xac", false},
		{"\xf6", "\xf6", true},
		{"ds.\ufffd", "ds.\x85", false},
		{"ds.\ufffd*", "ds.\x85x", false},
		{"ds.*", "ds.\x85", true},
		{"ds.?", "ds.\x85", true},
		{"ds.?", "ds.\x85\x86", false},
		{"ds.??", "ds.\x85\x86", true},
		{"ds.[!a]", "ds.\xff", true},
		{"ds.\xff*", "ds.\xffabc", true},
		{"ds.é", "ds.\xc3\xa9", true},
		{"ds.?", "ds.\xc3", true},
	}
	for _, tt := range tests {
		if got := Compile(tt.pattern).Match(tt.name); got != tt.want {
			t.Errorf("%q matches %q: %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

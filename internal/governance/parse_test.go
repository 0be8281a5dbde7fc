package governance

import (
	"errors"
	"strings"
	"testing"
)

// TestFieldErrorPaths holds the path and position an invalid field is
// reported at. Fields are parsed without their path and again with it only
// when they fail (parseRule), so a path that went missing would otherwise
// go unnoticed.
func TestFieldErrorPaths(t *testing.T) {
	tests := []struct {
		name, doc, path string
		line            int
	}{
		{"source string", "sources:\n  ds.a:\n    license: 5\n", "sources/ds.a/license", 3},
		{"defaults string", "defaults:\n  title: [x]\nsources: {}\n", "defaults/title", 2},
		{"nested block", "sources:\n  ds.a:\n    governance:\n      classification: {a: 1}\n", "sources/ds.a/classification", 4},
		{"tag item", "sources:\n  ds.a:\n    tags: [a, 2]\n", "sources/ds.a/tags/1", 3},
		{"owner without a name", "sources:\n  ds.a:\n    ownership:\n      - name: x\n      - type: DATA_OWNER\n", "sources/ds.a/ownership/1", 5},
		{"owner name", "sources:\n  ds.a:\n    ownership:\n      - name: [x]\n", "sources/ds.a/ownership/0/name", 4},
		{"owner type", "sources:\n  ds.a:\n    ownership:\n      - {name: x, type: 3}\n", "sources/ds.a/ownership/0/type", 4},
		{"temporal", "sources:\n  ds.a:\n    dcat:\n      temporal: {start: 1}\n", "sources/ds.a/dcat/temporal/start", 4},
		{"expose", "sources:\n  ds.a:\n    expose: maybe\n", "sources/ds.a/expose", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "g.yaml")
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("Parse error = %v, want a *Error", err)
			}
			if ge.Path != tt.path || ge.Line != tt.line {
				t.Errorf("error at %s line %d, want %s line %d (%v)", ge.Path, ge.Line, tt.path, tt.line, err)
			}
		})
	}
}

// TestRetentionDigits: retention_days given as text is converted as
// Python's int(str) does, which refuses more than 4300 digits; the limit is
// checked before converting, whose cost is quadratic in the digits.
func TestRetentionDigits(t *testing.T) {
	tests := []struct {
		name, value string
		want        int64  // when it loads
		msg         string // a substring of the error
	}{
		{name: "text", value: `"30"`, want: 30},
		{name: "underscores and .0", value: `" 1_000.00 "`, want: 1000},
		{name: "4300 digits do not fit", value: `"` + strings.Repeat("1", 4300) + `"`, msg: "does not fit in a 64-bit integer"},
		{name: "4301 digits", value: `"` + strings.Repeat("1", 4301) + `"`, msg: "an integer of 4301 digits, more than the limit of 4300"},
		{name: "10 million digits", value: `"` + strings.Repeat("7", 10_000_000) + `"`, msg: "an integer of 10000000 digits"},
		{name: "a plain 10 million digits", value: strings.Repeat("7", 10_000_000), msg: "an integer of 10000000 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "defaults:\n  retention_days: " + tt.value + "\nsources: {}\n"
			cfg, err := Parse([]byte(doc), "g.yaml")
			if tt.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := cfg.Defaults.RetentionDays(); got == nil || *got != tt.want {
					t.Fatalf("retention_days = %v, want %d", got, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %.300v, want %q", err, tt.msg)
			}
			var ge *Error
			if errors.As(err, &ge) && ge.Line != 2 {
				t.Errorf("error at line %d, want 2: %.300v", ge.Line, err)
			}
		})
	}
}

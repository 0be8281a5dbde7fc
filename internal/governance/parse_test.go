package governance

import (
	"errors"
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

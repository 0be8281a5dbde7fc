package schema

import (
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// Error is a failed validation (validation.md §5): the document at Source broke
// its schema — Violations, every one of them — or, under strict, carries keys
// the grammar does not define — Unknown. An owners document that fails its
// schema is the same kind of error.
type Error struct {
	Source     string
	Violations []Violation
	Unknown    []governance.UnknownKey
}

// Lines are the error's entries as the reference lists them:
// "<path>: <message>" per violation, "unknown key <scope>: <key>" per unknown key.
func (e *Error) Lines() []string {
	lines := make([]string, 0, len(e.Violations)+len(e.Unknown))
	for _, v := range e.Violations {
		lines = append(lines, v.String())
	}
	for _, u := range e.Unknown {
		lines = append(lines, "unknown key "+u.String())
	}
	return lines
}

// Error is the reference's message: "<source> failed governance validation:"
// then one "  - <error>" line per error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	b.WriteString(" failed governance validation:")
	for _, l := range e.Lines() {
		b.WriteString("\n  - ")
		b.WriteString(l)
	}
	return b.String()
}

package governance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Class names the kind of a load failure, as the conformance cases do.
type Class string

const (
	ClassYAML       Class = "yaml_error"
	ClassMalformed  Class = "malformed_input"
	ClassValidation Class = "validation_error"
	ClassValue      Class = "value_error"
	ClassNotFound   Class = "not_found"
)

// Error is a governance document that cannot be loaded, located as precisely as
// the input allows.
type Error struct {
	Class       Class
	File        string // "" when the document did not come from a file
	textpos.Pos        // zero when unknown
	Path        string // the field path, such as sources/datasets.a/retention_days
	Msg         string
	Err         error // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "":
		b.WriteString(textpos.Prefix(e.File, e.Pos))
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorClass returns the class of a load error, or "" when err is not one.
func ErrorClass(err error) Class {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.Class
	}
	var ye *yaml11.Error
	if errors.As(err, &ye) {
		return ClassYAML
	}
	return ""
}

// withFile stamps a file name on a load error that lacks one.
func withFile(err error, file string) error {
	var ge *Error
	if errors.As(err, &ge) {
		if ge.File == "" {
			ge.File = file
		}
		return ge
	}
	var ye *yaml11.Error
	if errors.As(err, &ye) {
		return &Error{Class: ClassYAML, File: file, Pos: textpos.Pos{Line: ye.Line, Column: ye.Column}, Msg: ye.Msg, Err: ye}
	}
	return err
}

func errAt(class Class, n *yaml11.Node, path, format string, args ...any) *Error {
	e := &Error{Class: class, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Pos.Line, n.Pos.Column
	}
	return e
}

package schema

import (
	"errors"
	"io/fs"
	"os"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// CheckDocument checks a governance document (validation.md §5). Schema violations
// fail with an *Error listing every one; unknown keys are then not examined.
// Otherwise the document's unknown keys are returned: under strict a non-empty
// list fails (an *Error whose Unknown holds them); without strict each is a
// warning for the caller to present (see UnknownKeyWarning) and validation
// succeeds. source names the document in the error ("<dict>" by convention
// when there is no file).
func CheckDocument(doc *yaml11.Node, source string, strict bool) ([]governance.UnknownKey, error) {
	vs, err := Violations(doc, schemas.Governance, source)
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		return nil, &Error{Source: source, Violations: vs}
	}
	unknown := governance.UnknownKeys(doc)
	if strict && len(unknown) > 0 {
		return nil, &Error{Source: source, Unknown: unknown}
	}
	return unknown, nil
}

// CheckFile reads the governance file at path and validates it with source
// = path as given. An empty document is an empty mapping (so it fails the
// root required). A missing file or unreadable YAML is a *governance.Error of
// class not_found or yaml_error.
func CheckFile(path string, strict bool) ([]governance.UnknownKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		class := governance.Class("")
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			class, msg = governance.ClassNotFound, "file not found"
		}
		return nil, &governance.Error{Class: class, File: path, Msg: msg, Err: err}
	}
	root, err := yaml11.Parse(data)
	if err != nil {
		var ye *yaml11.Error
		if errors.As(err, &ye) {
			return nil, &governance.Error{Class: governance.ClassYAML, File: path, Pos: textpos.Pos{Line: ye.Line, Column: ye.Column}, Msg: ye.Msg, Err: ye}
		}
		return nil, err
	}
	return CheckDocument(Document(root), path, strict)
}

// UnknownKeyWarning is the reference's warning for an unknown key under
// lenient validation: "<source>: unknown governance key <scope>: <key> — ignored".
func UnknownKeyWarning(source string, k governance.UnknownKey) string {
	return source + ": unknown governance key " + k.String() + " — ignored"
}

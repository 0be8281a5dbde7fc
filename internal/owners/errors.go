package owners

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// ErrorKind says what went wrong with a registry, for callers that must branch.
type ErrorKind int

const (
	// NotFound: the registry file does not exist (and MissingOK was not given).
	NotFound ErrorKind = iota + 1
	// Malformed: the document's structure is wrong where a mapping is required
	// (a root that is a list or a non-empty scalar).
	Malformed
	// Invalid: a value does not fit its field (an entry without id, a non-string
	// alias, organization that is not a mapping, …).
	Invalid
)

func (k ErrorKind) String() string {
	switch k {
	case NotFound:
		return "not found"
	case Malformed:
		return "malformed"
	case Invalid:
		return "invalid"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is a registry that could not be loaded. Nothing of it was loaded.
type Error struct {
	Kind ErrorKind
	File string
	Pos  yaml11.Pos // zero when the error has no position (a missing file)
	Path string     // the field, as owners/0/aliases/1; "" for the document
	Msg  string
	Err  error // the underlying cause, if any
}

func (e *Error) Error() string {
	s := textpos.Prefix(e.File, e.Pos)
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func notFound(file string, err error) *Error {
	return &Error{Kind: NotFound, File: file, Msg: "owners registry not found", Err: err}
}

// isNotExist reports whether err means the file does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

package snapshot

import (
	"io/fs"
	"strings"
)

// mountFS is base with one directory replaced by upper: every name at or
// below at is upper's (a file upper lacks does not exist, whatever base
// holds there), every other name base's. It is how an upload stands in for
// a served tree root while the files the server names outside the root
// are read where they are.
type mountFS struct {
	base  fs.FS
	at    string // a name in base; "." replaces all of it
	upper fs.FS
}

// route is the file system holding name, and name in it.
func (m *mountFS) route(name string) (fs.FS, string) {
	switch {
	case m.at == ".":
		return m.upper, name
	case name == m.at:
		return m.upper, "."
	}
	if rest, ok := strings.CutPrefix(name, m.at+"/"); ok {
		return m.upper, rest
	}
	return m.base, name
}

func (m *mountFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, n := m.route(name)
	return f.Open(n)
}

func (m *mountFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	f, n := m.route(name)
	return fs.Stat(f, n)
}

func (m *mountFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f, n := m.route(name)
	return fs.ReadDir(f, n)
}

func (m *mountFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	f, n := m.route(name)
	return fs.ReadFile(f, n)
}

// Package memfs is a read-only file system held in memory: regular files
// and directories only, no links, built once and then read by any number of
// goroutines. An uploaded tree is read into one, so that checking it writes
// nothing to disk and leaves nothing behind.
package memfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// FS is a tree of files in memory. The zero value is an empty tree; Add and
// AddDir build it, and it must not change once read.
type FS struct {
	nodes map[string]*node // by name; "." is the root
}

type node struct {
	name  string
	data  []byte
	dir   bool
	kids  []string // a directory's entries, by base name, sorted when read
	dirty bool
}

// ErrExist is a name given twice, or a file where a directory is needed (or
// the reverse).
var ErrExist = errors.New("the path collides with another entry")

func (f *FS) init() {
	if f.nodes == nil {
		f.nodes = map[string]*node{".": {name: ".", dir: true}}
	}
}

// AddDir adds a directory and its parents; adding one twice is fine. name is
// a slash-separated path for which fs.ValidPath holds.
func (f *FS) AddDir(name string) error {
	f.init()
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: "mkdir", Path: name, Err: fs.ErrInvalid}
	}
	if n, ok := f.nodes[name]; ok {
		if !n.dir {
			return &fs.PathError{Op: "mkdir", Path: name, Err: ErrExist}
		}
		return nil
	}
	if err := f.AddDir(path.Dir(name)); err != nil {
		return err
	}
	f.nodes[name] = &node{name: name, dir: true}
	f.link(name)
	return nil
}

// Add adds a regular file holding data (not copied) and its parent
// directories. A name added twice is an error wrapping ErrExist.
func (f *FS) Add(name string, data []byte) error {
	f.init()
	if !fs.ValidPath(name) || name == "." {
		return &fs.PathError{Op: "create", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := f.nodes[name]; ok {
		return &fs.PathError{Op: "create", Path: name, Err: ErrExist}
	}
	if err := f.AddDir(path.Dir(name)); err != nil {
		return err
	}
	f.nodes[name] = &node{name: name, data: data}
	f.link(name)
	return nil
}

func (f *FS) link(name string) {
	p := f.nodes[path.Dir(name)]
	p.kids = append(p.kids, path.Base(name))
	p.dirty = true
}

// Files counts the regular files.
func (f *FS) Files() int {
	n := 0
	for _, nd := range f.nodes {
		if !nd.dir {
			n++
		}
	}
	return n
}

func (f *FS) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	f.init()
	n, ok := f.nodes[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open opens a file or directory for reading.
func (f *FS) Open(name string) (fs.File, error) {
	n, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return &openDir{fsys: f, n: n}, nil
	}
	return &openFile{n: n, r: strings.NewReader(string(n.data))}, nil
}

// Stat describes a file or directory.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	n, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return info{n}, nil
}

// ReadDir lists a directory, sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fmt.Errorf("not a directory")}
	}
	return f.entries(n), nil
}

func (f *FS) entries(n *node) []fs.DirEntry {
	kids := slices.Sorted(slices.Values(n.kids))
	out := make([]fs.DirEntry, len(kids))
	for i, k := range kids {
		out[i] = fs.FileInfoToDirEntry(info{f.nodes[path.Join(n.name, k)]})
	}
	return out
}

// ReadFile returns a copy of a file's bytes.
func (f *FS) ReadFile(name string) ([]byte, error) {
	n, err := f.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("is a directory")}
	}
	return slices.Clone(n.data), nil
}

type info struct{ n *node }

func (i info) Name() string { return path.Base(i.n.name) }
func (i info) Size() int64  { return int64(len(i.n.data)) }
func (i info) Mode() fs.FileMode {
	if i.n.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.n.dir }
func (i info) Sys() any           { return nil }

type openFile struct {
	n *node
	r *strings.Reader
}

func (o *openFile) Stat() (fs.FileInfo, error) { return info{o.n}, nil }
func (o *openFile) Read(p []byte) (int, error) { return o.r.Read(p) }
func (o *openFile) Close() error               { return nil }

type openDir struct {
	fsys    *FS
	n       *node
	entries []fs.DirEntry
	read    bool
}

func (d *openDir) Stat() (fs.FileInfo, error) { return info{d.n}, nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: fmt.Errorf("is a directory")}
}
func (d *openDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *openDir) ReadDir(count int) ([]fs.DirEntry, error) {
	if !d.read {
		d.entries, d.read = d.fsys.entries(d.n), true
	}
	if count <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n := min(count, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}

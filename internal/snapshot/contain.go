package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// The service reads what its trees and overlay directory hold, and nothing a
// symbolic link in them leads to outside: a tree is written by whoever
// commits to it, and `ln -s /run/secrets/token apps/x/governance.yaml` put
// the token's text in a not-a-mapping finding that the open GET /status
// shows. So a reload reads each tree root and the overlay directory through
// an os.Root opened on it (the root itself may be a symbolic link, which
// git-sync swaps: it is followed once, when the reload opens it, so one
// reload reads one revision), and resolves every link under it itself: a
// link whose target lies inside is followed, relative or absolute; one that
// leads out fails the reload with an *OutsideError naming it (integrity.go),
// unless Inputs.AllowOutsideLinks. Bytes are read only through the os.Root,
// which is what enforces it: a link swapped between the resolution and the
// read is followed only within the root (os.Root follows relative links
// inside it and no absolute ones), so no race reads a byte outside. Stat,
// directory listings and link reads go by path to the resolved name (one
// system call each, where os.Root opens every directory on the way): a link
// swapped in that instant could show the type, size or names of what lies
// outside, never its bytes. Directories are resolved once per reading.
//
// A reading looks at each name once: the passes over a tree (the view,
// the integrity check, the plan) ask the same names' metadata and the same
// directories' listings, and a confinedDir, which lasts one reading,
// answers them again from what it read first. That makes a reading one
// instant of the tree, the same answer to every pass; what changes during
// it is found by Loader.unchanged, which looks at every input again
// afresh, and by the hash of the bytes read.
//
// The owners files and the placeholder map are named one by one by the
// operator and are read where they are, unless they lie under a tree root.
// The command-line check (`governanced validate`) follows every link, as the
// reference does.

// errOutside is a path under a confined directory that a symbolic link
// leads out of it.
var errOutside = errors.New("a symbolic link leads out of the directory it is read from")

// OutsideError is an input under a tree root or the overlay directory that
// resolves outside it, through a symbolic link.
type OutsideError struct {
	Path string // served name
	Root string // the tree root or overlay directory, by its served name
}

func (e *OutsideError) Error() string {
	root := e.Root
	if root == "." {
		root = "the tree"
	}
	return fmt.Sprintf("%s leads out of %s through a symbolic link: the service reads nothing outside its trees and overlay directory (--allow-outside-links allows such links); not serving the inputs without it", e.Path, root)
}

// confinedDir is a directory whose reads stay inside it.
type confinedDir struct {
	name    string // its name in the root file system (an absolute path without the leading slash)
	display string // as the inputs give it
	// prefixes are the absolute paths an absolute link target may start
	// with and still lie inside: the directory as given and as resolved.
	prefixes []string
	real     string // the directory with every link resolved, when opened
	root     *os.Root

	mu   sync.Mutex
	dirs map[string]resolved // the directories resolved in this reading, by name in the directory
	// What this reading found at each resolved name (Lstat) and in each
	// resolved directory (ReadDir), by name in the directory.
	lstats   map[string]lstatResult
	listings map[string]listing
}

type lstatResult struct {
	info fs.FileInfo
	err  error
}

type listing struct {
	entries []fs.DirEntry
	err     error
}

func newConfinedDir(name, display, abs string, root *os.Root) *confinedDir {
	return &confinedDir{name: name, display: display, prefixes: []string{abs}, real: abs, root: root,
		dirs: map[string]resolved{}, lstats: map[string]lstatResult{}, listings: map[string]listing{}}
}

// resolved is a name with its links resolved, or why it cannot be.
type resolved struct {
	name string
	err  error
}

// osFiles is the operating system's files as a reload reads them: the
// names of os.DirFS("/"), with every name under a confined directory read
// through that directory's os.Root.
type osFiles struct {
	dirs  []*confinedDir // longest name first: the innermost directory confines
	outer fs.FS
}

// openFiles opens the inputs' file system for one reading; close releases
// its directories. A tree root or overlay directory that cannot be opened
// is not confined: nothing is read from it (the check reports it missing,
// integrity.go why).
func (in Inputs) openFiles() (_ *osFiles, closeFiles func()) {
	f := &osFiles{outer: os.DirFS("/")}
	if in.AllowOutsideLinks {
		return f, func() {}
	}
	add := func(display string) {
		abs, err := filepath.Abs(in.abs(display))
		if err != nil {
			return
		}
		name, err := in.rootedName(display)
		if err != nil {
			return
		}
		root, err := os.OpenRoot(abs)
		if err != nil {
			return
		}
		d := newConfinedDir(name, display, abs, root)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			d.prefixes = append(d.prefixes, real)
			d.real = real
		}
		f.dirs = append(f.dirs, d)
	}
	for _, t := range in.Trees {
		add(t)
	}
	if in.OverlayDir != "" {
		add(in.OverlayDir)
	}
	slices.SortStableFunc(f.dirs, func(a, b *confinedDir) int { return len(b.name) - len(a.name) })
	return f, func() {
		for _, d := range f.dirs {
			d.root.Close()
		}
	}
}

// route finds the directory confining name and name inside it; nil when
// no directory confines name.
func (f *osFiles) route(name string) (*confinedDir, string) {
	for _, d := range f.dirs {
		switch {
		case d.name == ".":
			return d, name
		case name == d.name:
			return d, "."
		case strings.HasPrefix(name, d.name+"/"):
			return d, name[len(d.name)+1:]
		}
	}
	return nil, ""
}

// maxLinks bounds the symbolic links one resolution follows, as the
// operating system's own limit does for a loop.
const maxLinks = 255

// resolve follows the symbolic links of rel (of the last component too when
// last) inside d, to a name with none: errOutside when one leads out. A
// component that does not exist ends the resolution; the operation then
// reports it missing. info is what the last component is, when last and it
// was read on the way (nil otherwise).
func (d *confinedDir) resolve(rel string, last bool) (name string, info fs.FileInfo, err error) {
	dir, base := path.Split(path.Clean(rel))
	dir = strings.TrimSuffix(dir, "/")
	if base == "." || base == ".." || base == "" {
		n, err := d.resolveDir(path.Clean(rel))
		return n, nil, err
	}
	rdir := "."
	if dir != "" {
		if rdir, err = d.resolveDir(dir); err != nil {
			return "", nil, err
		}
	}
	cand := path.Join(rdir, base)
	if !last {
		return cand, nil, nil
	}
	info, err = d.lstat(cand)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		if err != nil {
			info = nil
		}
		return cand, info, nil
	}
	name, err = d.walk(cand, true)
	return name, nil, err
}

// resolveDir is resolve of a directory, once per reading.
func (d *confinedDir) resolveDir(rel string) (string, error) {
	r := once(&d.mu, d.dirs, rel, func() (r resolved) {
		r.name, r.err = d.walk(rel, true)
		return r
	})
	return r.name, r.err
}

// once is m[key], as look finds it the first time a reading asks. Two
// readers asking at once may both make it; either answer is kept, as both
// describe the same name.
func once[V any](mu *sync.Mutex, m map[string]V, key string, look func() V) V {
	mu.Lock()
	v, ok := m[key]
	mu.Unlock()
	if ok {
		return v
	}
	v = look()
	mu.Lock()
	m[key] = v
	mu.Unlock()
	return v
}

// walk resolves rel component by component.
func (d *confinedDir) walk(rel string, last bool) (string, error) {
	var done []string
	todo := splitName(rel)
	for hops := 0; len(todo) > 0; {
		seg := todo[0]
		todo = todo[1:]
		if seg == ".." {
			if len(done) == 0 {
				return "", errOutside
			}
			done = done[:len(done)-1]
			continue
		}
		if len(todo) == 0 && !last {
			done = append(done, seg)
			break
		}
		cand := path.Join(append(slices.Clone(done), seg)...)
		info, err := d.lstat(cand)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			done = append(done, seg)
			if err != nil {
				done = append(done, todo...)
				todo = nil
			}
			continue
		}
		if hops++; hops > maxLinks {
			return "", syscall.ELOOP
		}
		target, err := os.Readlink(d.path(cand))
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			inside, ok := d.inside(target)
			if !ok {
				return "", errOutside
			}
			done = nil
			target = inside
		}
		todo = append(splitName(target), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	if slices.Contains(done, "..") {
		// ".." after a component that does not exist: there is nothing
		// to read either way.
		return "", fs.ErrNotExist
	}
	return path.Join(done...), nil
}

// path is a name in d as an absolute path, d's links resolved.
func (d *confinedDir) path(rel string) string {
	if rel == "." {
		return d.real
	}
	return filepath.Join(d.real, filepath.FromSlash(rel))
}

// lstat is os.Lstat of the resolved name rel, once per reading.
func (d *confinedDir) lstat(rel string) (fs.FileInfo, error) {
	r := once(&d.mu, d.lstats, rel, func() (r lstatResult) {
		r.info, r.err = os.Lstat(d.path(rel))
		return r
	})
	return r.info, r.err
}

// readDir is os.ReadDir of the resolved directory rel, once per reading.
// Each caller gets a list of its own, which it may sort or cut.
func (d *confinedDir) readDir(rel string) ([]fs.DirEntry, error) {
	l := once(&d.mu, d.listings, rel, func() (l listing) {
		l.entries, l.err = os.ReadDir(d.path(rel))
		d.listed(rel, l.entries)
		return l
	})
	return slices.Clone(l.entries), l.err
}

// listed notes the directories a listing of the resolved directory rel
// found: one that is not a link resolves to itself, so a reading that lists
// a directory and then enters its subdirectories (every app of a tree) need
// not look at each again.
func (d *confinedDir) listed(rel string, es []fs.DirEntry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range es {
		if e.Type().IsDir() {
			n := path.Join(rel, e.Name())
			d.dirs[n] = resolved{name: n}
		}
	}
}

// inside is an absolute link target as a name in d, when it lies inside.
func (d *confinedDir) inside(target string) (string, bool) {
	t := filepath.Clean(target)
	for _, p := range d.prefixes {
		if t == p {
			return ".", true
		}
		if rel, ok := strings.CutPrefix(t, strings.TrimSuffix(p, "/")+"/"); ok {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

func splitName(n string) []string {
	var out []string
	for _, s := range strings.Split(n, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// confinedOp runs an operation on name's resolution inside its confining
// directory (with what the resolution read of the last component, if
// anything), or on the outer file system when none confines it.
func confinedOp[T any](f *osFiles, opName, name string, last bool, inner func(d *confinedDir, rel string, info fs.FileInfo) (T, error), outer func() (T, error)) (T, error) {
	var zero T
	if !fs.ValidPath(name) {
		return zero, &fs.PathError{Op: opName, Path: name, Err: fs.ErrInvalid}
	}
	d, rel := f.route(name)
	if d == nil {
		return outer()
	}
	r, info, err := d.resolve(rel, last)
	if err != nil {
		return zero, &fs.PathError{Op: opName, Path: name, Err: err}
	}
	return inner(d, r, info)
}

// Open reads through the os.Root: the only way to a file's bytes.
func (f *osFiles) Open(name string) (fs.File, error) {
	return confinedOp(f, "open", name, true,
		func(d *confinedDir, rel string, _ fs.FileInfo) (fs.File, error) { return d.root.Open(rel) },
		func() (fs.File, error) { return f.outer.Open(name) })
}

func (f *osFiles) Stat(name string) (fs.FileInfo, error) {
	return confinedOp(f, "stat", name, true,
		func(d *confinedDir, rel string, info fs.FileInfo) (fs.FileInfo, error) {
			if info != nil {
				return info, nil // not a link: what Lstat read is what Stat would
			}
			return os.Stat(d.path(rel))
		},
		func() (fs.FileInfo, error) { return fs.Stat(f.outer, name) })
}

func (f *osFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	return confinedOp(f, "readdir", name, true,
		func(d *confinedDir, rel string, _ fs.FileInfo) ([]fs.DirEntry, error) { return d.readDir(rel) },
		func() ([]fs.DirEntry, error) { return fs.ReadDir(f.outer, name) })
}

func (f *osFiles) Lstat(name string) (fs.FileInfo, error) {
	return confinedOp(f, "lstat", name, false,
		func(d *confinedDir, rel string, _ fs.FileInfo) (fs.FileInfo, error) { return d.lstat(rel) },
		func() (fs.FileInfo, error) { return fs.Lstat(f.outer, name) })
}

func (f *osFiles) ReadLink(name string) (string, error) {
	return confinedOp(f, "readlink", name, false,
		func(d *confinedDir, rel string, _ fs.FileInfo) (string, error) { return os.Readlink(d.path(rel)) },
		func() (string, error) { return fs.ReadLink(f.outer, name) })
}

// CanRead reports whether the file name may be opened for reading, as
// access(2) says, without opening it (a reload asks it of every input,
// integrity.go).
func (f *osFiles) CanRead(name string) error {
	_, err := confinedOp(f, "access", name, true,
		func(d *confinedDir, rel string, _ fs.FileInfo) (struct{}, error) {
			return struct{}{}, access(d.path(rel))
		},
		func() (struct{}, error) { return struct{}{}, access("/" + name) })
	return err
}

func access(p string) error {
	if err := syscall.Access(p, 4 /* R_OK */); err != nil {
		return &fs.PathError{Op: "access", Path: p, Err: err}
	}
	return nil
}

package graph

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/celine-eu/governanced/internal/governance"
)

// The reference discovers files with Python's glob.glob(recursive=True) and
// names them with pathlib. Discovery order, the text of every path it prints
// and the names of pipelines all follow from those two, so this file
// reproduces them on path text, relative to a working directory given
// explicitly rather than the process's (tests run cases side by side).

// fsys answers the file system questions the reference asks, with relative
// paths taken against dir, an absolute directory.
type fsys struct{ dir string }

// abs joins a relative path to the working directory without cleaning it:
// "link/.." must go through the link, as the operating system does.
func (f fsys) abs(p string) string {
	switch {
	case p == "":
		return f.dir
	case strings.HasPrefix(p, "/"):
		return p
	}
	return f.dir + "/" + p
}

func (f fsys) lexists(p string) bool {
	_, err := os.Lstat(f.abs(p))
	return err == nil
}

func (f fsys) isDir(p string) bool {
	if p == "" {
		return false // os.path.isdir("") is false
	}
	info, err := os.Stat(f.abs(p))
	return err == nil && info.IsDir()
}

func (f fsys) isRegular(p string) bool {
	info, err := os.Stat(f.abs(p))
	return err == nil && info.Mode().IsRegular()
}

// exists is pathlib's exists(): false for a path that is missing, under a
// non-directory or in a symlink loop.
func (f fsys) exists(p string) (bool, error) {
	_, err := os.Stat(f.abs(p))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) || isNotDirOrLoop(err) {
		return false, nil
	}
	return false, err
}

// listDir lists a directory's entry names (only directories, following
// symlinks, when dirOnly); an unreadable directory lists nothing, as
// Python's scandir loop swallows the error.
func (f fsys) listDir(p string, dirOnly bool) []string {
	entries, err := os.ReadDir(f.abs(p))
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if dirOnly {
			if e.IsDir() {
				names = append(names, e.Name())
				continue
			}
			if e.Type()&fs.ModeSymlink == 0 || !f.isDir(pyJoin(p, e.Name())) {
				continue
			}
		}
		names = append(names, e.Name())
	}
	return names
}

// pySplit is posixpath.split: the text after the last slash, and the text
// before it with trailing slashes dropped unless it is only slashes.
func pySplit(p string) (head, tail string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail = p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// pyJoin is posixpath.join of two parts.
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// globJoin is glob's _join: either part alone when the other is empty.
func globJoin(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return pyJoin(a, b)
}

// pathStr is str(pathlib.PurePosixPath(p)): empty and "." segments dropped,
// ".." kept, a root of "/" (or exactly "//", which POSIX leaves to the
// implementation and Python keeps), "." for nothing. It is what the
// reference prints for every path.
func pathStr(p string) string {
	root := ""
	switch {
	case strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"):
		root = "//"
	case strings.HasPrefix(p, "/"):
		root = "/"
	}
	parts := pathParts(p)
	if root == "" && len(parts) == 0 {
		return "."
	}
	return root + strings.Join(parts, "/")
}

// pathParts are the segments of a path without its root, as pathlib keeps them.
func pathParts(p string) []string {
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			parts = append(parts, s)
		}
	}
	return parts
}

// pathName is PurePath.name: the last segment, "" for a root or ".".
func pathName(p string) string {
	parts := pathParts(p)
	if len(parts) == 0 {
		return ""
	}
	return parts[len(parts)-1]
}

// pathJoin is PurePath / name on the string form of a path.
func pathJoin(p, name string) string {
	s := pathStr(p)
	switch s {
	case ".":
		return name
	case "/", "//":
		return s + name
	}
	return s + "/" + name
}

// pathParent is PurePath.parent on the string form of a path.
func pathParent(p string) string {
	s := pathStr(p)
	i := strings.LastIndexByte(s, '/')
	switch {
	case s == "/" || s == "//" || s == ".":
		return s
	case i < 0:
		return "."
	case i == 0:
		return "/"
	case i == 1 && strings.HasPrefix(s, "//"):
		return "//"
	}
	return s[:i]
}

// realPath is os.path.realpath(p, strict=False), which pathlib's resolve()
// calls: symlinks resolved as far as the path exists, the rest joined as
// text, ".." taken after the symlink before it. A symlink loop stops the
// resolution where it was met, as Python does. The result is absolute.
func (f fsys) realPath(p string) string {
	path, rest := f.dir, p
	if strings.HasPrefix(p, "/") {
		path, rest = "/", p[1:]
	}
	path, _ = joinRealPath(path, rest, map[string]*string{})
	return path
}

func joinRealPath(path, rest string, seen map[string]*string) (string, bool) {
	if strings.HasPrefix(rest, "/") {
		path, rest = "/", rest[1:]
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			path, _ = pySplit(path)
			if path == "" {
				path = "/"
			}
			continue
		}
		next := pyJoin(path, name)
		info, err := os.Lstat(next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			path = next
			continue
		}
		if r, ok := seen[next]; ok {
			if r != nil {
				path = *r
				continue
			}
			return pyJoin(next, rest), false // a loop
		}
		seen[next] = nil
		target, err := os.Readlink(next)
		if err != nil {
			path = next
			continue
		}
		var ok bool
		path, ok = joinRealPath(path, target, seen)
		if !ok {
			return pyJoin(path, rest), false
		}
		resolved := path
		seen[next] = &resolved
	}
	return path, true
}

// realSegments are PurePath(p).parts of an absolute path: the root counts as
// one segment, as in the reference's disambiguation.
func realSegments(abs string) []string {
	root := "/"
	if strings.HasPrefix(abs, "//") && !strings.HasPrefix(abs, "///") {
		root = "//"
	}
	return append([]string{root}, pathParts(abs)...)
}

// pyGlob returns what sorted(glob.glob(pattern, recursive=True)) returns: the
// raw hit texts (a trailing slash kept), sorted by code point. Hidden entries
// are matched only by a segment that starts with a dot; "**" alone in a
// segment is zero or more directory levels. Unlike Python, "**" does not
// enter a directory already on the path it is descending (a symlink loop),
// where Python goes on until the operating system refuses the path.
func (f fsys) pyGlob(pattern string) []string {
	hits := f.iglob(pattern, false)
	if strings.HasPrefix(pattern, "**") && len(hits) > 0 && hits[0] == "" {
		hits = hits[1:]
	}
	slices.Sort(hits)
	return hits
}

func (f fsys) iglob(pathname string, dirOnly bool) []string {
	dirname, basename := pySplit(pathname)
	if !governance.HasMeta(pathname) {
		if basename != "" {
			if f.lexists(pathname) {
				return []string{pathname}
			}
		} else if f.isDir(dirname) {
			return []string{pathname}
		}
		return nil
	}
	if dirname == "" {
		if basename == "**" {
			return f.glob2("", dirOnly)
		}
		return f.glob1("", basename, dirOnly)
	}
	dirs := []string{dirname}
	if dirname != pathname && governance.HasMeta(dirname) {
		dirs = f.iglob(dirname, true)
	}
	var out []string
	for _, d := range dirs {
		var names []string
		switch {
		case basename == "**":
			names = f.glob2(d, dirOnly)
		case governance.HasMeta(basename):
			names = f.glob1(d, basename, dirOnly)
		default:
			names = f.glob0(d, basename)
		}
		for _, n := range names {
			out = append(out, pyJoin(d, n))
		}
	}
	return out
}

// glob0 is a literal segment: itself when it exists (as a link or not).
func (f fsys) glob0(dirname, basename string) []string {
	if basename != "" {
		if f.lexists(globJoin(dirname, basename)) {
			return []string{basename}
		}
	} else if f.isDir(dirname) {
		return []string{basename}
	}
	return nil
}

// glob1 is a pattern segment: the entries it matches, hidden ones only for a
// pattern that starts with a dot.
func (f fsys) glob1(dirname, pattern string, dirOnly bool) []string {
	g := governance.CompileGlob(pattern)
	hidden := strings.HasPrefix(pattern, ".")
	var out []string
	for _, n := range f.listDir(dirname, dirOnly) {
		if !hidden && strings.HasPrefix(n, ".") {
			continue
		}
		if g.Match(n) {
			out = append(out, n)
		}
	}
	return out
}

// glob2 is "**": "" (this directory) and every non-hidden entry below it.
func (f fsys) glob2(dirname string, dirOnly bool) []string {
	out := []string{""}
	onPath := map[string]bool{f.realPath(f.abs(dirname)): true}
	var rec func(dir, prefix string)
	rec = func(dir, prefix string) {
		for _, n := range f.listDir(dir, dirOnly) {
			if strings.HasPrefix(n, ".") {
				continue
			}
			out = append(out, globJoin(prefix, n))
			path := globJoin(dir, n)
			if !f.isDir(path) {
				continue
			}
			real := f.realPath(f.abs(path))
			if onPath[real] {
				continue
			}
			onPath[real] = true
			rec(path, globJoin(prefix, n))
			delete(onPath, real)
		}
	}
	rec(dirname, "")
	return out
}

func isNotDirOrLoop(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EBADF)
}

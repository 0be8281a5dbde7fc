package graph

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/celine-eu/governanced/internal/pyglob"
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

func (f fsys) Lexists(p string) bool {
	_, err := os.Lstat(f.abs(p))
	return err == nil
}

func (f fsys) IsDir(p string) bool {
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

// ReadDir lists a directory's entries; an unreadable directory lists
// nothing, as Python's scandir loop swallows the error.
func (f fsys) ReadDir(p string) []fs.DirEntry {
	entries, _ := os.ReadDir(f.abs(p))
	return entries
}

// Identity is the directory's real path, which "**" enters once on a path.
func (f fsys) Identity(p string) string { return f.realPath(f.abs(p)) }

// pyGlob is sorted(glob.glob(pattern, recursive=True)).
func (f fsys) pyGlob(pattern string) []string { return pyglob.Sorted(f, pattern) }

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
			path, _ = pyglob.Split(path)
			if path == "" {
				path = "/"
			}
			continue
		}
		next := pyglob.Join(path, name)
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
			return pyglob.Join(next, rest), false // a loop
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
			return pyglob.Join(path, rest), false
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

func isNotDirOrLoop(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EBADF)
}

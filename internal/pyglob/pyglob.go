// Package pyglob expands a pattern as Python's glob.glob(recursive=True)
// does, on path text: per segment, fnmatch against a directory's entries
// (governance-format.md §7.2); "**" alone in a segment for zero or more
// directory levels; an entry whose name starts with a dot matched only by a
// segment that itself starts with one, and never entered by "**".
//
// The expansion asks its questions of an FS about paths as it writes them
// (the pattern's text, entry names joined on), so each caller decides what
// a path names: the tree check a name in an fs.FS, lexically; the graph
// command a file of the operating system, ".." through a symbolic link as
// the kernel takes it.
package pyglob

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/keyindex"
)

// FS is what an expansion asks of a file system about a path as text. An
// unreadable or missing path is simply not there: Python's glob swallows
// those errors.
type FS interface {
	// Lexists reports whether p names an entry, a dangling link included.
	Lexists(p string) bool
	// IsDir reports whether p names a directory, links followed.
	IsDir(p string) bool
	// ReadDir lists the entries of the directory p; nothing when it
	// cannot be read.
	ReadDir(p string) []fs.DirEntry
	// Identity is p with its links resolved: "**" does not enter a
	// directory already on the path it is descending.
	Identity(p string) string
}

// Glob returns what glob.iglob(pattern, recursive=True) yields before its
// caller drops the leading "" of a pattern that starts with "**": the raw
// hit texts, a trailing slash kept, in the order met (unsorted). Unlike
// Python, "**" does not enter a directory already on the path it is
// descending (a symlink loop), where Python goes on until the operating
// system refuses the path.
func Glob(fsys FS, pattern string) []string {
	return iglob(fsys, pattern, false)
}

// Sorted is sorted(glob.glob(pattern, recursive=True)): Glob without the
// leading "" of a pattern that starts with "**", sorted by code point.
func Sorted(fsys FS, pattern string) []string {
	hits := Glob(fsys, pattern)
	if strings.HasPrefix(pattern, "**") && len(hits) > 0 && hits[0] == "" {
		hits = hits[1:]
	}
	slices.Sort(hits)
	return hits
}

func iglob(fsys FS, pathname string, dirOnly bool) []string {
	dirname, basename := Split(pathname)
	if !keyindex.HasMeta(pathname) {
		if basename != "" {
			if fsys.Lexists(pathname) {
				return []string{pathname}
			}
		} else if isDir(fsys, dirname) {
			return []string{pathname}
		}
		return nil
	}
	if dirname == "" {
		if basename == "**" {
			return glob2(fsys, "", dirOnly)
		}
		return glob1(fsys, "", basename, dirOnly)
	}
	dirs := []string{dirname}
	if dirname != pathname && keyindex.HasMeta(dirname) {
		dirs = iglob(fsys, dirname, true)
	}
	var out []string
	for _, d := range dirs {
		var names []string
		switch {
		case basename == "**":
			names = glob2(fsys, d, dirOnly)
		case keyindex.HasMeta(basename):
			names = glob1(fsys, d, basename, dirOnly)
		default:
			names = glob0(fsys, d, basename)
		}
		for _, n := range names {
			out = append(out, Join(d, n))
		}
	}
	return out
}

// glob0 is a literal segment: itself when it exists (as a link or not).
func glob0(fsys FS, dirname, basename string) []string {
	if basename != "" {
		if fsys.Lexists(join(dirname, basename)) {
			return []string{basename}
		}
	} else if isDir(fsys, dirname) {
		return []string{basename}
	}
	return nil
}

// glob1 is a pattern segment: the entries it matches, hidden ones only for a
// pattern that starts with a dot.
func glob1(fsys FS, dirname, pattern string, dirOnly bool) []string {
	g := keyindex.Compile(pattern)
	hidden := strings.HasPrefix(pattern, ".")
	var out []string
	for _, n := range listDir(fsys, dirname, dirOnly) {
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
func glob2(fsys FS, dirname string, dirOnly bool) []string {
	out := []string{""}
	onPath := map[string]bool{fsys.Identity(dirname): true}
	var rec func(dir, prefix string)
	rec = func(dir, prefix string) {
		for _, n := range listDir(fsys, dir, dirOnly) {
			if strings.HasPrefix(n, ".") {
				continue
			}
			out = append(out, join(prefix, n))
			p := join(dir, n)
			if !isDir(fsys, p) {
				continue
			}
			id := fsys.Identity(p)
			if onPath[id] {
				continue
			}
			onPath[id] = true
			rec(p, join(prefix, n))
			delete(onPath, id)
		}
	}
	rec(dirname, "")
	return out
}

// listDir lists a directory's entry names, only directories (links
// followed) when dirOnly.
func listDir(fsys FS, p string, dirOnly bool) []string {
	entries := fsys.ReadDir(p)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if dirOnly && !e.IsDir() && (e.Type()&fs.ModeSymlink == 0 || !fsys.IsDir(Join(p, e.Name()))) {
			continue
		}
		names = append(names, e.Name())
	}
	return names
}

// isDir is os.path.isdir, which is false for "".
func isDir(fsys FS, p string) bool { return p != "" && fsys.IsDir(p) }

// Split is posixpath.split: the text after the last slash, and the text
// before it with trailing slashes dropped unless it is only slashes.
func Split(p string) (head, tail string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail = p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// Join is posixpath.join of two parts.
func Join(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// join is glob's _join: either part alone when the other is empty.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return Join(a, b)
}

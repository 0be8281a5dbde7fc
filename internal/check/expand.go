package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// displayPath normalises path text as check.md §3.4 says: segments joined with
// "/", empty and "." segments dropped, ".." kept, a leading "/" kept, "." for
// nothing. It is lexical on purpose: a report names files as the user wrote
// them, not as the file system resolves them.
func displayPath(p string) string {
	abs := strings.HasPrefix(p, "/")
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." {
			continue
		}
		segs = append(segs, s)
	}
	out := strings.Join(segs, "/")
	if abs {
		return "/" + out
	}
	if out == "" {
		return "."
	}
	return out
}

// joinDisplay appends a name to a display path.
func joinDisplay(dir, name string) string {
	switch dir {
	case ".", "":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}

// hasMeta reports whether an argument is a pattern (check.md §3.1).
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// overlayName returns NAME for a file called governance.<NAME>.yaml, or "".
func overlayName(base string) string {
	const pre, suf = "governance.", ".yaml"
	if len(base) <= len(pre)+len(suf) || !strings.HasPrefix(base, pre) || !strings.HasSuffix(base, suf) {
		return ""
	}
	return base[len(pre) : len(base)-len(suf)]
}

// appName is the base's app name, taken lexically from its display path by
// the resolver's own inference so the check and the exporter always agree on
// which overlay a base gets (check.md decision D4). The environment is never
// consulted: a gate whose verdict depends on it is not reproducible.
func appName(display string) string {
	return governance.OverlayName(display, governance.OverlayOptions{
		InferFromDir: true,
		Getenv:       func(string) string { return "" },
	})
}

// fsFile is one file the check reads: how it is shown and where it is.
type fsFile struct {
	display string // as reported
	path    string // as opened: Dir joined with the display path
	id      string // symlinks resolved: the identity of the file
	dirID   string // the directory holding it, symlinks resolved
}

// resolver turns argument text into file system paths under the working
// directory.
type resolver struct{ dir string }

func (r resolver) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.dir, p)
}

func (r resolver) file(display string) fsFile {
	p := r.abs(display)
	return fsFile{display: display, path: p, id: realPath(p), dirID: realPath(filepath.Dir(p))}
}

// realPath resolves symlinks so two spellings of one file are one file
// (check.md §3.4); a path that cannot be resolved stands for itself.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func isRegular(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// globMatch is one path a pattern matched.
type globMatch struct {
	display string
	path    string
}

// glob expands a pattern with the semantics of Python's glob(recursive=True)
// (check.md §3.1): per segment, fnmatch against directory entries; "**" for
// zero or more directory levels; hidden entries only for a segment that itself
// starts with "."; matches in code-point order of their display paths.
func (r resolver) glob(pattern string) []globMatch {
	var start globMatch
	if strings.HasPrefix(pattern, "/") {
		start = globMatch{display: "/", path: "/"}
	} else {
		start = globMatch{display: ".", path: r.dir}
	}
	segs := strings.Split(pattern, "/")
	dirOnly := strings.HasSuffix(pattern, "/")
	var out []globMatch
	var walk func(at globMatch, segs []string)
	walk = func(at globMatch, segs []string) {
		for len(segs) > 0 && (segs[0] == "" || segs[0] == ".") {
			segs = segs[1:]
		}
		if len(segs) == 0 {
			if !dirOnly || isDir(at.path) {
				out = append(out, at)
			}
			return
		}
		seg, rest := segs[0], segs[1:]
		switch {
		case seg == "**":
			for _, m := range r.descend(at) {
				walk(m, rest)
			}
		case !hasMeta(seg):
			next := globMatch{display: joinDisplay(at.display, seg), path: filepath.Join(at.path, seg)}
			if _, err := os.Lstat(next.path); err == nil {
				walk(next, rest)
			}
		default:
			g := governance.CompileGlob(seg)
			for _, e := range readDir(at.path) {
				name := e.Name()
				if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
					continue
				}
				if g.Match(name) {
					walk(globMatch{display: joinDisplay(at.display, name), path: filepath.Join(at.path, name)}, rest)
				}
			}
		}
	}
	walk(start, segs)
	for i := range out {
		out[i].display = displayPath(out[i].display)
	}
	slices.SortStableFunc(out, func(a, b globMatch) int { return strings.Compare(a.display, b.display) })
	return out
}

// descend lists what "**" stands for at a directory: the directory itself and
// every non-hidden entry below it, directories entered only when not hidden.
// Python yields files too when "**" ends the pattern; a later segment simply
// finds nothing under a file. Directories already visited (a symlink loop)
// are not entered twice.
func (r resolver) descend(at globMatch) []globMatch {
	if !isDir(at.path) {
		return nil
	}
	out := []globMatch{at}
	seen := map[string]bool{realPath(at.path): true}
	var rec func(d globMatch)
	rec = func(d globMatch) {
		for _, e := range readDir(d.path) {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			m := globMatch{display: joinDisplay(d.display, name), path: filepath.Join(d.path, name)}
			out = append(out, m)
			if isDir(m.path) {
				id := realPath(m.path)
				if !seen[id] {
					seen[id] = true
					rec(m)
				}
			}
		}
	}
	rec(at)
	return out
}

func readDir(p string) []fs.DirEntry {
	es, _ := os.ReadDir(p) // an unreadable directory matches nothing, as in Python
	return es
}

// overlaysIn lists the overlay-named regular files directly inside a
// directory, in name order.
func overlaysIn(dir string) []string {
	var out []string
	for _, e := range readDir(dir) {
		if overlayName(e.Name()) != "" && isRegular(filepath.Join(dir, e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

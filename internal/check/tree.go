package check

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/pyglob"
	"github.com/celine-eu/governanced/internal/yaml11"
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

// tree is the file system a check reads, with the working directory relative
// paths start from. Argument text and display paths are turned into names of
// the file system here, and nowhere else.
type tree struct {
	fsys fs.FS
	// rooted: fsys is the operating system's root directory, or laid out
	// like it (Options.Rooted), so an absolute path names a file in it. In
	// any other file system (an upload, the demo tree) an absolute path
	// names nothing.
	rooted bool
	dir    string // the working directory, as a name in fsys
	// mounts, when set, are the only places relative paths name, longest
	// display first (Options.Mounts); dir is then unused.
	mounts []Mount
	// resolved remembers names already resolved ("" for one that cannot
	// be): a plan reads one state of the files.
	resolved map[string]string
	limit    int // the largest file read; 0 is yaml11.MaxDocumentBytes
}

// newTree makes the tree an Options describes.
func newTree(opts Options) (tree, error) {
	t, err := newTreeIn(opts)
	if err == nil && opts.Mounts != nil {
		t.mounts, err = sortMounts(opts.Mounts)
	}
	t.limit = opts.Budget.DocumentBytes
	if t.limit <= 0 || t.limit > yaml11.MaxDocumentBytes {
		t.limit = yaml11.MaxDocumentBytes
	}
	return t, err
}

func newTreeIn(opts Options) (tree, error) {
	if opts.FS != nil && !opts.Rooted {
		dir := opts.Dir
		if dir == "" {
			dir = "."
		}
		if !fs.ValidPath(dir) {
			return tree{}, usagef("invalid working directory %q in the file system", opts.Dir)
		}
		return tree{fsys: opts.FS, dir: dir, resolved: map[string]string{}}, nil
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return tree{}, usagef("cannot determine the working directory: %v", err)
		}
		dir = wd
	} else if !path.IsAbs(dir) {
		wd, err := os.Getwd()
		if err != nil {
			return tree{}, usagef("cannot determine the working directory: %v", err)
		}
		dir = path.Join(wd, dir)
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = os.DirFS("/")
	}
	return tree{fsys: fsys, rooted: true, dir: rootedName(dir), resolved: map[string]string{}}, nil
}

// sortMounts checks the mounts and orders them longest display first, so
// that the first one holding a path is the innermost.
func sortMounts(ms []Mount) ([]Mount, error) {
	out := make([]Mount, 0, len(ms))
	seen := map[string]bool{}
	for _, m := range ms {
		d := displayPath(m.Display)
		if path.IsAbs(d) || d == ".." || strings.HasPrefix(d, "../") || strings.Contains(d, "/../") || strings.HasSuffix(d, "/..") {
			return nil, usagef("invalid mount %q: it must be a relative path without ..", m.Display)
		}
		if seen[d] {
			return nil, usagef("two mounts at %q", d)
		}
		if !fs.ValidPath(m.Name) {
			return nil, usagef("invalid mount %q: %q is not a name in the file system", m.Display, m.Name)
		}
		seen[d] = true
		out = append(out, Mount{Display: d, Name: m.Name})
	}
	slices.SortStableFunc(out, func(a, b Mount) int { return len(b.Display) - len(a.Display) })
	return out, nil
}

// mounted is the name of a relative display path under the mounts, and
// false when no mount holds it or it climbs out of the one that does.
func (t tree) mounted(display string) (string, bool) {
	for _, m := range t.mounts {
		rest, ok := display, m.Display == "."
		if !ok {
			if rest, ok = strings.CutPrefix(display, m.Display); ok && rest != "" {
				rest, ok = strings.CutPrefix(rest, "/")
			}
		}
		if !ok {
			continue
		}
		if rest == "" || rest == "." {
			return m.Name, true
		}
		if rest == ".." || strings.HasPrefix(rest, "../") || strings.Contains(rest, "/../") || strings.HasSuffix(rest, "/..") {
			return "", false
		}
		return path.Join(m.Name, rest), true
	}
	return "", false
}

// rootedName is the name of an absolute path in the root file system.
func rootedName(abs string) string {
	n := strings.TrimLeft(path.Clean(abs), "/")
	if n == "" {
		return "."
	}
	return n
}

// name is the file system name of a display path, and false when the path
// names nothing this tree can reach (an absolute path outside the operating
// system's files, or ".." above the top of an upload).
func (t tree) name(display string) (string, bool) {
	if path.IsAbs(display) {
		if !t.rooted {
			return "", false
		}
		return rootedName(display), true
	}
	if t.mounts != nil {
		return t.mounted(displayPath(display))
	}
	n := path.Join(t.dir, display)
	if !fs.ValidPath(n) {
		return "", false
	}
	return n, true
}

func (t tree) stat(display string) (fs.FileInfo, error) {
	n, ok := t.name(display)
	if !ok {
		return nil, fs.ErrNotExist
	}
	return fs.Stat(t.fsys, n)
}

func (t tree) lexists(n string) bool {
	if rl, ok := t.fsys.(fs.ReadLinkFS); ok {
		_, err := rl.Lstat(n)
		return err == nil
	}
	_, err := fs.Stat(t.fsys, n)
	return err == nil
}

func (t tree) isRegular(display string) bool {
	info, err := t.stat(display)
	return err == nil && info.Mode().IsRegular()
}

func (t tree) isDir(display string) bool {
	info, err := t.stat(display)
	return err == nil && info.IsDir()
}

func (t tree) readDirNamed(n string) []fs.DirEntry {
	es, _ := fs.ReadDir(t.fsys, n) // an unreadable directory matches nothing, as in Python
	return es
}

func (t tree) isDirNamed(n string) bool {
	info, err := fs.Stat(t.fsys, n)
	return err == nil && info.IsDir()
}

// identity is what makes two spellings of one file one file (check.md
// §3.4): its name with symbolic links resolved, where the file system can
// read them; a path that cannot be resolved stands for itself.
func (t tree) identity(display string) string {
	n, ok := t.name(display)
	if !ok {
		return display
	}
	return t.resolve(n)
}

// maxLinks bounds the symbolic links one resolution follows, as the
// operating system's own limit does for a loop.
const maxLinks = 255

// resolve follows the symbolic links of every component of name, as
// filepath.EvalSymlinks does, within the file system: a link out of it (an
// absolute target in a file system that is not the root) leaves name as it
// is. Directories resolved once are remembered for the rest of the plan: a
// tree of 10 000 apps resolves each app directory once, not once a file.
func (t tree) resolve(name string) string {
	if _, ok := t.fsys.(fs.ReadLinkFS); !ok {
		return name
	}
	r, ok := t.resolveHops(path.Clean(name), 0)
	if !ok {
		return name
	}
	return r
}

// resolveHops is resolve after hops links, false when name cannot be
// resolved within the file system.
func (t tree) resolveHops(name string, hops int) (string, bool) {
	if name == "." || name == "" {
		return ".", true
	}
	if r, ok := t.resolved[name]; ok {
		return r, r != ""
	}
	r, ok := t.resolveLast(name, hops)
	if !ok {
		r = ""
	}
	t.resolved[name] = r
	return r, ok
}

// resolveLast resolves name's directory (remembered), then its last
// component.
func (t tree) resolveLast(name string, hops int) (string, bool) {
	dir, base := path.Dir(name), path.Base(name)
	rdir, ok := t.resolveHops(dir, hops)
	if !ok {
		return "", false
	}
	if base == ".." {
		if rdir == "." {
			return "", false // above the top of the file system
		}
		return path.Dir(rdir), true
	}
	cand := path.Join(rdir, base)
	rl := t.fsys.(fs.ReadLinkFS)
	info, err := rl.Lstat(cand)
	if err != nil {
		return "", false
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		return cand, true
	}
	if hops++; hops > maxLinks {
		return "", false
	}
	target, err := rl.ReadLink(cand)
	if err != nil {
		return "", false
	}
	if path.IsAbs(target) {
		if !t.rooted {
			return "", false
		}
		return t.resolveHops(rootedName(target), hops)
	}
	return t.resolveHops(path.Clean(path.Join(rdir, target)), hops)
}

// glob expands a pattern with the semantics of Python's glob(recursive=True)
// (check.md §3.1) and returns the display paths it matched in code-point
// order. A pattern starting with "**" matches "." too, and a hit that ends
// in a slash is a directory: "x/**" under a file or nothing matches nothing.
func (t tree) glob(pattern string) []string {
	g := globFS{t}
	var out []string
	for _, hit := range pyglob.Glob(g, pattern) {
		if strings.HasSuffix(hit, "/") && !g.IsDir(hit) {
			continue
		}
		out = append(out, displayPath(hit))
	}
	slices.Sort(out)
	return out
}

// globFS answers the glob's questions about path text as the tree's
// display paths: lexically, as check.md §3.4 has them, except that ".."
// after a name that does not exist names nothing, as in the operating
// system.
type globFS struct{ t tree }

func (g globFS) name(p string) (string, bool) {
	d := displayPath(p)
	if strings.Contains(d, "..") {
		segs := strings.Split(d, "/")
		for i, s := range segs {
			if s != ".." || i == 0 || segs[i-1] == ".." || segs[i-1] == "" {
				continue
			}
			if n, ok := g.t.name(strings.Join(segs[:i], "/")); !ok || !g.t.lexists(n) {
				return "", false
			}
		}
	}
	return g.t.name(d)
}

func (g globFS) Lexists(p string) bool {
	n, ok := g.name(p)
	return ok && g.t.lexists(n)
}

func (g globFS) IsDir(p string) bool {
	n, ok := g.name(p)
	return ok && g.t.isDirNamed(n)
}

func (g globFS) ReadDir(p string) []fs.DirEntry {
	n, ok := g.name(p)
	if !ok {
		return nil
	}
	return g.t.readDirNamed(n)
}

func (g globFS) Identity(p string) string {
	n, ok := g.name(p)
	if !ok {
		return p
	}
	return g.t.resolve(n)
}

// overlaysIn lists the overlay-named regular files directly inside a
// directory (a display path), in name order.
func (t tree) overlaysIn(dir string) []string {
	n, ok := t.name(dir)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range t.readDirNamed(n) {
		if overlayName(e.Name()) != "" && t.isRegular(joinDisplay(dir, e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

// ErrNotRegular is an input that is not a regular file: a directory, a
// device, a FIFO or a socket where a document belongs. Such a file is never
// opened: a FIFO would block the read, a device never end it.
var ErrNotRegular = errors.New("not a regular file")

// readFile reads one input: a regular file, read through the document size
// limit so that a larger one is refused after reading at most the limit.
func (t tree) readFile(display string) ([]byte, fs.FileInfo, error) {
	n, ok := t.name(display)
	if !ok {
		return nil, nil, fs.ErrNotExist
	}
	return ReadFile(t.fsys, n, t.limit)
}

// ReadFile reads the file name of fsys when it is a regular file of at most
// limit bytes: the type is checked before the file is opened, and the read
// stops one byte past the limit. info is what the opened file was when it
// was read (its own Stat): the file whose bytes data holds, whatever fsys
// said of the name before. fsys must implement fs.StatFS for the type check
// to come first: without it fs.Stat opens the file, and opening a FIFO
// blocks.
func ReadFile(fsys fs.FS, name string, limit int) (data []byte, info fs.FileInfo, err error) {
	info, err = fs.Stat(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, info, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	if info.Size() > int64(limit) {
		return nil, info, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrTooLarge, info.Size(), limit)}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, info, err
	}
	defer f.Close()
	if opened, err := f.Stat(); err == nil {
		info = opened
		if !info.Mode().IsRegular() { // replaced since it was looked at
			return nil, info, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
		}
	}
	data, err = readLimited(f, limit, info.Size())
	if err != nil {
		return nil, info, err
	}
	if len(data) > limit {
		return nil, info, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than the limit of %d bytes", ErrTooLarge, limit)}
	}
	return data, info, nil
}

// readLimited reads at most limit+1 bytes of a file that was size bytes
// when looked at, into a buffer of that size and one byte more: a file
// that did not grow is read into one allocation of its size (io.ReadAll
// would double a buffer from 512 bytes, a large tree's reading making
// twice its bytes in garbage).
func readLimited(f io.Reader, limit int, size int64) ([]byte, error) {
	r := io.LimitReader(f, int64(limit)+1)
	buf := make([]byte, 0, max(0, min(size, int64(limit)))+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew: let append find room
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ErrTooLarge is an input over the document size limit.
var ErrTooLarge = errors.New("the file is too large")

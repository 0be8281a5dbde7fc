// Package state keeps the inputs of the revisions a server activated in a
// directory (serve --state-dir), so that a server starting on a tree it
// must reject can serve the last revision it, or another server sharing
// the directory, served.
//
// The layout, under the directory:
//
//	governanced-state            the format, one line: what makes the directory ours
//	lock                         locked while the directory is written (exclusive) or read (shared)
//	objects/ab/abcdef…           each input file's bytes, named by their SHA-256
//	revisions/CONFIG-REV.json    a revision's manifest: its files by path and hash, its options
//
// Objects are content-addressed, so two servers writing the same file
// write the same name, and every file and manifest is written to a
// temporary name and renamed into place, so that a reader never sees half
// of one. A save and the pruning after it hold an exclusive lock, a read a
// shared one: a prune never removes what a save that is under way has
// written and not yet named in a manifest. A manifest is checked on read
// (its format, its names, every object's hash): a revision whose files are
// missing or altered is passed over, never served. A directory holding
// anything else is foreign: nothing is read from it or written to it.
//
// A revision belongs to a configuration (Config: the options the server
// was started with, as given): a server reads only its own configuration's
// revisions, and prunes only those, keeping the newest Keep.
//
// The package is domain-side: it returns values and errors, and logs
// nothing; the edge says what it does with them.
package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/celine-eu/governanced/internal/memfs"
)

// Format is the layout's version, the marker file's one line.
const Format = "governanced-state/1"

// The names in the directory.
const (
	markerName    = "governanced-state"
	lockName      = "lock"
	objectsDir    = "objects"
	revisionsDir  = "revisions"
	tempPrefix    = ".tmp-"
	manifestExt   = ".json"
	lostAndFound  = "lost+found" // the root of a fresh ext4 volume holds one
	maxObjectSize = 64 << 20     // larger than any input a server reads
)

// Keep is how many revisions of a configuration a directory keeps by
// default.
const Keep = 3

// Dir is a state directory.
type Dir struct {
	path string
	keep int
}

// ForeignError is a directory that holds something else than a state
// directory: nothing is read from it or written to it.
type ForeignError struct {
	Path string
	Why  string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s is not a governanced state directory (%s): it is left as it is", e.Path, e.Why)
}

// Open opens the state directory at path, keeping keep revisions of each
// configuration (Keep when keep < 1): it is created when missing, and
// made one when empty. A directory holding anything else is a
// *ForeignError.
func Open(path string, keep int) (*Dir, error) {
	if keep < 1 {
		keep = Keep
	}
	d := &Dir{path: path, keep: keep}
	if err := os.MkdirAll(path, 0o750); err != nil {
		return nil, err
	}
	// Looked at before anything is written in it: a directory of someone
	// else's gets no lock file either.
	if err := d.ours(); err != nil {
		return nil, err
	}
	unlock, err := d.lock(true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := d.ours(); err != nil { // another server may have made it ours meanwhile
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(path, markerName)); errors.Is(err, fs.ErrNotExist) {
		// Under the lock no marker is being written: a temporary file is
		// what a server that stopped while writing one left.
		temps, _ := filepath.Glob(filepath.Join(path, tempPrefix+"*"))
		for _, p := range temps {
			_ = os.Remove(p)
		}
		if err := writeAtomic(path, markerName, []byte(Format+"\n")); err != nil {
			return nil, err
		}
	}
	for _, sub := range []string{objectsDir, revisionsDir} {
		if err := os.MkdirAll(filepath.Join(path, sub), 0o750); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Path is where the directory is.
func (d *Dir) Path() string { return d.path }

// ours returns a *ForeignError unless the directory is a state directory
// of this format, or holds nothing but what a new volume or a server
// about to make it one leaves.
func (d *Dir) ours() error {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	marked := false
	var others []string
	for _, e := range entries {
		switch e.Name() {
		case markerName:
			marked = true
		case lockName, lostAndFound:
		default:
			// A marker being written by a server making the directory
			// one, or left by one that stopped doing so.
			if strings.HasPrefix(e.Name(), tempPrefix) && e.Type().IsRegular() {
				continue
			}
			others = append(others, e.Name())
		}
	}
	if !marked {
		if len(others) > 0 {
			return &ForeignError{Path: d.path, Why: fmt.Sprintf("it holds %s and no %s file", quoteList(others, 3), markerName)}
		}
		return nil
	}
	b, err := readRegular(filepath.Join(d.path, markerName), 1<<10)
	if err != nil {
		return &ForeignError{Path: d.path, Why: fmt.Sprintf("its %s: %v", markerName, err)}
	}
	if got := strings.TrimSpace(string(b)); got != Format {
		return &ForeignError{Path: d.path, Why: fmt.Sprintf("its %s file says %.40q, and this server reads %s", markerName, got, Format)}
	}
	return nil
}

// File is an input file of a revision.
type File struct {
	Path   string `json:"path"`   // its served name, a slash-separated relative path
	SHA256 string `json:"sha256"` // the hash of its bytes, lowercase hex
}

// Revision is one revision's manifest.
type Revision struct {
	Format   string    `json:"format"`
	Config   string    `json:"config"`   // the configuration it was served under (Config)
	Revision string    `json:"revision"` // "sha256:" and 64 hex digits
	SavedAt  time.Time `json:"saved_at"`
	// Options are what the tree is read with, as the server wrote them:
	// the directory keeps them and gives them back.
	Options json.RawMessage `json:"options"`
	Files   []File          `json:"files"`
	Dirs    []string        `json:"dirs"` // directories the tree holds without an input
}

// Config is the key of a configuration: a hash of options, the server's
// as it was started (whatever they are, as JSON).
func Config(options any) (string, error) {
	b, err := json.Marshal(options)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// Saved is what a save wrote.
type Saved struct {
	Objects int // files written; the others were there already
	Pruned  int // revisions removed, beyond the newest Keep
}

// Save writes rev (rev.Format and Config are set here) with its files:
// those the directory does not hold yet are read with read (given a
// file's path) and must hash as rev says. Then it prunes config's
// revisions beyond the newest Keep and the files no revision names.
func (d *Dir) Save(ctx context.Context, config string, rev Revision, read func(path string) ([]byte, error)) (Saved, error) {
	var saved Saved
	rev.Format, rev.Config = Format, config
	if err := rev.check(); err != nil {
		return saved, err
	}
	unlock, err := d.lock(true)
	if err != nil {
		return saved, err
	}
	defer unlock()
	if err := d.ours(); err != nil {
		return saved, err
	}
	for _, f := range rev.Files {
		if err := ctx.Err(); err != nil {
			return saved, err
		}
		dir, name := d.object(f.SHA256)
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			continue
		}
		b, err := read(f.Path)
		if err != nil {
			return saved, err
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
			return saved, fmt.Errorf("%s: its bytes do not hash as the revision says: not saved", f.Path)
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return saved, err
		}
		if err := writeAtomic(dir, name, b); err != nil {
			return saved, err
		}
		saved.Objects++
	}
	b, err := json.Marshal(rev)
	if err != nil {
		return saved, err
	}
	if err := writeAtomic(filepath.Join(d.path, revisionsDir), manifestName(config, rev.Revision), b); err != nil {
		return saved, err
	}
	saved.Pruned, err = d.prune(config)
	return saved, err
}

// object is the directory and name of the object of sum.
func (d *Dir) object(sum string) (dir, name string) {
	return filepath.Join(d.path, objectsDir, sum[:2]), sum
}

func manifestName(config, revision string) string {
	return config + "-" + strings.TrimPrefix(revision, "sha256:") + manifestExt
}

// Problem is a revision the directory holds that cannot be served.
type Problem struct {
	Name string // the manifest's file name
	Err  error
}

func (p Problem) Error() string { return p.Name + ": " + p.Err.Error() }

// List returns config's revisions, newest first, and the manifests of
// config it cannot read, each with why. Their files are not read yet
// (Load).
func (d *Dir) List(config string) ([]Revision, []Problem, error) {
	unlock, err := d.lock(false)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	if err := d.ours(); err != nil {
		return nil, nil, err
	}
	revs, problems, err := d.manifests(func(c string) bool { return c == config })
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(revs, func(a, b Revision) int { return b.SavedAt.Compare(a.SavedAt) })
	return revs, problems, nil
}

// manifests reads the manifests whose configuration wanted says (from
// their names).
func (d *Dir) manifests(wanted func(config string) bool) ([]Revision, []Problem, error) {
	entries, err := os.ReadDir(filepath.Join(d.path, revisionsDir))
	if err != nil {
		return nil, nil, err
	}
	var revs []Revision
	var problems []Problem
	for _, e := range entries {
		name := e.Name()
		config, _, ok := strings.Cut(strings.TrimSuffix(name, manifestExt), "-")
		if !ok || !strings.HasSuffix(name, manifestExt) || !wanted(config) {
			continue
		}
		rev, err := d.readManifest(name)
		if err == nil && rev.Config != config {
			err = fmt.Errorf("its name says configuration %s, its content %s", config, rev.Config)
		}
		if err == nil && manifestName(config, rev.Revision) != name {
			err = fmt.Errorf("its name does not say its revision %s", rev.Revision)
		}
		if err != nil {
			problems = append(problems, Problem{Name: name, Err: err})
			continue
		}
		revs = append(revs, rev)
	}
	return revs, problems, nil
}

func (d *Dir) readManifest(name string) (Revision, error) {
	var rev Revision
	b, err := readRegular(filepath.Join(d.path, revisionsDir, name), maxObjectSize)
	if err != nil {
		return rev, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rev); err != nil {
		return rev, fmt.Errorf("not a manifest: %w", err)
	}
	return rev, rev.check()
}

// check holds a manifest to what this format writes.
func (r *Revision) check() error {
	if r.Format != Format {
		return fmt.Errorf("format %q, and this server reads %s", r.Format, Format)
	}
	if !isHex(r.Config, 16) {
		return fmt.Errorf("configuration %q is not 16 hexadecimal digits", r.Config)
	}
	if rest, ok := strings.CutPrefix(r.Revision, "sha256:"); !ok || !isHex(rest, 64) {
		return fmt.Errorf("revision %q is not sha256: and 64 hexadecimal digits", r.Revision)
	}
	if len(r.Files) == 0 {
		return errors.New("it names no file")
	}
	seen := map[string]bool{}
	for _, f := range r.Files {
		if !fs.ValidPath(f.Path) || f.Path == "." || seen[f.Path] {
			return fmt.Errorf("file %q is not a path it may name, or named twice", f.Path)
		}
		seen[f.Path] = true
		if !isHex(f.SHA256, 64) {
			return fmt.Errorf("file %s: hash %q is not 64 hexadecimal digits", f.Path, f.SHA256)
		}
	}
	for _, dir := range r.Dirs {
		if !fs.ValidPath(dir) {
			return fmt.Errorf("directory %q is not a path it may name", dir)
		}
	}
	return nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// CorruptError is a revision whose files are missing or not what its
// manifest says.
type CorruptError struct {
	Revision string
	Path     string // the file
	Err      error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("revision %s: %s: %v", e.Revision, e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// errAltered is an object whose bytes do not hash to its name.
var errAltered = errors.New("its bytes are not those the revision names")

// Load reads rev's files, each checked against its hash, into a file
// system laid out as rev names them (its directories included). A file
// missing or altered is a *CorruptError.
func (d *Dir) Load(rev Revision) (fs.FS, error) {
	unlock, err := d.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var fsys memfs.FS
	for _, dir := range rev.Dirs {
		if err := fsys.AddDir(dir); err != nil {
			return nil, &CorruptError{Revision: rev.Revision, Path: dir, Err: err}
		}
	}
	for _, f := range rev.Files {
		dir, name := d.object(f.SHA256)
		b, err := readRegular(filepath.Join(dir, name), maxObjectSize)
		if err == nil {
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
				err = errAltered
			}
		}
		if err == nil {
			err = fsys.Add(f.Path, b)
		}
		if err != nil {
			return nil, &CorruptError{Revision: rev.Revision, Path: f.Path, Err: err}
		}
	}
	return &fsys, nil
}

// readRegular reads the regular file name, of at most limit bytes. Its
// type is looked at before it is opened (a FIFO would block the open, a
// link lead anywhere), and the file opened must be the file looked at.
func readRegular(name string, limit int64) ([]byte, error) {
	info, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > limit {
		return nil, fmt.Errorf("not a regular file of at most %d bytes", limit)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(info, now) {
		return nil, fmt.Errorf("replaced while it was opened")
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("more than %d bytes", limit)
	}
	return b, err
}

// prune removes config's revisions beyond the newest Keep, its manifests
// that cannot be read, the temporary files of writers that stopped half
// way, and the objects no manifest names. The caller holds the lock
// exclusively: no save is under way.
func (d *Dir) prune(config string) (int, error) {
	revs, problems, err := d.manifests(func(c string) bool { return c == config })
	if err != nil {
		return 0, err
	}
	slices.SortStableFunc(revs, func(a, b Revision) int { return b.SavedAt.Compare(a.SavedAt) })
	var drop []string
	for _, r := range revs[min(len(revs), d.keep):] {
		drop = append(drop, manifestName(r.Config, r.Revision))
	}
	for _, p := range problems {
		drop = append(drop, p.Name)
	}
	for _, name := range drop {
		if err := os.Remove(filepath.Join(d.path, revisionsDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
	}
	// What every configuration's manifests name stays.
	kept, _, err := d.manifests(func(string) bool { return true })
	if err != nil {
		return 0, err
	}
	named := map[string]bool{}
	for _, r := range kept {
		for _, f := range r.Files {
			named[f.SHA256] = true
		}
	}
	err = filepath.WalkDir(filepath.Join(d.path, objectsDir), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if strings.HasPrefix(e.Name(), tempPrefix) || !named[e.Name()] {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(filepath.Join(d.path, revisionsDir))
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			_ = os.Remove(filepath.Join(d.path, revisionsDir, e.Name()))
		}
	}
	return len(drop), nil
}

// writeAtomic writes b to dir/name through a temporary file renamed into
// place: a reader sees the whole file or none.
func writeAtomic(dir, name string, b []byte) error {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = io.Copy(f, bytes.NewReader(b))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o640)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// quoteList names up to n of names.
func quoteList(names []string, n int) string {
	slices.Sort(names)
	q := make([]string, 0, n)
	for _, s := range names[:min(n, len(names))] {
		q = append(q, fmt.Sprintf("%q", path.Clean(s)))
	}
	out := strings.Join(q, ", ")
	if len(names) > n {
		out += fmt.Sprintf(" and %d more", len(names)-n)
	}
	return out
}

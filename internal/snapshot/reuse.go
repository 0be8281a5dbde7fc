package snapshot

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io/fs"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/uvarint"
)

// A reload reads every input but checks and builds only the units whose
// inputs changed (ADR-0004). A unit is check.CheckUnit's whole input, so its
// key is a hash of every field of check.Unit that the unit's result reads:
// the base and overlay candidates (display paths and bytes, or why they
// could not be read), the app name, the placeholder map, --dataspace and
// whether there is a registry. A file's name in the file system is read
// only to name an app that has none (a tree root named as "."), so it is in
// the key only then: the same tree read from another directory, with the
// same display paths, reuses the units (a diff's head reusing its base's).
// The registry itself is not in the key: a unit reads it only through the
// owner ids it asks for (check.UnitResult.OwnersAsked, and the ids its
// app's search index asked for the owners' names and aliases), so a unit
// is reused when the registry answers each of those ids as before — the
// entry in full, whatever its place in the file — and otherwise has its
// ownership names resolved again from its last check, its files neither
// read nor checked again (resolveUnit, ADR-0016). TestUnitKeyCoversTheUnit fails when
// a field is added to check.Unit and the key does not cover it.

// digest is a file's SHA-256 and the identity of the file it was taken from.
type digest struct {
	sum [32]byte
	ok  bool // the file was read; false: its error is what the unit sees
	id  identity
}

func (d digest) hex() string {
	if !d.ok {
		return ""
	}
	return hex.EncodeToString(d.sum[:])
}

// identity tells an unchanged file without reading it: a file whose size,
// modification time, change time and inode are the same holds the same
// bytes, barring a write that restores all four, which the periodic full
// rescan catches.
type identity struct {
	size         int64
	mtime, ctime time.Time
	dev, ino     uint64
	known        bool
}

func identityOf(info fs.FileInfo) identity {
	if info == nil {
		return identity{}
	}
	id := identity{size: info.Size(), mtime: info.ModTime(), known: true}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctime = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	} else {
		// Without a change time and inode (an upload, the embedded demo)
		// the identity cannot vouch for the bytes.
		id.known = false
	}
	return id
}

// digests are the files of one reading, by name in the file system.
type digests map[string]digest

// digest is in's digest: the one recorded for the same name when the file
// is the same, else a fresh hash of the bytes read.
func (d digests) digest(in check.Input) digest {
	id := identityOf(in.Info)
	if prev, ok := d[in.Name]; ok && id.known && prev.id == id && prev.ok == (in.Err == nil) {
		return prev
	}
	if in.Err != nil {
		return digest{id: id}
	}
	return digest{sum: sha256.Sum256(in.Data), ok: true, id: id}
}

// units are the units a build made, by key.
type units map[[32]byte]*builtUnit

// builtUnit is one unit's check and the app built from it.
type builtUnit struct {
	key    [32]byte
	result check.UnitResult
	app    *App // nil when the unit is not served
	// node is the app's pipeline as its base file says it: its part of the
	// dependency graph (graph.go).
	node graph.Pipeline
	// asked are the owner ids the unit's check asked the registry about;
	// answers the digest of the answers.
	asked   idList
	answers [32]byte
	// registry is a registry that answers asked as when the unit was
	// built: the one it was built with, or a later one found to (nil
	// without a registry). A build whose plan has the same registry
	// reuses the unit without digesting the answers.
	registry *owners.Registry
	reuse    bool // taken from the previous build
	// resolved: built from the previous build's check of the same files,
	// its ownership names resolved again (resolveUnit)
	resolved bool
	// files are the unit's base and overlay candidates, by served name
	// and hash, and filesKey the part of key they and the app's name make:
	// what an app held at this build (hold.go) serves and is keyed by.
	files    []InputFile
	filesKey [32]byte
}

func (b *builtUnit) reused() *builtUnit {
	c := *b
	c.reuse = true
	return &c
}

// reuseCounts are how a build made its units: taken whole from the
// previous build, or built afresh, and of those how many were only
// resolved again (resolveUnit) rather than checked.
type reuseCounts struct{ reused, built, resolved int }

func countReuse(built []*builtUnit) reuseCounts {
	var c reuseCounts
	for _, b := range built {
		switch {
		case b.reuse:
			c.reused++
		case b.resolved:
			c.built++
			c.resolved++
		default:
			c.built++
		}
	}
	return c
}

func buildUnit(key, filesKey [32]byte, u *check.Unit, d digests, answers *ownerAnswers) *builtUnit {
	b := &builtUnit{key: key, filesKey: filesKey, files: unitFiles(u, d), result: check.CheckUnit(u)}
	if b.result.Config != nil {
		b.node = baseNode(appNameOf(u), u.Base.Display, b.result.Base)
	}
	b.serve(u, answers)
	return b
}

// resolveUnit is prev's unit, whose files did not change but whose
// registry answers did, with its ownership names resolved again
// (check.ResolveOwners): nothing its files say is read or checked again.
// When every name resolves as before the configuration is prev's, and so
// is the app, which holds nothing else the registry says (newApp); else
// the app is built anew.
func resolveUnit(prev *builtUnit, u *check.Unit, answers *ownerAnswers) *builtUnit {
	b := &builtUnit{key: prev.key, filesKey: prev.filesKey, files: prev.files, node: prev.node, resolved: true,
		asked: prev.asked}
	b.result = check.ResolveOwners(u, &prev.result)
	if prev.app != nil && b.result.Config == prev.app.Config {
		b.app = prev.app
		b.note(answers)
		return b
	}
	if prev.app != nil {
		b.result.Served = servedOf(prev.app)
	}
	b.serve(u, answers)
	if prev.app != nil && b.app != nil {
		carryMemos(prev.app, b.app)
	}
	return b
}

// carryMemos gives each dataset of a the part (Memo) its counterpart in
// prev, an earlier build of the same files, made: when its rule is merged
// from the same parsed blocks, it is the same rule. An owners edit that
// resolves a dataset's names as before then costs its readers no new
// part.
func carryMemos(prev, a *App) {
	t := prev.memos.Load()
	if t == nil || prev.Config.Defaults != a.Config.Defaults || prev.DatasetCount() != a.DatasetCount() {
		return
	}
	(*t).carry(a, func(i int) bool {
		// The last is the defaults', whose rule is the one compared above.
		return i == a.DatasetCount() || prev.Config.Sources[i].Rule == a.Config.Sources[i].Rule
	})
}

// serve builds the app of b's checked unit, and notes the owner ids
// the check asked the registry about (note).
func (b *builtUnit) serve(u *check.Unit, answers *ownerAnswers) {
	if b.result.Config != nil {
		b.app = newApp(u, &b.result)
	}
	b.note(answers)
}

// note keeps the owner ids b's check asked the registry about, and the
// digest of the answers, and lets go of what a kept unit must not hold.
func (b *builtUnit) note(answers *ownerAnswers) {
	// The ids packed in one string, which a kept unit holds for every
	// reload: the check's list is let go below. A unit resolved again
	// starts from the list of the build it was resolved from, kept when
	// the ids asked are the same, as they are after most registry edits.
	if !b.asked.holds(b.result.OwnersAsked) {
		b.asked = newIDList(b.result.OwnersAsked)
	}
	b.answers = answers.hash(b.asked)
	b.registry = answers.registry
	// The node holds what the graph reads of the base; the rest of it is
	// in the served configuration, and a reused unit must not keep a
	// second copy alive. Nothing reads the check's own list of the ids
	// asked once b.asked has them (ResolveOwners asks again).
	b.result.Base = nil
	b.result.Served = nil // the app holds it
	b.result.OwnersAsked = nil
}

// unitKey is the hash of everything check.CheckUnit reads of u but the
// registry: see the comment at the top of this file.
func unitKey(u *check.Unit, d digests) [32]byte { return joinKeys(unitFilesKey(u, d), envKey(u.Env)) }

// joinKeys is a unit's key from its two parts: its own files, and the
// shared inputs every unit reads.
func joinKeys(files, env [32]byte) [32]byte {
	h := sha256.New()
	h.Write(files[:])
	h.Write(env[:])
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// unitFilesKey is the part of the key that is u's own: the app's name, its
// files' served names and digests (or why they could not be read).
func unitFilesKey(u *check.Unit, d digests) [32]byte {
	h := sha256.New()
	writeField(h, []byte(u.App))
	writeFile := func(f *check.File) {
		writeField(h, []byte(f.Display))
		if f.Err != nil {
			writeField(h, []byte("error: "+f.Err.Error()))
			return
		}
		fd, ok := d[f.Name]
		if !ok || !fd.ok {
			fd = digest{sum: sha256.Sum256(f.Data), ok: true}
		}
		writeField(h, fd.sum[:])
	}
	writeFile(&u.Base)
	if u.App == "" {
		writeField(h, []byte(u.Base.Name)) // newApp names the app after it
	}
	writeField(h, binary.AppendUvarint(nil, uint64(len(u.Overlays))))
	for i := range u.Overlays {
		writeFile(&u.Overlays[i])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// unitFiles are u's files by served name and hash, as a snapshot's inputs
// list them.
func unitFiles(u *check.Unit, d digests) []InputFile {
	out := make([]InputFile, 0, 1+len(u.Overlays))
	for _, f := range append([]check.File{u.Base}, u.Overlays...) {
		in := InputFile{Path: f.Display}
		switch fd, ok := d[f.Name]; {
		case f.Err != nil:
		case ok && fd.ok:
			in.SHA256 = fd.hex()
		default:
			sum := sha256.Sum256(f.Data)
			in.SHA256 = hex.EncodeToString(sum[:])
		}
		out = append(out, in)
	}
	return out
}

// envKey is the part of a unit's key every unit shares: whether there is a
// registry, --dataspace, the placeholder map.
func envKey(env check.Env) [32]byte {
	h := sha256.New()
	if env.Owners != nil {
		writeField(h, []byte("registry"))
	}
	if env.Dataspace {
		writeField(h, []byte("dataspace"))
	}
	if env.Placeholders != nil {
		writeField(h, []byte("placeholders"))
		for _, k := range slices.Sorted(maps.Keys(env.Placeholders)) {
			writeField(h, []byte(k))
			writeField(h, []byte(env.Placeholders[k]))
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// writeField writes b with its length first, so that no two sequences of
// fields hash alike.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// ownerAnswers digests the registry's answer to each id once per build: a
// hundred units asking after the same twenty owners hash twenty entries.
type ownerAnswers struct {
	registry *owners.Registry // nil without one
	mu       sync.Mutex
	digests  map[string][32]byte
}

func newOwnerAnswers(r *owners.Registry) *ownerAnswers { return &ownerAnswers{registry: r} }

// digest is the registry's answer to id: the entry in full, as GET /owners
// shows it (what it says, never where), or that there is none.
func (a *ownerAnswers) digest(id string) [32]byte {
	a.mu.Lock()
	d, ok := a.digests[id]
	a.mu.Unlock()
	if ok {
		return d
	}
	h := sha256.New()
	if a.registry != nil {
		if e := a.registry.ByID(id); e != nil {
			b, err := e.MarshalJSON()
			if err != nil {
				b = []byte("unencodable: " + err.Error()) // never equal to an encoded entry
			}
			writeField(h, b)
		}
	}
	h.Sum(d[:0])
	a.mu.Lock()
	if a.digests == nil {
		a.digests = map[string][32]byte{}
	}
	a.digests[id] = d
	a.mu.Unlock()
	return d
}

// hash is the digest of the answers to every id asked, in order: each id
// with its length first (as writeField writes it), then its answer's
// digest. Every unit reused is asked again on every reload, so the bytes
// are gathered in a buffer kept between calls and hashed at once.
func (a *ownerAnswers) hash(asked idList) [32]byte {
	buf := answerBufs.Get().(*[]byte)
	b := (*buf)[:0]
	for id := range asked.all() {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(id)))
		b = append(b, id...)
		d := a.digest(id)
		b = append(b, d[:]...)
	}
	k := sha256.Sum256(b)
	*buf = b
	answerBufs.Put(buf)
	return k
}

var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// same reports whether the registry answers b's questions as it did when b
// was built.
func (a *ownerAnswers) same(b *builtUnit) bool {
	return a.hash(b.asked) == b.answers
}

// idList is a list of ids packed in one string, each after its length as
// a uvarint. A unit holds its list for as long as it is kept, one per unit
// of the tree: packed, the list is one allocation the collector need not
// scan, where a []string is a header to scan for every id.
type idList string

// newIDList packs ids, in order.
func newIDList(ids []string) idList {
	var scratch [binary.MaxVarintLen64]byte
	n := 0
	for _, id := range ids {
		n += len(binary.AppendUvarint(scratch[:0], uint64(len(id)))) + len(id)
	}
	var b strings.Builder
	b.Grow(n)
	for _, id := range ids {
		b.Write(binary.AppendUvarint(scratch[:0], uint64(len(id))))
		b.WriteString(id)
	}
	return idList(b.String())
}

// holds reports whether l is ids, in order.
func (l idList) holds(ids []string) bool {
	i := 0
	for id := range l.all() {
		if i == len(ids) || ids[i] != id {
			return false
		}
		i++
	}
	return i == len(ids)
}

// all yields the ids in order, each a substring of l.
func (l idList) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		for rest := string(l); rest != ""; {
			n, w := uvarint.Decode(rest)
			id := rest[w : w+int(n)]
			rest = rest[w+int(n):]
			if !yield(id) {
				return
			}
		}
	}
}

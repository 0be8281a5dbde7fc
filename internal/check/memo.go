package check

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"maps"
	"slices"
	"sync"

	"github.com/celine-eu/governanced/internal/owners"
)

// Memo carries what one check found out about each unit to the next check of
// the same tree (Options.Memo). A server reloading a 100 000-source tree of
// which one file changed then re-reads every file, but parses, checks and
// materialises only the units whose bytes changed: the rest of the report is
// what the previous check found for exactly the same bytes.
//
// A unit is reused only when everything it was made from is the same: its
// base and its overlay candidates (paths, display paths and contents, byte
// for byte), what every unit shares (the placeholder map in use,
// Options.Dataspace, whether a registry was built), and the registry's
// answer to every question the unit asked it (the owner entries it looked
// up, in full: what they say, not where). A new owner,
// or a changed one no unit names, reloads no app. A unit one of whose files
// another unit also reads (an overlay-directory overlay claimed by two
// bases) is always checked afresh, as the findings about a shared file are
// reported once for all its units. Every check replaces the memo's contents
// with its own units, so a memo holds one tree's units, never a history.
//
// A Memo may be shared by checks that run one after the other or at once.
type Memo struct {
	mu     sync.Mutex
	units  map[[32]byte]*memoUnit
	reused int
	built  int
}

// NewMemo returns an empty memo: the first check that uses it checks every
// unit.
func NewMemo() *Memo { return &Memo{units: map[[32]byte]*memoUnit{}} }

// Fork returns a memo holding the same units, for a check whose result the
// caller may throw away: this memo is left as it is whatever the fork's check
// does.
func (m *Memo) Fork() *Memo {
	m.mu.Lock()
	defer m.mu.Unlock()
	// replace never writes into a map it did not make, so the two can share one.
	return &Memo{units: m.units}
}

// Stats reports how many units the last check that used the memo took from
// it and how many it checked afresh (shared files included).
func (m *Memo) Stats() (reused, checked int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reused, m.built
}

func (m *Memo) get(k [32]byte) *memoUnit {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.units[k]
}

// replace makes the memo hold exactly the units of the check that just ran.
func (m *Memo) replace(jobs []unitJob) {
	next := make(map[[32]byte]*memoUnit, len(jobs))
	reused, built := 0, 0
	for i := range jobs {
		j := &jobs[i]
		if j.u.Reused {
			reused++
		} else {
			built++
		}
		if j.memo != nil {
			next[j.memoKey] = j.memo
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.units, m.reused, m.built = next, reused, built
}

// memoUnit is one unit's part of a check: everything units() puts into the
// report for it, and what Options.OnUnit attached.
type memoUnit struct {
	files                       []memoFile // the base, then its candidates, in unitJob order
	ownersAsked                 []string   // the ids the unit asked the registry for
	ownersAnswers               [32]byte   // the hash of the registry's answers to them
	parsedOverlay, parseSkipped bool
	post                        []Finding
	datasets, offers            int
	unit                        Unit // without documents
}

// memoFile is what the report needs of one file's load and parse. Not the
// parsed configuration: a reused unit is not materialised again, and
// keeping every file's own parse beside the merged one would hold a second
// copy of most of the tree.
type memoFile struct {
	loaded   []Finding
	hasError bool
	parseErr *Finding
}

// writeField writes b with its length first, so that no two sequences of
// fields hash alike.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// sharedKey is the hash of what every unit reads besides its own files and
// the registry's answers, once the registry is loaded: --dataspace, whether
// there is a registry, and the placeholder map the names are resolved with
// (the map itself, whether it came from a file or from the caller: a comment
// in the file changes nothing a unit reads).
func (c *checker) sharedKey() [32]byte {
	h := sha256.New()
	if c.opts.Dataspace {
		writeField(h, []byte("dataspace"))
	}
	if c.registry != nil {
		writeField(h, []byte("registry"))
	}
	if c.placeholders != nil {
		writeField(h, []byte("placeholders"))
		for _, k := range slices.Sorted(maps.Keys(c.placeholders)) {
			writeField(h, []byte(k))
			writeField(h, []byte(c.placeholders[k]))
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// files is the unit's base, then its overlay candidates.
func (j *unitJob) files() []*govFile {
	return append([]*govFile{j.b}, j.cands...)
}

// unitKey reads the unit's files (keeping the bytes for their load) and
// hashes them under the shared key.
func unitKey(shared [32]byte, j *unitJob, work map[*govFile]*fileWork) [32]byte {
	h := sha256.New()
	h.Write(shared[:])
	for _, f := range j.files() {
		w := work[f]
		w.read()
		kind := "base"
		if f.overlay {
			kind = "overlay"
		}
		writeField(h, []byte(kind))
		writeField(h, []byte(f.display))
		writeField(h, []byte(f.path))
		if w.readErr != nil {
			writeField(h, []byte("error: "+w.readErr.Error()))
		} else {
			writeField(h, w.data)
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// ownersView is the registry as one unit sees it: every id it asks for is
// noted, so that the next check can ask a changed registry the same
// questions (ownerAnswers.hash) and reuse the unit only if every answer is the
// same. The unit's work is a function of its files, the shared inputs and
// these answers, and each question it asks depends only on those and the
// answers before it: the same answers mean the same questions and the same
// result.
//
// An answer is what the entry says (Entry.Unplaced), not where it says it: a
// line added above the entries moves them all and rebuilds nothing. The view
// hands out the unplaced copy, so a unit cannot read the position the digest
// leaves out.
//
// The registry is the same for every question of one check, so an id asked
// twice is noted once.
type ownersView struct {
	registry *owners.Registry
	asked    []string
	answers  map[string]*owners.Entry // nil for an id the registry does not know
}

func (v *ownersView) ByID(key string) *owners.Entry {
	if e, ok := v.answers[key]; ok {
		return e
	}
	if v.answers == nil {
		v.answers = map[string]*owners.Entry{}
	}
	var e *owners.Entry
	if found := v.registry.ByID(key); found != nil {
		e = found.Unplaced()
	}
	v.answers[key] = e
	v.asked = append(v.asked, key)
	return e
}

// ownerAnswers digests the registry's answer to each id once per check:
// a hundred units asking after the same twenty owners hash twenty entries.
type ownerAnswers struct {
	registry *owners.Registry
	mu       sync.Mutex
	digests  map[string][32]byte
}

// digest is the registry's answer to id: the entry in full, as GET /owners
// shows it (which is what it says, never where), or that there is none.
func (a *ownerAnswers) digest(id string) [32]byte {
	a.mu.Lock()
	d, ok := a.digests[id]
	a.mu.Unlock()
	if ok {
		return d
	}
	h := sha256.New()
	if e := a.registry.ByID(id); e != nil {
		b, err := e.MarshalJSON()
		if err != nil {
			b = []byte("unencodable: " + err.Error()) // never equal to an encoded entry
		}
		writeField(h, b)
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

// hash is the digest of the answers to every id asked, in order.
func (a *ownerAnswers) hash(asked []string) [32]byte {
	h := sha256.New()
	for _, id := range asked {
		writeField(h, []byte(id))
		d := a.digest(id)
		h.Write(d[:])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// reusable reports whether a remembered unit still holds: the registry, if
// any, answers its questions as it did.
func (c *checker) reusable(m *memoUnit) bool {
	if c.answers == nil {
		return len(m.ownersAsked) == 0 // nothing was asked: the shared key says there was no registry either
	}
	return c.answers.hash(m.ownersAsked) == m.ownersAnswers
}

// reuse puts a remembered unit into the check in place of loading, parsing
// and materialising it: the same state unit() leaves behind for the same bytes.
func (c *checker) reuse(j *unitJob, work map[*govFile]*fileWork, m *memoUnit) {
	for i, f := range j.files() {
		w, mf := work[f], m.files[i]
		w.load.Do(func() { w.loaded, w.data = mf.loaded, nil })
		f.hasError = mf.hasError
		w.parseErr = mf.parseErr // nil for a file the unit never parsed
	}
	c.pair(j)
	j.parsedOverlay, j.parseSkipped = m.parsedOverlay, m.parseSkipped
	j.post, j.datasets, j.offers = m.post, m.datasets, m.offers
	j.u = m.unit
	j.u.Reused = true
	j.memo = m
	if j.u.Materialized && c.opts.OnUnit != nil {
		c.opts.OnUnit(&j.u)
		j.u.BaseRoot, j.u.OverlayRoot = nil, nil
	}
}

// remember records a unit just checked, for the next check.
func (c *checker) remember(j *unitJob, work map[*govFile]*fileWork) {
	m := &memoUnit{parsedOverlay: j.parsedOverlay, parseSkipped: j.parseSkipped,
		post: j.post, datasets: j.datasets, offers: j.offers, unit: j.u, ownersAsked: j.ownersAsked}
	if c.answers != nil {
		m.ownersAnswers = c.answers.hash(j.ownersAsked)
	}
	m.unit.BaseRoot, m.unit.OverlayRoot = nil, nil
	for _, f := range j.files() {
		w := work[f]
		m.files = append(m.files, memoFile{loaded: w.loaded, hasError: f.hasError,
			parseErr: w.parseErr})
	}
	j.memo = m
}

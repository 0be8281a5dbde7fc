package snapshot

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/celine-eu/governanced/internal/check"
)

// Loader builds snapshots from a fixed set of inputs.
type Loader struct {
	Inputs Inputs
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Rejection is a revision whose check found errors: it is never served.
type Rejection struct {
	Revision string
	Report   []byte   // the check report JSON
	Problems []string // the error findings, one line each: "file:line:col: code: message"
	Full     *check.Report
}

func (r *Rejection) Error() string {
	if len(r.Problems) == 0 {
		return "the tree check failed"
	}
	msg := r.Problems[0]
	if n := len(r.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return "the tree check failed: " + msg
}

// ErrInputsChanged is a build whose inputs kept changing while it read them;
// the change that caused it will trigger the next reload.
var ErrInputsChanged = errors.New("the inputs changed while they were being loaded")

// maxAttempts bounds how often a build restarts because a file changed under it.
const maxAttempts = 3

// Fingerprint hashes the inputs without building anything: the revision a
// build would have.
func (l *Loader) Fingerprint() (string, []InputFile, error) { return l.Inputs.fingerprint() }

// Build runs the tree check over the inputs and, when it passes, assembles a
// snapshot from exactly the units it checked. A failing check is a
// *Rejection. The inputs are hashed before and after, so the revision always
// names the bytes that were checked.
func (l *Loader) Build() (*Snapshot, error) { return l.build(runtime.GOMAXPROCS(0), nil) }

// build is Build on up to workers goroutines, reusing the units of memo
// (when not nil) whose bytes did not change.
func (l *Loader) build(workers int, memo *check.Memo) (*Snapshot, error) {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	for range maxAttempts {
		rev, files, err := l.Inputs.fingerprint()
		if err != nil {
			return nil, err
		}
		if err := l.Inputs.readable(); err != nil {
			return nil, err // integrity.go: never serve a tree missing what it cannot read
		}
		c, err := runCheck(l.Inputs, workers, memo)
		if err != nil {
			return nil, err
		}
		after, _, err := l.Inputs.fingerprint()
		if err != nil {
			return nil, err
		}
		if after != rev {
			continue
		}
		if !c.ok {
			return nil, &Rejection{Revision: rev, Report: c.report, Problems: c.problems, Full: c.full}
		}
		return build(rev, files, c, now())
	}
	return nil, ErrInputsChanged
}

// Store holds the snapshot being served and what the last reload did.
type Store struct {
	loader *Loader
	cur    atomic.Pointer[Snapshot]
	// memo carries each unit's check and app from the last activated build
	// to the next: a reload checks and encodes only the units whose inputs
	// changed. A rejected or failed build works on a fork that is then
	// dropped, so the apps of a tree that is never served are not kept.
	memo *check.Memo

	mu          sync.Mutex    // one reload at a time
	fullSpeed   time.Duration // how long the first load took, on every processor
	lastTried   string        // the revision the last completed reload examined
	last        atomic.Pointer[ReloadStatus]
	okCount     atomic.Uint64
	failCount   atomic.Uint64
	lastSuccess atomic.Pointer[time.Time]
}

// NewStore returns an empty store: Current is nil until the first Reload
// succeeds.
func NewStore(l *Loader) *Store { return &Store{loader: l, memo: check.NewMemo()} }

// Current is the snapshot being served, or nil before the first successful load.
func (s *Store) Current() *Snapshot { return s.cur.Load() }

// Outcome says what a reload did.
type Outcome int

const (
	Activated Outcome = iota // a new revision is being served
	Unchanged                // the inputs hash as the last reload saw them: nothing to do
	Rejected                 // the check failed: the previous snapshot keeps serving
	Failed                   // the inputs could not be read or assembled
)

func (o Outcome) String() string {
	return [...]string{"activated", "unchanged", "rejected", "failed"}[o]
}

// ReloadStatus is the last reload's result as /status reports it.
type ReloadStatus struct {
	Outcome  Outcome
	At       time.Time
	Revision string // the revision examined ("" when the inputs could not be hashed)
	Previous string // the revision served before
	Duration time.Duration
	// Units the build took unchanged from the previous one, and units it
	// checked and built afresh; both 0 when nothing was built.
	UnitsReused, UnitsBuilt int
	Err                     error      // nil unless Rejected or Failed
	Rejected                *Rejection // the failed check, when Rejected
}

// OK reports whether the reload left the tree as the inputs say it is.
func (r *ReloadStatus) OK() bool { return r.Outcome == Activated || r.Outcome == Unchanged }

// Reload rebuilds the snapshot when the inputs changed (always when force) and
// swaps it in when its check passes. It never removes the snapshot being
// served.
func (s *Store) Reload(force bool) *ReloadStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now
	if s.loader.Now != nil {
		now = s.loader.Now
	}
	start := now()
	st := &ReloadStatus{At: start}
	if cur := s.cur.Load(); cur != nil {
		st.Previous = cur.Revision
	}
	defer func() {
		st.Duration = now().Sub(start)
		s.last.Store(st)
	}()

	if !force && s.lastTried != "" {
		if rev, _, err := s.loader.Fingerprint(); err == nil && rev == s.lastTried {
			st.Outcome, st.Revision = Unchanged, rev
			if prev := s.last.Load(); prev != nil && !prev.OK() {
				// Still the rejected inputs: keep reporting why.
				st.Outcome, st.Err, st.Rejected = prev.Outcome, prev.Err, prev.Rejected
			}
			return st
		}
	}
	var snap *Snapshot
	var err error
	memo := s.memo.Fork()
	if st.Previous == "" {
		// Nothing is served yet: the first load uses every processor.
		t0 := time.Now()
		snap, err = s.loader.build(runtime.GOMAXPROCS(0), memo)
		s.fullSpeed = time.Since(t0)
	} else {
		// Readers are being served: the build runs on one thread at a lower
		// priority, so a reload takes longer but the answers hardly slow
		// down (docs/performance.md). A build long enough to matter to the
		// readers has a processor of its own for up to four times what the
		// first load took (on one thread a build takes about 1.6 times as
		// long as on two); a short one only waits for it, so it gets none.
		lendFor := 4 * s.fullSpeed
		if lendFor < time.Second {
			lendFor = 0
		}
		// Two snapshots are live until the swap: collect more often
		// meanwhile, so that the reload's peak stays under twice the
		// steady memory (gcpace.go), and once more before the pace goes
		// back, below.
		done := collectOften()
		defer done()
		runNiced(lendFor, func() { snap, err = s.loader.build(1, memo) })
	}
	var rej *Rejection
	if err == nil || errors.As(err, &rej) {
		st.UnitsReused, st.UnitsBuilt = memo.Stats()
	}
	switch {
	case errors.As(err, &rej):
		st.Outcome, st.Revision, st.Err, st.Rejected = Rejected, rej.Revision, err, rej
		s.lastTried = rej.Revision
		s.failCount.Add(1)
	case err != nil:
		st.Outcome, st.Err = Failed, err
		s.lastTried = ""
		s.failCount.Add(1)
	default:
		st.Outcome, st.Revision = Activated, snap.Revision
		s.lastTried = snap.Revision
		s.memo = memo
		s.cur.Store(snap)
		s.okCount.Add(1)
		t := snap.LoadedAt
		s.lastSuccess.Store(&t)
	}
	if st.Previous != "" && rebuiltMuch(st) {
		// What the old snapshot, or the rejected build, held is garbage
		// now. Collected at the reload's pace, it is gone before the
		// collector lets the heap grow to twice a live set that still
		// counted it: left to the next collection at the normal pace,
		// that growth was the reload's peak.
		runtime.GC()
	}
	return st
}

// rebuiltMuch reports whether a reload built a quarter of the units or more:
// enough that what the old snapshot alone held is worth a collection of its
// own. A reload that changed one app of many, or nothing (SIGHUP), leaves
// garbage the normal pace handles; a full collection for it was a heap's
// worth of marking for a few megabytes.
func rebuiltMuch(st *ReloadStatus) bool {
	return st.UnitsBuilt > 0 && 4*st.UnitsBuilt >= st.UnitsBuilt+st.UnitsReused
}

// LastReload is the last reload's status, or nil before the first.
func (s *Store) LastReload() *ReloadStatus { return s.last.Load() }

// Stats are the reload counters the metrics export.
type Stats struct {
	OK, Failed  uint64
	LastSuccess time.Time // zero before the first success
}

// Stats returns the reload counters.
func (s *Store) Stats() Stats {
	st := Stats{OK: s.okCount.Load(), Failed: s.failCount.Load()}
	if t := s.lastSuccess.Load(); t != nil {
		st.LastSuccess = *t
	}
	return st
}

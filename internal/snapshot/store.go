package snapshot

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/celine-eu/governanced/internal/check"
)

// Revision reads the inputs and hashes them without building anything: the
// revision a build would have.
func (l *Loader) Revision(ctx context.Context) (string, []InputFile, error) {
	r, err := l.read(ctx, nil, nil, nil)
	if err != nil {
		return "", nil, err
	}
	r.close()
	return r.revision, r.files, nil
}

// StoreOptions tune how a store reloads; the zero value is a store that
// reloads on every processor, on the caller's goroutine.
type StoreOptions struct {
	// Workers bounds how many units a reload checks at once while a tree is
	// being served; 0 is every processor. The first load always uses every
	// processor: nobody is being served yet.
	Workers int
	// Run runs a reload's build (the check and assembly of the units that
	// changed) while a tree is being served; nil runs it on the calling
	// goroutine. A server passes one that lowers the build's priority, so
	// readers hardly slow down while it runs.
	Run func(build func())
	// IsolateApps holds the apps whose own files fail the check at their
	// last good build (or leaves them out when they have none) and serves
	// the rest, instead of rejecting the reload (hold.go). A failing
	// finding about anything else still rejects it.
	IsolateApps bool
}

// Store holds the snapshot being served and what the last reload did.
type Store struct {
	loader *Loader
	opts   StoreOptions
	// cur is the last activated build: the snapshot being served and the
	// units the next build (a reload, a tree checked beside it) may reuse.
	// A rejected or failed build leaves it as it is, so the apps of a tree
	// that is never served are not kept.
	cur atomic.Pointer[generation]

	mu sync.Mutex // one reload at a time
	// digests are the files of the last reading, whatever its outcome:
	// a file whose identity did not change is not hashed again, nor read
	// unless a unit holding it is checked again.
	digests digests
	// registry is what the last reading made of the owners files and the
	// placeholder map: the next parses them only when their bytes changed.
	registry    *check.RegistryBuild
	lastTried   string // the revision the last completed reload examined
	last        atomic.Pointer[ReloadStatus]
	running     atomic.Pointer[time.Time] // when the reload under way started; nil when none
	activated   notifier                  // closes its channel when a new snapshot is served
	reloaded    notifier                  // closes its channel when a reload ends, whatever it did
	reloads     atomic.Uint64             // reloads ended, a sequence for /events
	okCount     atomic.Uint64
	failCount   atomic.Uint64
	lastSuccess atomic.Pointer[time.Time]
	// sources are where the served content was last read from: set when
	// a reading is served, and when a reading finds the served content
	// again (a commit that changed no input).
	sources atomic.Pointer[[]Source]
}

// NewStore returns an empty store: Current is nil until the first Reload
// succeeds.
func NewStore(l *Loader) *Store { return NewStoreWith(l, StoreOptions{}) }

// NewStoreWith is NewStore with options.
func NewStoreWith(l *Loader, opts StoreOptions) *Store {
	return &Store{loader: l, opts: opts}
}

// Current is the snapshot being served, or nil before the first successful load.
func (s *Store) Current() *Snapshot {
	if g := s.cur.Load(); g != nil {
		return g.snap
	}
	return nil
}

// Serving is what is being served, from one generation: the snapshot
// (nil before the first load), the apps it holds at their last good build
// (StoreOptions.IsolateApps), and the state directory's revision it was
// restored from (nil unless Restore put it there).
func (s *Store) Serving() (snap *Snapshot, held []HeldApp, persisted *Persisted) {
	if g := s.cur.Load(); g != nil {
		return g.snap, g.held, g.persisted
	}
	return nil, nil, nil
}

// Outcome says what a reload did.
type Outcome int

const (
	Activated Outcome = iota // a new revision is being served
	Unchanged                // the inputs hash as the last reload saw them: nothing to do
	Rejected                 // the check failed: the previous snapshot keeps serving
	Failed                   // the inputs could not be read or assembled
	// Held: the check failed in some apps' own files only; they are held
	// at their last good build (or left out) and the rest is served
	// (StoreOptions.IsolateApps). The revision served may be new.
	Held
)

func (o Outcome) String() string {
	return [...]string{"activated", "unchanged", "rejected", "failed", "held"}[o]
}

// ReloadStatus is the last reload's result as /status reports it.
type ReloadStatus struct {
	Outcome  Outcome
	At       time.Time
	Revision string // the revision examined ("" when the inputs could not be read); Served says what is served
	Previous string // the revision served before
	Duration time.Duration
	// Units the build took unchanged from the previous one, and units it
	// built afresh; both 0 when nothing was built. Of the units built,
	// UnitsResolved were not checked again, their files being the same:
	// only their ownership names were resolved against the registry again.
	UnitsReused, UnitsBuilt, UnitsResolved int
	Err                                    error      // nil unless Rejected or Failed
	Rejected                               *Rejection // the failed check, when Rejected, and when Held (the whole tree's)
	Seq                                    uint64     // the reload's number, from 1
	// What is served after the reload, whatever it did: its revision (""
	// when nothing is), the apps it holds (Held), and the state
	// directory's revision it was restored from (Store.Restore).
	Served    string
	Held      []HeldApp
	Persisted *Persisted
}

// OK reports whether the reload left the tree as the inputs say it is.
func (r *ReloadStatus) OK() bool { return r.Outcome == Activated || r.Outcome == Unchanged }

// Reload reads the inputs and, when they changed (always when force),
// builds a snapshot of them and swaps it in if its check passes. Units
// whose inputs did not change are taken from the snapshot being served. It
// never removes the snapshot being served; when ctx ends first the reload
// fails and the next one starts afresh.
func (s *Store) Reload(ctx context.Context, force bool) *ReloadStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.loader.now()
	s.running.Store(&start)
	defer s.running.Store(nil)
	st := &ReloadStatus{At: start}
	cur := s.cur.Load()
	if cur != nil {
		st.Previous = cur.snap.Revision
	}
	defer func() {
		st.Duration = s.loader.now().Sub(start)
		s.finish(st, cur)
	}()

	var known units
	if cur != nil {
		known = cur.units
	}
	r, err := s.loader.read(ctx, s.digests, known, s.registry)
	if err != nil {
		s.fail(st, err)
		return st
	}
	defer r.close()
	s.digests, s.registry = r.digests, r.plan.RegistryBuild
	if !force && r.revision == s.lastTried {
		st.Outcome, st.Revision = Unchanged, r.revision
		if cur != nil && cur.snap.Revision == r.revision {
			s.storeSources(r.sources)
		}
		if prev := s.last.Load(); prev != nil && !prev.OK() {
			// Still the rejected inputs: keep reporting why.
			st.Outcome, st.Revision, st.Err, st.Rejected = prev.Outcome, prev.Revision, prev.Err, prev.Rejected
			st.UnitsReused, st.UnitsBuilt, st.UnitsResolved = 0, 0, 0
		}
		return st
	}
	workers := runtime.GOMAXPROCS(0)
	if cur != nil && s.opts.Workers > 0 {
		workers = s.opts.Workers
	}
	var g *generation
	build := func() { g, err = s.loader.build(ctx, r, cur, workers, s.opts.IsolateApps) }
	if cur != nil && s.opts.Run != nil {
		s.opts.Run(build)
	} else {
		build()
	}
	var rej *Rejection
	switch {
	case errors.As(err, &rej):
		st.Outcome, st.Revision, st.Err, st.Rejected = Rejected, rej.Revision, err, rej
		st.setCounts(rej.counts)
		s.lastTried = rej.Revision
		s.failCount.Add(1)
	case err != nil:
		s.fail(st, err)
	case g.held != nil:
		// Some apps held: the reading's revision is rejected, and the
		// one served (st.Served) is the tree with their last good files.
		st.Outcome, st.Revision, st.Rejected = Held, r.revision, g.rejected
		st.setCounts(g.rejected.counts)
		s.lastTried = r.revision
		s.cur.Store(g)
		s.storeSources(r.sources)
		s.failCount.Add(1)
	default:
		st.Outcome, st.Revision = Activated, g.snap.Revision
		st.setCounts(g.snap.counts)
		s.lastTried = g.snap.Revision
		s.cur.Store(g)
		s.storeSources(r.sources)
		s.okCount.Add(1)
	}
	return st
}

// finish records st, which started while before was served, as the last
// reload's status, with what is served now, and wakes whoever waits for it.
func (s *Store) finish(st *ReloadStatus, before *generation) {
	after := s.cur.Load()
	if after != nil {
		st.Served, st.Held, st.Persisted = after.snap.Revision, after.held, after.persisted
	}
	swapped := after != nil && (before == nil || before.snap != after.snap)
	if swapped {
		t := after.snap.LoadedAt
		s.lastSuccess.Store(&t)
	}
	st.Seq = s.reloads.Add(1)
	s.last.Store(st)
	if swapped {
		s.activated.notify()
	}
	s.reloaded.notify()
}

// storeSources keeps a reading's sources. Their own copy of the list: a
// pointer into the reading would keep all of it (its plan, the builds it
// started from) alive until the next reading.
func (s *Store) storeSources(src []Source) { s.sources.Store(&src) }

func (st *ReloadStatus) setCounts(c reuseCounts) {
	st.UnitsReused, st.UnitsBuilt, st.UnitsResolved = c.reused, c.built, c.resolved
}

func (s *Store) fail(st *ReloadStatus, err error) {
	st.Outcome, st.Err = Failed, err
	s.lastTried = ""
	s.failCount.Add(1)
}

// Changed returns a channel closed when the next revision is served: a
// request waiting for a change takes it before looking at Current, so a
// swap in between is never missed.
func (s *Store) Changed() <-chan struct{} { return s.activated.wait() }

// Reloaded returns a channel closed when the next reload ends, whatever it
// did.
func (s *Store) Reloaded() <-chan struct{} { return s.reloaded.wait() }

// notifier wakes every waiter at once; a waiter that is slow to look never
// holds the notifying reload back.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}

// Rescan is Reload that trusts no file's identity: every input is hashed
// again, for the periodic rescan that catches what file events missed.
func (s *Store) Rescan(ctx context.Context) *ReloadStatus {
	s.mu.Lock()
	s.digests, s.registry = nil, nil
	s.mu.Unlock()
	return s.Reload(ctx, false)
}

// Reloading reports when the reload under way started, and false when none
// is.
func (s *Store) Reloading() (time.Time, bool) {
	if t := s.running.Load(); t != nil {
		return *t, true
	}
	return time.Time{}, false
}

// Sources are where the served content was last read from, one per tree:
// nil before the first load and for a store that reads no files of the
// operating system.
func (s *Store) Sources() []Source {
	if p := s.sources.Load(); p != nil {
		return *p
	}
	return nil
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

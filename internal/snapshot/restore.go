package snapshot

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// Persisted is a revision a state directory kept (internal/state), served
// in place of a tree the server must reject.
type Persisted struct {
	Revision string
	SavedAt  time.Time // when the server that served it saved it
}

// errNotRead is the status of a store restored before it read its inputs.
var errNotRead = errors.New("the inputs were not read yet")

// Restore serves the tree from reads (a revision a state directory kept,
// laid out as InputTree.Loader reads it), built afresh on every processor,
// when its check passes and its revision is p's; otherwise it returns why
// and leaves the store as it was. What the store's own inputs last did
// stays the last reload's outcome (a tree that was rejected is still
// rejected), and the next reload starts from the restored build: units
// whose files are the same are reused, and with IsolateApps an app whose
// files fail is held at its build from there.
func (s *Store) Restore(ctx context.Context, from *Loader, p Persisted) (*ReloadStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.loader.now()
	r, err := from.read(ctx, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	defer r.close()
	g, err := from.build(ctx, r, nil, runtime.GOMAXPROCS(0), false)
	if err != nil {
		return nil, err
	}
	if g.snap.Revision != p.Revision {
		return nil, fmt.Errorf("the persisted revision %s builds as %s: its files or options are not those it was saved with", p.Revision, g.snap.Revision)
	}
	g.persisted = &p
	// Its files are the state directory's: the snapshot does not read
	// them again, nor keep them.
	g.snap.source = inputSource{}
	cur := s.cur.Load()
	st := &ReloadStatus{At: start, Outcome: Failed, Err: errNotRead}
	if last := s.last.Load(); last != nil {
		st.Outcome, st.Revision, st.Err, st.Rejected = last.Outcome, last.Revision, last.Err, last.Rejected
	}
	if cur != nil {
		st.Previous = cur.snap.Revision
	}
	s.cur.Store(g)
	st.Duration = s.loader.now().Sub(start)
	s.finish(st, cur)
	return st, nil
}

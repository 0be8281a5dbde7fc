package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/state"
)

// keeper keeps every revision the server serves in its state directory
// (--state-dir), off the reload's path: a reload offers what it serves,
// and one goroutine saves the latest offer. A server that starts on a tree
// it must reject restores the newest revision kept there.
type keeper struct {
	dir    *state.Dir
	config string // the configuration the server was started with (state.Config)
	log    zerolog.Logger

	mu      sync.Mutex
	next    *snapshot.Snapshot // the offer not yet taken
	offered string             // the revision offered last
	wake    chan struct{}
	stopped chan struct{}
}

// openKeeper opens dir for a server started with inputs; a directory that
// cannot be used is logged and ignored (nil): the server serves as it
// would without one.
func openKeeper(dir string, inputs snapshot.Inputs, log zerolog.Logger) *keeper {
	log = log.With().Str("state_dir", dir).Logger()
	d, err := state.Open(dir, state.Keep)
	if err != nil {
		log.Warn().Err(err).Msg("the state directory is ignored: no revision is kept, and none restored")
		return nil
	}
	config, err := state.Config(inputs)
	if err != nil {
		log.Warn().Err(err).Msg("the state directory is ignored: no revision is kept, and none restored")
		return nil
	}
	return &keeper{dir: d, config: config, log: log, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// restore serves the newest revision the directory keeps for the server's
// configuration whose files are intact and whose check passes, and
// reports whether it found one. why is why the tree was not served.
func (k *keeper) restore(ctx context.Context, store *snapshot.Store, why error) bool {
	revs, problems, err := k.dir.List(k.config)
	if err != nil {
		k.log.Warn().Err(err).Msg("the state directory cannot be read: no revision is restored")
		return false
	}
	for _, p := range problems {
		k.log.Warn().Str("manifest", p.Name).Err(p.Err).Msg("a revision the state directory keeps is passed over")
	}
	for _, r := range revs {
		fsys, err := k.dir.Load(r)
		if err != nil {
			k.log.Warn().Str("revision", r.Revision).Err(err).Msg("a revision the state directory keeps is passed over")
			continue
		}
		var in snapshot.Inputs
		dec := json.NewDecoder(bytes.NewReader(r.Options))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			k.log.Warn().Str("revision", r.Revision).Err(err).Msg("a revision the state directory keeps is passed over: its options are not this server's")
			continue
		}
		loader := snapshot.InputTree{Inputs: in}.Loader(fsys)
		if _, err := store.Restore(ctx, loader, snapshot.Persisted{Revision: r.Revision, SavedAt: r.SavedAt}); err != nil {
			k.log.Warn().Str("revision", r.Revision).Err(err).Msg("a revision the state directory keeps is passed over")
			continue
		}
		k.mu.Lock()
		k.offered = r.Revision // kept already
		k.mu.Unlock()
		ev := k.log.Warn().Str("revision", r.Revision).Time("saved_at", r.SavedAt)
		if why != nil {
			ev = ev.AnErr("tree_error", why)
		}
		ev.Msg("serving the revision the state directory keeps: the tree on disk cannot be served; /status says why")
		return true
	}
	return false
}

// offer asks for what is served (Store.Serving) to be kept, unless it is
// kept already.
func (k *keeper) offer(snap *snapshot.Snapshot, _ []snapshot.HeldApp, persisted *snapshot.Persisted) {
	if k == nil || snap == nil || persisted != nil {
		return
	}
	k.mu.Lock()
	if snap.Revision == k.offered {
		k.mu.Unlock()
		return
	}
	k.next, k.offered = snap, snap.Revision
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// run saves what is offered until ctx ends, and then what was offered
// last. Saves run on a context that ends grace after ctx does: a save
// under way when the server is asked to stop finishes as the last one
// would, rather than being cut short with its revision already taken.
func (k *keeper) run(ctx context.Context, grace time.Duration) {
	defer close(k.stopped)
	saving, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stopTimer := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	defer stopTimer()
	save := func() {
		k.mu.Lock()
		snap := k.next
		k.next = nil
		k.mu.Unlock()
		if snap != nil {
			k.save(saving, snap)
		}
	}
	for {
		select {
		case <-k.wake:
			save()
		case <-ctx.Done():
			save()
			return
		}
	}
}

func (k *keeper) save(ctx context.Context, snap *snapshot.Snapshot) {
	tree := snap.InputTree()
	opts, err := json.Marshal(tree.Inputs)
	if err == nil {
		rev := state.Revision{Revision: snap.Revision, SavedAt: time.Now(), Options: opts, Dirs: tree.Dirs}
		for _, f := range tree.Files {
			rev.Files = append(rev.Files, state.File{Path: f.Path, SHA256: f.SHA256})
		}
		start := time.Now()
		var saved state.Saved
		if saved, err = k.dir.Save(ctx, k.config, rev, snap.ReadInput); err == nil {
			k.log.Info().Str("revision", snap.Revision).Int("files_written", saved.Objects).Int("revisions_pruned", saved.Pruned).
				Float64("duration_ms", float64(time.Since(start).Microseconds())/1000).Msg("revision kept in the state directory")
			return
		}
	}
	ev := k.log.Warn().Str("revision", snap.Revision).Err(err)
	if errors.Is(err, snapshot.ErrInputsChanged) {
		// The next reload, which the change brings, offers its revision.
		ev.Msg("revision not kept in the state directory: an input changed since it was read")
		return
	}
	ev.Msg("revision not kept in the state directory")
}

// servesItsFiles reports whether the reload st left the tree served as its
// files say, but for apps held at a version they had: nothing a kept
// revision could serve better.
func servesItsFiles(st *snapshot.ReloadStatus) bool {
	switch st.Outcome {
	case snapshot.Activated:
		return true
	case snapshot.Held:
		for _, h := range st.Held {
			if h.Served == nil {
				return false
			}
		}
		return true
	}
	return false
}

// wait waits for run to end.
func (k *keeper) wait() {
	if k != nil {
		<-k.stopped
	}
}

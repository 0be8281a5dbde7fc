package api

import (
	"bytes"
	"sync/atomic"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// ruleParts gives the part of a dataset's rule body that does not name the
// request (ruleAndExposure) and keeps the parts of the datasets read, within
// a budget of bytes (Limits.MaxKeptRuleBytes): a service reads the same
// datasets again and again, and a part kept is copied, not encoded again.
// Kept for every dataset of a large tree read once, the parts would hold
// more than the tree's YAML (a kilobyte a dataset, its title and description
// among it), so what is kept is bounded: when the parts kept pass the
// budget, the hand of a clock (snapshot.App.SweepMemos) forgets the ones not
// read since it last passed until a quarter of the budget is free, and a
// part forgotten is encoded again when next read.
//
// A nil *ruleParts encodes every part afresh and keeps none: for a command
// that answers once.
type ruleParts struct {
	store  *snapshot.Store
	budget int64
	// held counts the bytes of the parts kept: what the last sweep counted
	// plus every part kept since. Parts of apps no longer served are freed
	// with them, so it may count more than is held, never less: a sweep
	// counts again.
	held      atomic.Int64
	forgotten atomic.Uint64 // bytes of the parts forgotten, for /metrics
	sweeping  atomic.Bool   // one sweep at a time, which alone moves the hand
	// The hand: the app (in the served snapshot's order) and the position
	// in it where the next sweep starts.
	handApp, handAt int
}

func newRuleParts(store *snapshot.Store, budget int64) *ruleParts {
	return &ruleParts{store: store, budget: budget}
}

// write writes d's rule part to buf: kept, or encoded (and kept, within
// the budget).
func (k *ruleParts) write(buf *bytes.Buffer, d *snapshot.Dataset) {
	if k == nil {
		appendRulePart(buf, d)
		return
	}
	buf.Write(k.of(d))
}

// of is d's rule part: kept, or encoded and kept, within the budget.
func (k *ruleParts) of(d *snapshot.Dataset) []byte {
	part, made := d.Memo(ruleAndExposure)
	if made && k.held.Add(int64(len(part))) > k.budget && k.sweeping.CompareAndSwap(false, true) {
		// The reader that passed the budget sweeps (a walk of the served
		// snapshot's tables of kept parts, once every quarter budget of
		// parts kept); the others go on meanwhile.
		defer k.sweeping.Store(false)
		k.sweep()
	}
	return part
}

// sweep counts the parts the served snapshot keeps and, when they pass the
// budget, moves the hand until they hold three quarters of it: two turns
// at the most, as the first may find every part read and only mark it.
func (k *ruleParts) sweep() {
	before := k.held.Load()
	snap := k.store.Current()
	if snap == nil {
		return
	}
	apps := snap.Apps()
	var held int64
	for _, a := range apps {
		held += a.MemoBytes()
	}
	target := k.budget - k.budget/4
	for visits := 0; held > target && visits <= 2*len(apps); visits++ {
		if k.handApp >= len(apps) {
			k.handApp, k.handAt = 0, 0
		}
		want := held - target
		next, forgot := apps[k.handApp].SweepMemos(k.handAt, want)
		held -= forgot
		k.forgotten.Add(uint64(forgot))
		if forgot < want { // it passed the app's last dataset
			k.handApp, k.handAt = k.handApp+1, 0
		} else {
			k.handAt = next
		}
	}
	// Parts kept while this sweep counted stay counted (maybe twice).
	k.held.Add(held - before)
}

package snapshot

import "sync/atomic"

// A Mark is what Memo and SweepMemos know of a kept part: the bytes it
// holds of its own, and whether it was read since the hand of SweepMemos
// last passed it. A part embeds one, so that keeping a part costs its
// dataset the part and a slot in its app's table, nothing beside.
type Mark struct {
	read atomic.Bool
	size atomic.Int32 // atomic: a part may stand for many datasets
}

func (m *Mark) mark() *Mark { return m }

// Part is a kept part's type: a pointer to a struct that embeds a Mark.
type Part[T any] interface {
	*T
	mark() *Mark
}

// memoTable is an app's table of kept parts, one slot a dataset, all of
// one type (memos); the app holds it without knowing which.
type memoTable interface {
	bytes() int64
	sweep(from int, free int64) (next int, forgot int64)
	// carry gives each dataset of a for which same holds the part of
	// the dataset at the same position here.
	carry(a *App, same func(i int) bool)
}

type memos[T any, P Part[T]] struct{ slots []atomic.Pointer[T] }

// tableOf is a's table of parts of type T, made when none is; nil when a
// holds a table of another type (a second kind of part, which no caller
// keeps: the part is then made at each call).
func tableOf[T any, P Part[T]](a *App) *memos[T, P] {
	if t := a.memos.Load(); t != nil {
		m, _ := (*t).(*memos[T, P])
		return m
	}
	var made memoTable = &memos[T, P]{slots: make([]atomic.Pointer[T], len(a.datasets))}
	if a.memos.CompareAndSwap(nil, &made) {
		return made.(*memos[T, P])
	}
	m, _ := (*a.memos.Load()).(*memos[T, P])
	return m
}

// Memo is the part newPart makes of d when asked for and none is kept, then
// kept with d's app: the HTTP layer keeps how to write the part of a rule
// answer that does not name the request here, so that a dataset read
// again is not merged and encoded again, one never read (most of a large
// tree) costs a pointer in its app's table, and an app none of whose
// datasets is read nothing. newPart also says how many bytes its part
// holds of its own, which SweepMemos and MemoBytes count; made reports
// that newPart ran and its part is now kept, so that the caller, which
// bounds what is kept (SweepMemos), can count it. One part a dataset:
// every caller passes the same newPart, which reads nothing of d but its
// rule (Rule), so that a dataset of a later revision whose rule is made of
// the same parsed blocks takes the part over (carryMemos). Two calls at
// once may both make one; either is kept. A nil part is not kept.
func Memo[T any, P Part[T]](d *Dataset, newPart func(*Dataset) (part P, size int64)) (part P, made bool) {
	t := tableOf[T, P](d.App)
	if t == nil {
		part, _ = newPart(d)
		return part, false
	}
	slot := &t.slots[d.at()]
	if p := P(slot.Load()); p != nil {
		if m := p.mark(); !m.read.Load() { // most reads find it marked: no write, no shared line dirtied
			m.read.Store(true)
		}
		return p, false
	}
	part, size := newPart(d)
	if part == nil {
		return nil, false
	}
	m := part.mark()
	m.size.Store(int32(min(size, 1<<31-1)))
	m.read.Store(true)
	slot.Store((*T)(part))
	return part, true
}

func (t *memos[T, P]) bytes() int64 {
	var n int64
	for i := range t.slots {
		if p := P(t.slots[i].Load()); p != nil {
			n += int64(p.mark().size.Load())
		}
	}
	return n
}

func (t *memos[T, P]) sweep(from int, free int64) (next int, forgot int64) {
	for next = from; next < len(t.slots) && forgot < free; next++ {
		slot := &t.slots[next]
		p := P(slot.Load())
		switch {
		case p == nil:
		case p.mark().read.Load():
			p.mark().read.Store(false)
		case slot.CompareAndSwap((*T)(p), nil): // a reader that kept a new one meanwhile keeps it
			forgot += int64(p.mark().size.Load())
		}
	}
	return next, forgot
}

func (t *memos[T, P]) carry(a *App, same func(i int) bool) {
	to := tableOf[T, P](a)
	if to == nil {
		return
	}
	for i := range t.slots {
		if p := t.slots[i].Load(); p != nil && same(i) {
			to.slots[i].Store(p)
		}
	}
}

// MemoBytes is how many bytes the parts kept with a's datasets hold of
// their own (Memo).
func (a *App) MemoBytes() int64 {
	if t := a.memos.Load(); t != nil {
		return (*t).bytes()
	}
	return 0
}

// SweepMemos moves the hand of a clock over the parts kept with a's
// datasets, from the dataset at position from (Memo's order: the sources
// keys, then the defaults): one read since the hand last passed is marked
// unread and kept, one not read is forgotten, and its part made again
// when next asked for. It stops once it has forgotten at least free bytes
// or passed the last dataset, and returns the position after the last it
// looked at and the bytes it forgot: fewer than free when it passed them
// all. A dataset read often is thus kept, and what is kept is bounded by
// whoever moves the hand.
func (a *App) SweepMemos(from int, free int64) (next int, forgot int64) {
	if t := a.memos.Load(); t != nil {
		return (*t).sweep(from, free)
	}
	return len(a.datasets), 0
}

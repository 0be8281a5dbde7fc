package api

import (
	"bytes"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// memberTable numbers the members the kept rule parts write (ruleParts):
// each distinct member once, for as long as the server runs, so that a
// part holds four bytes a member, which the collector does not scan, and
// the members many rules write alike (a licence, an owner, an app's dcat
// block) are held once. A tree's members are few beside its datasets, and
// a reload adds only those it writes anew; the table stops taking members
// past limit bytes, and a part with a member it cannot take is not kept.
//
// The members are held back to back in pages of bytes, and where each is
// in a block of locations, neither holding a pointer: a table of a
// hundred thousand members is a few dozen allocations for the collector
// to pass over, not a string and a map entry a member. A member is found
// by its bytes through an open-addressing table of numbers.
//
// Numbers are handed out under mu; member reads none: a number is read
// from a part published after its member was written, and neither pages
// nor blocks of locations move once made, nor does a member's place.
type memberTable struct {
	mu    sync.Mutex
	seed  maphash.Seed
	slots []uint32 // number+1 of the member hashed there; 0: empty
	n     uint32   // the members numbered
	held  int64    // the members' bytes
	limit int64

	pages atomic.Pointer[[][]byte]            // each made at its full length, filled in order
	locs  atomic.Pointer[[]*[memberChunk]loc] // member i's place: locs[i/memberChunk][i%memberChunk]
	fill  int                                 // bytes used of the last page
}

// loc is where a member's bytes are: page, from and to.
type loc struct{ page, from, to uint32 }

// maxMemberBytes bounds the bytes of the members a server numbers: far more
// than a tree of a million sources writes (its members are its distinct
// values, not its datasets), and a bound on a tree made to have no two
// alike.
const maxMemberBytes = 64 << 20

// memberChunk is how many members' places a block of locations holds.
const memberChunk = 1024

// memberPage is the size of a page of members; a member longer than that
// has a page of its own.
const memberPage = 64 << 10

// id is member's number, taken when member is new; ok is false when the
// table is full.
func (t *memberTable) id(member []byte) (id uint32, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint32, 1024)
	}
	mask := uint64(len(t.slots) - 1)
	i := maphash.Bytes(t.seed, member) & mask
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if id := t.slots[i] - 1; bytes.Equal(t.member(id), member) {
			return id, true
		}
	}
	if t.held+int64(len(member)) > t.limit || t.n == 1<<32-2 {
		return 0, false
	}
	id = t.n
	t.add(member)
	t.slots[i] = id + 1
	t.n++
	t.held += int64(len(member))
	if uint64(t.n)*4 > uint64(len(t.slots))*3 {
		t.grow()
	}
	return id, true
}

// add writes member, the next number's, in the pages and says where.
func (t *memberTable) add(member []byte) {
	var pages [][]byte
	if p := t.pages.Load(); p != nil {
		pages = *p
	}
	if len(pages) == 0 || t.fill+len(member) > len(pages[len(pages)-1]) {
		// A new outer slice for a new page: readers hold the old one.
		pages = append(pages[:len(pages):len(pages)], make([]byte, max(memberPage, len(member))))
		t.pages.Store(&pages)
		t.fill = 0
	}
	last := len(pages) - 1
	copy(pages[last][t.fill:], member)
	var locs []*[memberChunk]loc
	if l := t.locs.Load(); l != nil {
		locs = *l
	}
	if int(t.n/memberChunk) == len(locs) {
		locs = append(locs[:len(locs):len(locs)], new([memberChunk]loc))
		t.locs.Store(&locs)
	}
	locs[t.n/memberChunk][t.n%memberChunk] = loc{page: uint32(last), from: uint32(t.fill), to: uint32(t.fill + len(member))}
	t.fill += len(member)
}

// grow doubles the slots and numbers each member into them again.
func (t *memberTable) grow() {
	slots := make([]uint32, 2*len(t.slots))
	mask := uint64(len(slots) - 1)
	for id := range t.n {
		i := maphash.Bytes(t.seed, t.member(id)) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = id + 1
	}
	t.slots = slots
}

// member is the member numbered id.
func (t *memberTable) member(id uint32) []byte {
	l := (*t.locs.Load())[id/memberChunk][id%memberChunk]
	return (*t.pages.Load())[l.page][l.from:l.to]
}

// bytes is how many bytes the table's members hold (for /metrics).
func (t *memberTable) bytes() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held
}

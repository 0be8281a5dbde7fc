package api

import (
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
// Numbers are handed out under mu; member reads none: a number is read from
// a part published after its member was written, and the chunks a member
// is in never move.
type memberTable struct {
	mu     sync.Mutex
	ids    map[string]uint32
	held   int64 // the members' bytes
	limit  int64
	chunks atomic.Pointer[[]*[memberChunk]string]
}

// maxMemberBytes bounds the bytes of the members a server numbers: far more
// than a tree of a million sources writes (its members are its distinct
// values, not its datasets), and a bound on a tree made to have no two
// alike.
const maxMemberBytes = 64 << 20

// memberChunk is how many members a chunk of the table holds.
const memberChunk = 1024

// id is member's number, taken when member is new; ok is false when the
// table is full.
func (t *memberTable) id(member []byte) (id uint32, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[string(member)]; ok {
		return id, true
	}
	if t.held+int64(len(member)) > t.limit || len(t.ids) == 1<<32-1 {
		return 0, false
	}
	if t.ids == nil {
		t.ids = map[string]uint32{}
	}
	id = uint32(len(t.ids))
	var chunks []*[memberChunk]string
	if p := t.chunks.Load(); p != nil {
		chunks = *p
	}
	if int(id/memberChunk) == len(chunks) {
		// A new outer slice for the new chunk: readers hold the old one.
		chunks = append(chunks[:len(chunks):len(chunks)], new([memberChunk]string))
		t.chunks.Store(&chunks)
	}
	s := string(member)
	chunks[id/memberChunk][id%memberChunk] = s
	t.ids[s] = id
	t.held += int64(len(s))
	return id, true
}

// member is the member numbered id.
func (t *memberTable) member(id uint32) string {
	return (*t.chunks.Load())[id/memberChunk][id%memberChunk]
}

// bytes is how many bytes the table's members hold (for /metrics).
func (t *memberTable) bytes() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held
}

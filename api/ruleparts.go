package api

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// ruleParts writes the part of a dataset's rule body that does not name
// the request (appendRulePart) and keeps, for the datasets read, how to
// write it again (rulePart), within a budget of bytes
// (Limits.MaxKeptRuleBytes): a service reads the same datasets again and
// again, and a part kept is written without merging and encoding the rule.
// What is kept is bounded: when the parts kept pass the budget, the hand of
// a clock (snapshot.App.SweepMemos) forgets the ones not read since it last
// passed until a quarter of the budget is free, and a part forgotten is
// made again when next read.
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
	members         memberTable // the members the parts write, by number
}

func newRuleParts(store *snapshot.Store, budget int64) *ruleParts {
	k := &ruleParts{store: store, budget: budget}
	k.members.limit = maxMemberBytes
	return k
}

// write writes d's rule part to buf: from its kept part, or encoded (and
// its part kept, within the budget).
func (k *ruleParts) write(buf *bytes.Buffer, d *snapshot.Dataset) {
	if k == nil {
		appendRulePart(buf, d)
		return
	}
	if p := k.of(d); p != nil {
		p.write(buf, d)
		return
	}
	appendRulePart(buf, d) // the table of members is full
}

// of is d's kept part, made and kept (within the budget) when none is;
// nil when the table of members has no room for its members.
func (k *ruleParts) of(d *snapshot.Dataset) *rulePart {
	p, made := snapshot.Memo(d, k.makePart)
	if p == notKept {
		return nil
	}
	if made && k.held.Add(rulePartSize) > k.budget && k.sweeping.CompareAndSwap(false, true) {
		// The reader that passed the budget sweeps (a walk of the served
		// snapshot's tables of kept parts, once every quarter budget of
		// parts kept); the others go on meanwhile.
		defer k.sweeping.Store(false)
		k.sweep()
	}
	return p
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

// A rulePart is how a dataset's rule part is written again: the members of
// its rule's object as they were written, and the exposure and is_empty
// after it, each by its number in the server's table of members
// (memberTable); its title and description, which name it alone, are
// read from the dataset's rules and written again when it is read. Most
// members are written alike by many rules (a licence, an owner, the dcat
// block an app's defaults state), so a part holds four bytes for each,
// not the kilobyte of its encoding, and the collector finds one pointer
// in it. The numbers of a rule's usual members are in the part itself
// (inline), so that a part is one allocation of 80 bytes; a rule stating
// more fields has the numbers past those in a member of the table (rest).
type rulePart struct {
	snapshot.Mark // what the sweep reads of it
	// table numbers the members: its maker's, as the parts are kept with
	// the snapshot's datasets, which another server over the same store
	// may read.
	table *memberTable
	n     uint8 // the members, the last the tail, `,"exposure":…,"is_empty":…`
	// titleAt, descriptionAt and ownershipAt are the members (a key,
	// `"title":`) after which the dataset's title, description and
	// ownership list are written; -1 for none.
	titleAt, descriptionAt, ownershipAt int8
	rest                                uint32 // when n > partInline: the member holding the numbers past inline, four bytes each
	inline                              [partInline]uint32
}

// partInline is how many members' numbers a part holds itself: the
// thirteen fields every merged rule of the load script's trees states,
// and the tail.
const partInline = 14

// rulePartSize is what a part holds of its own, as the budget counts it:
// the part (80 bytes as allocated) and its slot in its app's table (8).
// The numbers past partInline are the table's, which bounds its own bytes.
const rulePartSize = 88

// notKept is the part of a dataset whose members the table had no room
// for: kept in its place, so that reading it again does not try again,
// and written afresh.
var notKept = new(rulePart)

// member is the number of p's i-th member.
func (p *rulePart) member(i int) uint32 {
	if i < partInline {
		return p.inline[i]
	}
	return binary.LittleEndian.Uint32(p.table.member(p.rest)[4*(i-partInline):])
}

// write writes the part of d, the dataset it was made of (or one of a
// later revision whose rule is made of the same blocks: snapshot.Memo),
// `"rule":{…},"exposure":…,"is_empty":…`.
func (p *rulePart) write(buf *bytes.Buffer, d *snapshot.Dataset) {
	t := p.table
	buf.WriteString(`"rule":{`)
	last := int(p.n) - 1
	for i := range last {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(t.member(p.member(i)))
		switch int8(i) {
		case p.titleAt:
			title, _ := d.Title()
			appendString(buf, title)
		case p.descriptionAt:
			description, _ := d.Description()
			appendString(buf, description)
		case p.ownershipAt:
			governance.AppendJSONOwnership(buf, d.Ownership())
		}
	}
	buf.WriteByte('}')
	buf.Write(t.member(p.member(last)))
}

// makePart makes d's part (snapshot.Memo): its rule part written, then
// cut into its members, each numbered in k's table. A part whose members
// the table has no room for is notKept, and d's part is written afresh
// when read.
func (k *ruleParts) makePart(d *snapshot.Dataset) (*rulePart, int64) {
	m := mergers.Get().(*governance.ValueMerger)
	defer mergers.Put(m)
	buf := getBuffer()
	defer putBuffer(buf)
	var endsArray [governance.MaxMembers]governance.Member
	rule := d.ValuesIn(m)
	ends := rule.AppendJSONMembers(buf, endsArray[:0])
	objectEnd := buf.Len()
	appendExposureTail(buf, rule)
	p := &rulePart{table: &k.members, n: uint8(len(ends) + 1), titleAt: -1, descriptionAt: -1, ownershipAt: -1}
	var idArray [governance.MaxMembers + 1]uint32 // and the tail
	ids := idArray[:len(ends)+1]
	start := 1 // after the object's '{'
	for i, e := range ends {
		member := buf.Bytes()[start:e.End]
		start = e.End + 1 // after the ',' or '}' that follows
		var ok bool
		switch e.Field {
		case governance.FieldTitle:
			if _, ok = rule.Title(); ok {
				p.titleAt = int8(i)
			}
		case governance.FieldDescription:
			if _, ok = rule.Description(); ok {
				p.descriptionAt = int8(i)
			}
		case governance.FieldOwnership:
			p.ownershipAt, ok = int8(i), true
		}
		if ok { // the key alone: the text is written from the rule's
			member = member[:len(e.Field.Key())+3]
		}
		if ids[i], ok = k.members.id(member); !ok {
			return notKept, 0
		}
	}
	var ok bool
	if ids[len(ends)], ok = k.members.id(buf.Bytes()[objectEnd:]); !ok {
		return notKept, 0
	}
	copy(p.inline[:], ids)
	if len(ids) > partInline {
		rest := make([]byte, 0, 4*(len(ids)-partInline))
		for _, id := range ids[partInline:] {
			rest = binary.LittleEndian.AppendUint32(rest, id)
		}
		if p.rest, ok = k.members.id(rest); !ok {
			return notKept, 0
		}
	}
	return p, rulePartSize
}

// Package strindex maps a fixed set of strings to their positions, laid out
// so that a lookup stays cheap when the set outgrows the processor's caches.
//
// A Go map of 100 000 keys spreads its groups, and the keys' bytes, over
// megabytes of heap: a lookup then waits on two or three dependent cache
// misses (the group, the key's bytes wherever the YAML parser allocated them,
// the value). An Index keeps one 4-byte slot per entry in a table small
// enough to stay in the second-level cache at 100 000 keys, and every key's
// bytes back to back in one string, so a lookup costs a hash, a slot probe
// and one comparison against densely packed bytes.
//
// An Index is immutable once built and safe for concurrent use.
package strindex

import (
	"hash/maphash"
	"math/bits"
	"strings"
)

// Index answers "at which position is this key?" for a fixed list of keys.
type Index struct {
	seed    maphash.Seed // per index: lookups take names from requests, so no fixed hash to flood
	mask    uint32       // len(slots) - 1
	posMask uint32       // low bits of a slot: position + 1; the high bits: a tag from the hash
	tagMask uint32
	slots   []uint32 // open addressing, linear probing; 0 is an empty slot
	offs    []uint32 // key i is keys[offs[i]:offs[i+1]]
	keys    string   // every key, back to back, in position order

	// Instead of offs and keys (Join): the parts' keys, key i being
	// parts[partOf[i]].Key(i - starts[partOf[i]]), four bytes a key
	// rather than a string header's sixteen.
	parts  []*Index
	starts []int32
	partOf []uint32

	// repeats are the keys given again, each with the first position of
	// its text, in position order: found while the slots are filled, and
	// none in most indexes.
	repeats []Repeat
}

// Repeat is a key given again: Pos, and First, its text's first position.
type Repeat struct{ Pos, First int32 }

// New indexes keys by position. A key given more than once is found at its
// first position, as the first of several equal sources keys is the one that
// counts. It panics beyond 2³¹ keys or 4 GiB of key bytes, which no tree
// comes near.
func New(keys []string) *Index {
	size := 0
	for _, k := range keys {
		size += len(k)
	}
	if len(keys) >= 1<<31 || size >= 1<<32 {
		panic("strindex: too many keys")
	}
	ix := newTable(len(keys))
	ix.offs = make([]uint32, len(keys)+1)
	// A Builder grown to the size hands over its bytes without the copy
	// a conversion from []byte makes.
	var packed strings.Builder
	packed.Grow(size)
	for i, k := range keys {
		packed.WriteString(k)
		ix.offs[i+1] = uint32(packed.Len())
	}
	ix.keys = packed.String()
	ix.fill()
	return ix
}

// Join is one index of the keys of parts, back to back: key i of parts[k]
// is key i + the sum of the lengths of parts[:k]. It holds the parts
// rather than a copy of their keys. It panics beyond 2³¹ keys.
func Join(parts []*Index) *Index {
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	if n >= 1<<31 {
		panic("strindex: too many keys")
	}
	ix := newTable(n)
	ix.parts = parts
	ix.starts = make([]int32, len(parts))
	ix.partOf = make([]uint32, 0, n)
	for k, p := range parts {
		ix.starts[k] = int32(len(ix.partOf))
		for range p.Len() {
			ix.partOf = append(ix.partOf, uint32(k))
		}
	}
	ix.fill()
	return ix
}

// newTable is an index of n keys with its empty slots.
func newTable(n int) *Index {
	// At most three quarters full, usually less: linear probing's probe
	// count grows fast as the table fills, and even half empty the table
	// stays in the second-level cache at 100 000 keys.
	slotCount := 1 << bits.Len(uint(n+n/3))
	ix := &Index{
		seed:    maphash.MakeSeed(),
		mask:    uint32(slotCount - 1),
		posMask: 1<<bits.Len(uint(n)) - 1,
		slots:   make([]uint32, slotCount),
	}
	ix.tagMask = ^ix.posMask
	return ix
}

// fill files every key in the slots.
func (ix *Index) fill() {
	for i := range ix.Len() {
		k := ix.Key(i)
		h := maphash.String(ix.seed, k)
		tag := ix.tag(h)
		j := ix.home(h)
		for {
			v := ix.slots[j]
			if v == 0 {
				ix.slots[j] = tag | uint32(i+1)
				break
			}
			if first := int(v&ix.posMask) - 1; v&ix.tagMask == tag && ix.Key(first) == k {
				// A repeat: the first position stays.
				ix.repeats = append(ix.repeats, Repeat{Pos: int32(i), First: int32(first)})
				break
			}
			j = ix.next(j)
		}
	}
}

// home is the slot a hash starts probing at.
func (ix *Index) home(h uint64) uint32 { return uint32(h) & ix.mask }

func (ix *Index) next(j uint32) uint32 { return (j + 1) & ix.mask }

// tag is the hash's top bits above the position bits: most probes of a wrong
// slot are refused without touching the key bytes.
func (ix *Index) tag(h uint64) uint32 { return uint32(h>>32) & ix.tagMask }

// Lookup returns the first position of key, or -1.
func (ix *Index) Lookup(key string) int {
	if ix.Len() == 0 {
		return -1
	}
	h := maphash.String(ix.seed, key)
	tag := ix.tag(h)
	posMask := ix.posMask
	for j := ix.home(h); ; j = ix.next(j) {
		v := ix.slots[j]
		if v == 0 {
			return -1
		}
		if v&ix.tagMask == tag {
			if i := int(v&posMask) - 1; ix.Key(i) == key {
				return i
			}
		}
	}
}

// Repeats are the positions whose key an earlier position has, each with
// that first position, in position order. The slice is the index's own.
func (ix *Index) Repeats() []Repeat { return ix.repeats }

// Key returns the key at position i, as stored in the index.
func (ix *Index) Key(i int) string {
	if ix.parts != nil {
		return ix.partKey(i)
	}
	return ix.keys[ix.offs[i]:ix.offs[i+1]]
}

// partKey is Key in a join: apart, so that Key, small enough to inline,
// costs a call only there.
func (ix *Index) partKey(i int) string {
	k := ix.partOf[i]
	return ix.parts[k].Key(i - int(ix.starts[k]))
}

// Len is the number of keys indexed, repeats included.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	if ix.offs == nil {
		return len(ix.partOf)
	}
	return len(ix.offs) - 1
}

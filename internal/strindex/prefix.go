package strindex

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
)

// PrefixSet finds which of a fixed set of strings a name starts with (or
// ends with): the literal texts every name a glob matches holds at a known
// place, each naming a bucket of globs to try.
//
// Probing the index once per distinct prefix length hashes the name's first
// l bytes afresh each time, and a tree of 100 000 sources has a dozen or
// more lengths. A PrefixSet first asks a small bit filter, keyed by the
// length and two 8-byte words of the candidate prefix (its end and its
// middle), which costs two loads and a multiply whatever the length; only
// the lengths the filter lets through (the real prefixes, and the few
// others that agree with one on those 16 bytes) are probed.
type PrefixSet struct {
	ix     *Index
	lens   []int    // distinct prefix lengths in bytes, ascending
	filter []uint64 // one bit per prefix hash; false alarms only cost a probe
	fmask  uint64
	seed   uint64
}

// NewPrefixSet indexes prefixes by position, the first of repeats winning.
func NewPrefixSet(prefixes []string) *PrefixSet {
	p := &PrefixSet{ix: New(prefixes), seed: maphash.Comparable(maphash.MakeSeed(), 0)}
	filterBits := 1 << bits.Len(uint(len(prefixes)*32))
	p.filter = make([]uint64, (filterBits+63)/64)
	p.fmask = uint64(filterBits - 1)
	for _, s := range prefixes {
		b := p.bit(s, len(s))
		p.filter[b>>6] |= 1 << (b & 63)
		if _, seen := slices.BinarySearch(p.lens, len(s)); !seen {
			p.lens = append(p.lens, len(s))
			slices.Sort(p.lens)
		}
	}
	return p
}

// bit is the filter position for s[:l]: a hash of l, the last 8 bytes and 8
// bytes from the middle (all the bytes when there are fewer than 8).
func (p *PrefixSet) bit(s string, l int) uint64 {
	var end, mid uint64
	if l >= 8 {
		end = binary.LittleEndian.Uint64([]byte(s[l-8 : l]))
		m := (l - 8) / 2
		mid = binary.LittleEndian.Uint64([]byte(s[m : m+8]))
	} else {
		for i := 0; i < l; i++ {
			end = end<<8 | uint64(s[i])
		}
	}
	h := p.seed ^ end ^ bits.RotateLeft64(mid, 29) ^ uint64(l)*0x9e3779b97f4a7c15
	// The finaliser of MurmurHash3: every input bit reaches the low bits.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h & p.fmask
}

// Each calls yield with the position of every prefix name starts with,
// shortest first, until yield returns false.
func (p *PrefixSet) Each(name string, yield func(pos int) bool) {
	for _, l := range p.lens {
		if l > len(name) {
			return
		}
		if b := p.bit(name, l); p.filter[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		if i := p.ix.Lookup(name[:l]); i >= 0 && !yield(i) {
			return
		}
	}
}

// EachSuffix is Each for the strings name ends with, shortest first: a set
// of suffixes probed with the ends of a name.
func (p *PrefixSet) EachSuffix(name string, yield func(pos int) bool) {
	for _, l := range p.lens {
		if l > len(name) {
			return
		}
		end := name[len(name)-l:]
		if b := p.bit(end, l); p.filter[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		if i := p.ix.Lookup(end); i >= 0 && !yield(i) {
			return
		}
	}
}

// Lookup is the position of s among the prefixes (the first of repeats);
// -1 when it is none of them.
func (p *PrefixSet) Lookup(s string) int { return p.ix.Lookup(s) }

// Len is the number of prefixes indexed, repeats included.
func (p *PrefixSet) Len() int { return p.ix.Len() }

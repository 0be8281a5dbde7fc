// Package uvarint reads the unsigned varints encoding/binary writes
// (binary.AppendUvarint) from a string as well as from a byte slice: the
// compact encodings of the served tree (a rule's places, a document's
// texts, an index's postings, a unit's ids) are held in strings, which
// binary.Uvarint does not take without a copy.
package uvarint

// Decode is the varint at the start of s and its length in bytes. s must
// begin with a complete varint of at most 64 bits, as the encodings that
// call it write them: a truncated one panics with an index out of range.
func Decode[S ~string | ~[]byte](s S) (x uint64, n int) {
	for shift := uint(0); ; shift += 7 {
		c := s[n]
		n++
		if c < 0x80 {
			return x | uint64(c)<<shift, n
		}
		x |= uint64(c&0x7f) << shift
	}
}

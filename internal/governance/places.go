package governance

import "encoding/binary"

// A rule's places are where its stated fields (positions) and the paths
// below them (provenance entries, see provenance.go) were written, encoded
// in one byte string: a record per entry, the field positions first in
// field order, then the path entries in code order. A record is a tag (the
// field, or pathTag plus the path's code), the layer's slot, then the line
// and column as unsigned varints, and for an extra key its place in
// Rule.Extra(). Most records are five bytes, where a decoded position is
// twelve and an entry sixteen, and a rule holds one slice for both: a tree
// holds a rule per sources key, and kept decoded, the places would be a
// quarter of the rules' bytes (ADR-0017). They are read far less often
// than they are held — for an error's or a warning's position, for
// explain=true, in a merge — and are decoded then, into the caller's
// buffers.
//
// Places are never written into once a rule holds them: copies of a rule,
// and merges that change no place, share them.
type places string

// pathTag is added to a path code to make its record's tag; the tags below
// it are fields.
const pathTag = 0x20

// appendPlaces appends the records of ps (sorted by field) and es (sorted
// by code) to dst.
func appendPlaces(dst []byte, ps []position, es []pathPosition) []byte {
	for _, p := range ps {
		dst = append(dst, byte(p.field), p.layer)
		dst = binary.AppendUvarint(dst, uint64(uint32(p.Line)))
		dst = binary.AppendUvarint(dst, uint64(uint32(p.Column)))
	}
	for _, e := range es {
		dst = append(dst, pathTag+byte(e.code), e.layer)
		dst = binary.AppendUvarint(dst, uint64(uint32(e.Line)))
		dst = binary.AppendUvarint(dst, uint64(uint32(e.Column)))
		if e.code == pathExtra {
			dst = binary.AppendUvarint(dst, uint64(e.index))
		}
	}
	return dst
}

// newPlaces is the places of ps and es in an allocation of their own; nil
// when both are empty.
func newPlaces(ps []position, es []pathPosition) places {
	if len(ps)+len(es) == 0 {
		return ""
	}
	var buf [256]byte
	return places(appendPlaces(buf[:0], ps, es))
}

// next decodes the first record of *b and moves *b past it. A field's
// record has code 0 and isField true.
func (b *places) next() (e pathPosition, f Field, isField bool) {
	s := *b
	tag, layer := s[0], s[1]
	s = s[2:]
	line, n := uvarint(s)
	s = s[n:]
	column, n := uvarint(s)
	s = s[n:]
	e = pathPosition{Line: int32(uint32(line)), Column: int32(uint32(column)), layer: layer}
	if tag < pathTag {
		f, isField = Field(tag), true
	} else {
		e.code = pathCode(tag - pathTag)
		if e.code == pathExtra {
			index, n := uvarint(s)
			s = s[n:]
			e.index = uint32(index)
		}
	}
	*b = s
	return e, f, isField
}

// decode appends the rule's field positions to ps and its path entries
// (its provenance below the top level, in code order) to es.
func (r *Rule) decode(ps []position, es []pathPosition) ([]position, []pathPosition) {
	for b := r.places; len(b) > 0; {
		e, f, isField := b.next()
		if isField {
			ps = append(ps, position{Line: e.Line, Column: e.Column, field: f, layer: e.layer})
		} else {
			es = append(es, e)
		}
	}
	return ps, es
}

// paths appends the rule's path entries to dst.
func (r *Rule) paths(dst []pathPosition) []pathPosition {
	_, dst = r.decode(nil, dst)
	return dst
}

// countPaths is the number of the rule's path entries.
func (r *Rule) countPaths() int {
	n := 0
	for b := r.places; len(b) > 0; {
		if _, _, isField := b.next(); !isField {
			n++
		}
	}
	return n
}

// uvarint decodes an unsigned varint at the start of s (as
// binary.Uvarint, for a string) and its length; s holds one, being places
// written by appendPlaces.
func uvarint(s places) (uint64, int) {
	var x uint64
	for i, shift := 0, uint(0); ; i, shift = i+1, shift+7 {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
	}
}

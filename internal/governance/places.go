package governance

import (
	"encoding/binary"

	"github.com/celine-eu/governanced/internal/uvarint"
)

// A rule's places are where its stated fields (positions) and the paths
// below them (provenance entries, see provenance.go) were written, encoded
// in one byte string: a record per entry, the field positions first in
// field order, then the path entries in code order. A record is a tag (the
// field, or pathTag plus the path's code) with the layer's slot in its top
// two bits (slots from 3 up in a byte of their own), the line as the
// difference from the record before (the first's from 0), zig-zag signed,
// then the column, as varints, and for an extra key its place in
// Rule.Extra(). A block's lines are near each other: most records are
// three bytes, where a decoded position is twelve and an entry sixteen,
// and a rule holds one string for both: a tree holds a rule per sources
// key, and kept decoded, the places would be a quarter of the rules'
// bytes (ADR-0017). They are read far less often than they are held — for
// an error's or a warning's position, for explain=true, in a merge — and
// are decoded then, into the caller's buffers.
//
// Places are never written into once a rule holds them: copies of a rule,
// and merges that change no place, share them.
type places string

// pathTag is added to a path code to make its record's tag; the tags below
// it are fields. Every tag is below tagMask+1.
const (
	pathTag    = 0x20
	tagMask    = 0x3f
	layerShift = 6
	// layerOwn in a tag's top bits: the slot is in the byte after it.
	layerOwn = 3
)

// A tag has room for every field and every path code: a code past it
// makes this length negative, and the build stops here.
var _ [tagMask + 1 - pathTag - int(numPathCodes)]struct{}

// Every field's tag is below pathTag.
var _ [pathTag - int(numFields)]struct{}

// appendRecord appends a record whose line follows a record's at line
// prev (0 for the first).
func appendRecord(dst []byte, tag, layer byte, line, prev, column int32) []byte {
	if layer < layerOwn {
		dst = append(dst, tag|layer<<layerShift)
	} else {
		dst = append(dst, tag|layerOwn<<layerShift, layer)
	}
	dst = binary.AppendVarint(dst, int64(line)-int64(prev))
	return binary.AppendUvarint(dst, uint64(uint32(column)))
}

// appendPlaces appends the records of ps (sorted by field) and es (sorted
// by code) to dst.
func appendPlaces(dst []byte, ps []position, es []pathPosition) []byte {
	var line int32
	for _, p := range ps {
		dst = appendRecord(dst, byte(p.field), p.layer, p.Line, line, p.Column)
		line = p.Line
	}
	for _, e := range es {
		dst = appendRecord(dst, pathTag+byte(e.code), e.layer, e.Line, line, e.Column)
		line = e.Line
		if e.code == pathExtra {
			dst = binary.AppendUvarint(dst, uint64(e.index))
		}
	}
	return dst
}

// newPlaces is the places of ps and es in an allocation of their own; ""
// when both are empty.
func newPlaces(ps []position, es []pathPosition) places {
	if len(ps)+len(es) == 0 {
		return ""
	}
	var buf [256]byte
	return places(appendPlaces(buf[:0], ps, es))
}

// placesReader reads a rule's places record by record.
type placesReader struct {
	rest places
	line int32 // the line of the record before
}

func (r *Rule) readPlaces() placesReader { return placesReader{rest: r.places} }

func (p *placesReader) more() bool { return len(p.rest) > 0 }

// next decodes the next record. A field's record has code 0 and isField
// true.
func (p *placesReader) next() (e pathPosition, f Field, isField bool) {
	s := p.rest
	tag, layer := s[0]&tagMask, s[0]>>layerShift
	s = s[1:]
	if layer == layerOwn {
		layer, s = s[0], s[1:]
	}
	delta, n := uvarint.Decode(s)
	s = s[n:]
	column, n := uvarint.Decode(s)
	s = s[n:]
	p.line += int32(int64(delta>>1) ^ -int64(delta&1)) // zig-zag, as binary.AppendVarint writes it
	e = pathPosition{Line: p.line, Column: int32(uint32(column)), layer: layer}
	if tag < pathTag {
		f, isField = Field(tag), true
	} else {
		e.code = pathCode(tag - pathTag)
		if e.code == pathExtra {
			index, n := uvarint.Decode(s)
			s = s[n:]
			e.index = uint32(index)
		}
	}
	p.rest = s
	return e, f, isField
}

// decode appends the rule's field positions to ps and its path entries
// (its provenance below the top level, in code order) to es.
func (r *Rule) decode(ps []position, es []pathPosition) ([]position, []pathPosition) {
	for b := r.readPlaces(); b.more(); {
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
	for b := r.readPlaces(); b.more(); {
		if _, _, isField := b.next(); !isField {
			n++
		}
	}
	return n
}

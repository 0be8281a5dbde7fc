package yamltree

// Not part of the libyaml port: how the scalar scanners hand out values.

import "unsafe"

// Scalars this short that a document repeats (its keys, enumerated values)
// are stored once per document; longer ones are rarely repeated.
const (
	internMax     = 32
	internEntries = 4096
)

// scalarValue copies a scalar scanned into a reused buffer out to bytes of its
// own, exactly sized: a scalar used to grow its own buffer from 32 bytes, and
// its whitespace and line-break buffers too, for every scalar of a document.
// A short value the document has already produced (its keys, enumerated
// values) is shared rather than copied. Nothing writes to a token's value
// once scanned, so sharing is safe, and Node values are these very bytes.
func scalarValue(parser *yaml_parser_t, s []byte) []byte {
	if len(s) == 0 {
		return nil
	}
	if len(s) <= internMax {
		if v, ok := parser.interned[string(s)]; ok {
			return v
		}
	}
	v := make([]byte, len(s))
	copy(v, s)
	if len(s) <= internMax && len(parser.interned) < internEntries {
		if parser.interned == nil {
			parser.interned = make(map[string][]byte)
		}
		parser.interned[unsafe.String(&v[0], len(v))] = v // v is never written again
	}
	return v
}

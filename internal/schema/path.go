package schema

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Segment is one step of a Path: a mapping key, or a sequence index.
type Segment struct {
	key     string
	index   int
	isIndex bool
}

// Key is the path segment of a mapping key (a non-string key in its plain
// text: 1, True, None).
func Key(k string) Segment { return Segment{key: k} }

// Index is the path segment of a sequence element, zero-based.
func Index(i int) Segment { return Segment{index: i, isIndex: true} }

// IsIndex reports whether the segment is a sequence index.
func (s Segment) IsIndex() bool { return s.isIndex }

// Key returns the mapping key ("" for an index).
func (s Segment) Key() string { return s.key }

// Index returns the sequence index (0 for a key).
func (s Segment) Index() int { return s.index }

// String is the key verbatim, or the index in decimal.
func (s Segment) String() string {
	if s.isIndex {
		return strconv.Itoa(s.index)
	}
	return s.key
}

// MarshalJSON renders a key as a JSON string and an index as a JSON number, as
// the conformance cases' "paths" do.
func (s Segment) MarshalJSON() ([]byte, error) {
	if s.isIndex {
		return []byte(strconv.Itoa(s.index)), nil
	}
	return json.Marshal(s.key)
}

// Path is the location of a value from the document root.
type Path []Segment

// String joins the segments with "/", keys verbatim (validation.md §2.2); the
// empty path is "<root>".
func (p Path) String() string {
	if len(p) == 0 {
		return "<root>"
	}
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = s.String()
	}
	return strings.Join(parts, "/")
}

// Pointer is the path as an RFC 6901 JSON pointer ("" for the root).
func (p Path) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.isIndex {
			b.WriteString(strconv.Itoa(s.index))
			continue
		}
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s.key))
	}
	return b.String()
}

// Compare orders paths as the reference sorts its errors (validation.md §2.3):
// component by component, keys by code point, indices numerically, a prefix
// before its extensions. (A key and an index never meet at one position: a
// node is either a mapping or a sequence. Indices sort first should it happen.)
func (p Path) Compare(q Path) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		a, b := p[i], q[i]
		switch {
		case a.isIndex && b.isIndex:
			if a.index != b.index {
				return cmpInt(a.index, b.index)
			}
		case a.isIndex != b.isIndex:
			if a.isIndex {
				return -1
			}
			return 1
		default:
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(p), len(q))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

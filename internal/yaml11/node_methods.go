package yaml11

import (
	"bytes"
	"math"
	"strconv"

	"github.com/celine-eu/governanced/internal/jsonstring"
)

// Get returns the value of the string key in a mapping, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Map {
		return nil
	}
	for _, p := range n.Pairs {
		if p.Key.Kind == String && p.Key.Str == key {
			return p.Value
		}
	}
	return nil
}

// KeyIndex maps each string key of a mapping to its value, as Get finds it
// (the first occurrence wins, though the parser has already collapsed
// repeated keys); nil for anything but a mapping. Callers that look up many
// keys of one large mapping use it instead of Get, which searches linearly.
func (n *Node) KeyIndex() map[string]*Node {
	if n == nil || n.Kind != Map {
		return nil
	}
	m := make(map[string]*Node, len(n.Pairs))
	for _, p := range n.Pairs {
		if p.Key.Kind != String {
			continue
		}
		if _, dup := m[p.Key.Str]; !dup {
			m[p.Key.Str] = p.Value
		}
	}
	return m
}

// Has reports whether a mapping has the string key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Falsy reports whether Python would read the value as false: null, false, 0,
// 0.0, "", [] or {}. The reference treats such a value as "empty" in several
// places where a mapping is expected.
func (n *Node) Falsy() bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case Null:
		return true
	case Bool:
		return !n.Bool
	case Int:
		return n.BigInt == nil && n.Int == 0
	case Float:
		return n.Float == 0
	case String:
		return n.Str == ""
	case Map:
		return len(n.Pairs) == 0
	case Seq:
		return len(n.Items) == 0
	}
	return false
}

// KeyJSON is the text a mapping key takes as a JSON object key: a string as is,
// any other scalar as its JSON scalar text (1 → "1", true → "true", null → "null").
func KeyJSON(k *Node) string {
	switch k.Kind {
	case String:
		return k.Str
	case Null:
		return "null"
	case Bool:
		return strconv.FormatBool(k.Bool)
	case Timestamp:
		return k.Time.ISO()
	}
	b, _ := k.MarshalJSON()
	return string(b)
}

// MarshalJSON renders the value as JSON: mappings keep their order, timestamps
// are ISO 8601 strings, non-finite floats are null.
func (n *Node) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	writeJSON(&buf, n)
	return buf.Bytes(), nil
}

// AppendJSON writes the value as MarshalJSON renders it into buf, without an
// intermediate slice: rule bodies embed row filters and extra fields.
func (n *Node) AppendJSON(buf *bytes.Buffer) { writeJSON(buf, n) }

func writeJSON(buf *bytes.Buffer, n *Node) {
	if n == nil {
		buf.WriteString("null")
		return
	}
	switch n.Kind {
	case Null:
		buf.WriteString("null")
	case Bool:
		buf.WriteString(strconv.FormatBool(n.Bool))
	case Int:
		if n.BigInt != nil {
			buf.WriteString(n.BigInt.String())
		} else {
			buf.WriteString(strconv.FormatInt(n.Int, 10))
		}
	case Float:
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
			buf.WriteString("null")
		} else {
			buf.WriteString(jsonFloat(n.Float))
		}
	case String:
		writeJSONString(buf, n.Str)
	case Timestamp:
		writeJSONString(buf, n.Time.ISO())
	case Seq:
		buf.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSON(buf, it)
		}
		buf.WriteByte(']')
	case Map:
		buf.WriteByte('{')
		for i, p := range n.Pairs {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, KeyJSON(p.Key))
			buf.WriteByte(':')
			writeJSON(buf, p.Value)
		}
		buf.WriteByte('}')
	}
}

// jsonFloat keeps a float visibly a float (30.0, not 30) so a client can tell
// what the file said.
func jsonFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		s = strconv.FormatFloat(f, 'f', 1, 64)
	}
	return s
}

func writeJSONString(buf *bytes.Buffer, s string) {
	buf.Write(jsonstring.Append(buf.AvailableBuffer(), s))
}

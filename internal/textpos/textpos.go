// Package textpos is a place in a source text: the position the errors and
// warnings of the packages that read text carry (SQL, policies, owners
// registries), and the one way they print it.
package textpos

import (
	"encoding/json"
	"errors"
	"strconv"
)

// Pos is a 1-based line and column; zero where unknown. A Pos without a
// line says nothing; one without a column names only its line.
type Pos struct {
	Line, Column int
}

// String is "line L, column C", "line L" without a column, "" without a
// line.
func (p Pos) String() string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return "line " + strconv.Itoa(p.Line) + ", column " + strconv.Itoa(p.Column)
	case p.Line > 0:
		return "line " + strconv.Itoa(p.Line)
	}
	return ""
}

// Where is a place in a file as compilers print it: "file:L:C",
// "file:L" without a column, "file" without a line; without a file, the
// position alone (String).
func Where(file string, p Pos) string {
	if file == "" {
		return p.String()
	}
	if p.Line <= 0 {
		return file
	}
	s := file + ":" + strconv.Itoa(p.Line)
	if p.Column > 0 {
		s += ":" + strconv.Itoa(p.Column)
	}
	return s
}

// Prefix is Where followed by ": ", or "" when there is nowhere to name, to
// put before a message.
func Prefix(file string, p Pos) string {
	if w := Where(file, p); w != "" {
		return w + ": "
	}
	return ""
}

// OfOffset is the position of the byte at offset in data; an offset out of
// range is clamped to the text.
func OfOffset(data []byte, offset int64) Pos {
	offset = max(0, min(offset, int64(len(data))))
	p := Pos{Line: 1, Column: 1}
	for _, b := range data[:offset] {
		if b == '\n' {
			p.Line++
			p.Column = 1
		} else {
			p.Column++
		}
	}
	return p
}

// OfJSONError is where in data, the document being decoded, a JSON decoding
// error is: a syntax error's offending byte, where a type error stopped
// the decoder (after the value). ok is
// false for any other error, which has no place (an empty or truncated
// document).
func OfJSONError(data []byte, err error) (p Pos, ok bool) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return OfOffset(data, syn.Offset-1), true // Offset counts the offending byte as read
	case errors.As(err, &typ):
		return OfOffset(data, typ.Offset), true
	}
	return Pos{}, false
}

// Package textpos is a place in a source text: the position the errors and
// warnings of the packages that read text carry (SQL, policies, owners
// registries), and the one way they print it.
package textpos

import "strconv"

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

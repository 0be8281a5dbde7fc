package sqlparse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokenKind uint8

const (
	tEOF    tokenKind = iota
	tWord             // unquoted identifier or keyword
	tQuoted           // quoted identifier: "x" or `x`
	tString           // string literal, text without quotes
	tNumber
	tOp    // operator or punctuation
	tParam // ?, $1, :name, @name
)

type token struct {
	kind tokenKind
	text string // word as written; quoted identifier/string content unescaped
	up   string // tWord: text in upper case, for keyword tests
	line int
	col  int
	// prefix of a string literal (E, R, B, N, X …), upper case; "" if none.
	prefix string
}

// MaxTokens bounds the statements this package reads, so that memory stays
// proportional to a sane statement's size.
const MaxTokens = 1 << 20

// Error is a statement this package cannot read, with the 1-based position
// of the offending token.
type Error struct {
	Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// pos is where the token starts.
func (t token) pos() Pos { return Pos{Line: t.line, Column: t.col} }

type lexer struct {
	src  string
	d    Dialect
	pos  int
	line int
	col  int
	out  []token
}

func lex(src string, d Dialect) ([]token, error) {
	// Compiled dbt models hold about a token every six bytes (the lineage
	// corpus): room for that many saves growing the list a few times over.
	lx := &lexer{src: src, d: d, line: 1, col: 1, out: make([]token, 0, len(src)/6+8)}
	for {
		if err := lx.skipSpace(); err != nil {
			return nil, err
		}
		if lx.pos >= len(lx.src) {
			lx.out = append(lx.out, token{kind: tEOF, line: lx.line, col: lx.col})
			return lx.out, nil
		}
		if len(lx.out) >= MaxTokens {
			return nil, lx.errorf("statement longer than %d tokens", MaxTokens)
		}
		if err := lx.next(); err != nil {
			return nil, err
		}
	}
}

func (lx *lexer) errorf(format string, args ...any) error {
	return &Error{Pos: Pos{Line: lx.line, Column: lx.col}, Msg: fmt.Sprintf(format, args...)}
}

// advance moves over n bytes, keeping line and column.
func (lx *lexer) advance(n int) {
	for i := 0; i < n && lx.pos < len(lx.src); i++ {
		if lx.src[lx.pos] == '\n' {
			lx.line++
			lx.col = 1
		} else if lx.src[lx.pos]&0xC0 != 0x80 { // count runes, not bytes
			lx.col++
		}
		lx.pos++
	}
}

func (lx *lexer) peekByte(off int) byte {
	if lx.pos+off < len(lx.src) {
		return lx.src[lx.pos+off]
	}
	return 0
}

func (lx *lexer) skipSpace() error {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.advance(1)
		case c == '-' && lx.peekByte(1) == '-', c == '#' && lx.d.hashComments:
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.advance(1)
			}
		case c == '/' && lx.peekByte(1) == '*':
			line, col := lx.line, lx.col
			depth := 0
			for {
				if lx.pos >= len(lx.src) {
					return &Error{Pos: Pos{Line: line, Column: col}, Msg: "unterminated /* comment"}
				}
				if lx.src[lx.pos] == '/' && lx.peekByte(1) == '*' && (depth == 0 || lx.d.nestedComments) {
					depth++
					lx.advance(2)
					continue
				}
				if lx.src[lx.pos] == '*' && lx.peekByte(1) == '/' {
					depth--
					lx.advance(2)
					if depth == 0 {
						break
					}
					continue
				}
				lx.advance(1)
			}
		default:
			if c >= 0x80 {
				r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
				if unicode.IsSpace(r) {
					lx.advance(size)
					continue
				}
			}
			return nil
		}
	}
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// operators, longest first within each leading byte.
var operators = []string{
	"->>", "#>>", "!~*", "<=>", "...",
	"::", "||", "<=", ">=", "<>", "!=", "==", "=>", "->", "#>", "@>", "<@", "?|", "?&", "~~", "!~", "~*", "**", "//", "<<", ">>", ":=", "&&", "|/", "^@", "..",
	"(", ")", ",", ";", ".", "+", "-", "*", "/", "%", "^", "=", "<", ">", "~", "!", "&", "|", "[", "]", "{", "}", ":", "@", "#", "?",
}

func (lx *lexer) emit(kind tokenKind, text string, line, col int) {
	t := token{kind: kind, text: text, line: line, col: col}
	if kind == tWord {
		t.up = strings.ToUpper(text)
	}
	lx.out = append(lx.out, t)
}

func (lx *lexer) next() error {
	c := lx.src[lx.pos]
	line, col := lx.line, lx.col
	switch {
	case c == '{' && (lx.peekByte(1) == '{' || lx.peekByte(1) == '%' || lx.peekByte(1) == '#'):
		return lx.errorf("unrendered Jinja (%q): the SQL must be compiled", lx.src[lx.pos:lx.pos+2])
	case c == '\'' || c == '"' || c == '`':
		return lx.quotedToken(c, line, col)
	case c == '$' && (lx.peekByte(1) == '$' || isIdentStart(lx.peekByte(1))) && lx.dollarTag() != "":
		return lx.dollarString(line, col)
	case c == '$' && isDigit(lx.peekByte(1)):
		lx.param(isDigit, line, col)
	case c == '?' && !lx.d.questionOps:
		lx.param(func(byte) bool { return false }, line, col)
	case isDigit(c) || (c == '.' && isDigit(lx.peekByte(1))):
		lx.number(line, col)
	case isIdentStart(c):
		return lx.word(line, col)
	case c == '@' && isIdentStart(lx.peekByte(1)):
		// A BigQuery @param (':' is left to the parser: x::t, :name, x:path).
		lx.param(isIdentPart, line, col)
	default:
		return lx.operator(line, col)
	}
	return nil
}

// take emits the source from lx.pos up to j as a token of kind and moves
// past it.
func (lx *lexer) take(j int, kind tokenKind, line, col int) {
	text := lx.src[lx.pos:j]
	lx.advance(j - lx.pos)
	lx.emit(kind, text, line, col)
}

// param reads a parameter: its first byte, then the bytes part accepts.
func (lx *lexer) param(part func(byte) bool, line, col int) {
	j := lx.pos + 1
	for j < len(lx.src) && part(lx.src[j]) {
		j++
	}
	lx.take(j, tParam, line, col)
}

// quotedToken reads a string ('…', and "…" in BigQuery) or a quoted
// identifier ("…", `…`).
func (lx *lexer) quotedToken(q byte, line, col int) error {
	if q == '`' && !lx.d.backticks {
		return lx.errorf("back-quoted identifiers are not %s syntax", lx.d.Name())
	}
	s, err := lx.quoted(q, line, col)
	if err != nil {
		return err
	}
	if q == '\'' || (q == '"' && lx.d.doubleQuotedStrings) {
		lx.emit(tString, s, line, col)
		return nil
	}
	// BigQuery quotes whole paths: `project.dataset.table`.
	parts := []string{s}
	if q == '`' && lx.d.backtickPaths {
		parts = strings.Split(s, ".")
	}
	for i, part := range parts {
		if part == "" {
			return &Error{Pos: Pos{Line: line, Column: col}, Msg: "zero-length quoted identifier"}
		}
		if i > 0 {
			lx.emit(tOp, ".", line, col)
		}
		lx.emit(tQuoted, part, line, col)
	}
	return nil
}

// word reads a word, or a string with a prefix glued to its quote.
func (lx *lexer) word(line, col int) error {
	j := lx.pos
	for j < len(lx.src) && isIdentPart(lx.src[j]) {
		if lx.src[j] >= 0x80 {
			r, size := utf8.DecodeRuneInString(lx.src[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
				break
			}
			j += size
			continue
		}
		j++
	}
	if j == lx.pos { // a non-letter rune
		r, _ := utf8.DecodeRuneInString(lx.src[lx.pos:])
		return lx.errorf("unexpected character %q", r)
	}
	word := lx.src[lx.pos:j]
	// A one- or two-letter prefix glued to a quote is a string prefix
	// (E'..', B'..', X'..', N'..', R'..', U&'..' is left alone).
	if j < len(lx.src) && (lx.src[j] == '\'' || (lx.src[j] == '"' && lx.d.doubleQuotedStrings)) && len(word) <= 2 && isStringPrefix(word) {
		lx.advance(j - lx.pos)
		q := lx.src[lx.pos]
		s, err := lx.quotedPrefixed(q, strings.ToUpper(word), line, col)
		if err != nil {
			return err
		}
		lx.out = append(lx.out, token{kind: tString, text: s, line: line, col: col, prefix: strings.ToUpper(word)})
		return nil
	}
	lx.take(j, tWord, line, col)
	return nil
}

// operator reads an operator or punctuation, the longest that matches.
func (lx *lexer) operator(line, col int) error {
	for _, op := range operators {
		if strings.HasPrefix(lx.src[lx.pos:], op) {
			lx.take(lx.pos+len(op), tOp, line, col)
			return nil
		}
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.pos:])
	return lx.errorf("unexpected character %q", r)
}

func isStringPrefix(w string) bool {
	switch strings.ToUpper(w) {
	case "E", "B", "X", "N", "R", "RB", "BR":
		return true
	}
	return false
}

// quoted reads a token quoted with q starting at lx.pos; a doubled quote
// stands for itself.
func (lx *lexer) quoted(q byte, line, col int) (string, error) {
	lx.advance(1)
	var b strings.Builder
	start := lx.pos
	for {
		if lx.pos >= len(lx.src) {
			return "", &Error{Pos: Pos{Line: line, Column: col}, Msg: fmt.Sprintf("unterminated %c-quoted text", q)}
		}
		c := lx.src[lx.pos]
		if c == q {
			if lx.peekByte(1) == q {
				b.WriteString(lx.src[start : lx.pos+1])
				lx.advance(2)
				start = lx.pos
				continue
			}
			b.WriteString(lx.src[start:lx.pos])
			lx.advance(1)
			return b.String(), nil
		}
		if c == '\\' && (q == '`' || lx.d.doubleQuotedStrings) && lx.pos+1 < len(lx.src) {
			// BigQuery escapes with backslashes.
			lx.advance(2)
			continue
		}
		lx.advance(1)
	}
}

// quotedPrefixed reads E'..' (backslash escapes), R'..' (raw) and the like.
func (lx *lexer) quotedPrefixed(q byte, prefix string, line, col int) (string, error) {
	if prefix != "E" && !strings.Contains(prefix, "R") && !lx.d.doubleQuotedStrings {
		return lx.quoted(q, line, col)
	}
	lx.advance(1)
	start := lx.pos
	for {
		if lx.pos >= len(lx.src) {
			return "", &Error{Pos: Pos{Line: line, Column: col}, Msg: fmt.Sprintf("unterminated %c-quoted text", q)}
		}
		c := lx.src[lx.pos]
		if c == '\\' && !strings.Contains(prefix, "R") {
			lx.advance(2)
			continue
		}
		if c == q {
			if lx.peekByte(1) == q && !lx.d.doubleQuotedStrings {
				lx.advance(2)
				continue
			}
			s := lx.src[start:lx.pos]
			lx.advance(1)
			return s, nil
		}
		lx.advance(1)
	}
}

// dollarTag returns the $tag$ opening at lx.pos, or "".
func (lx *lexer) dollarTag() string {
	j := lx.pos + 1
	for j < len(lx.src) && lx.src[j] != '$' {
		if !isIdentPart(lx.src[j]) || lx.src[j] == '$' {
			return ""
		}
		j++
	}
	if j >= len(lx.src) {
		return ""
	}
	return lx.src[lx.pos : j+1]
}

func (lx *lexer) dollarString(line, col int) error {
	tag := lx.dollarTag()
	lx.advance(len(tag))
	end := strings.Index(lx.src[lx.pos:], tag)
	if end < 0 {
		return &Error{Pos: Pos{Line: line, Column: col}, Msg: "unterminated " + tag + "-quoted string"}
	}
	s := lx.src[lx.pos : lx.pos+end]
	lx.advance(end + len(tag))
	lx.emit(tString, s, line, col)
	return nil
}

func (lx *lexer) number(line, col int) {
	j := lx.pos
	if lx.src[j] == '0' && j+1 < len(lx.src) && (lx.src[j+1] == 'x' || lx.src[j+1] == 'X') {
		j += 2
		for j < len(lx.src) && strings.IndexByte("0123456789abcdefABCDEF_", lx.src[j]) >= 0 {
			j++
		}
	} else {
		for j < len(lx.src) && (isDigit(lx.src[j]) || lx.src[j] == '_') {
			j++
		}
		// "1..2" is not a decimal point; "t.1" never reaches here.
		if j < len(lx.src) && lx.src[j] == '.' && !(j+1 < len(lx.src) && lx.src[j+1] == '.') {
			j++
			for j < len(lx.src) && isDigit(lx.src[j]) {
				j++
			}
		}
		if j < len(lx.src) && (lx.src[j] == 'e' || lx.src[j] == 'E') {
			k := j + 1
			if k < len(lx.src) && (lx.src[k] == '+' || lx.src[k] == '-') {
				k++
			}
			if k < len(lx.src) && isDigit(lx.src[k]) {
				j = k
				for j < len(lx.src) && isDigit(lx.src[j]) {
					j++
				}
			}
		}
	}
	lx.take(j, tNumber, line, col)
}

package governance

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Glob is a sources key compiled as a Python fnmatch.fnmatchcase pattern:
// * and ? cross dots and slashes, [!…] negates ([^…] does not), a backslash is
// an ordinary character, an unclosed [ is a literal, and a reversed range
// matches nothing. Go's path.Match differs on every one of those points.
type Glob struct {
	// prefix is the literal text before the first metacharacter, compared as
	// bytes; tokens are the rest. Keeping the prefix out of the tokens keeps
	// a glob small (a token per code point is 16 bytes) and lets an index
	// that already compared the prefix match only the rest. A prefix that is
	// not valid UTF-8 stays in the tokens, where invalid bytes are read one
	// by one, so that the split never changes what matches.
	prefix  string
	tokens  []token
	anyRest bool // the rest is a lone *: every name with the prefix matches
}

type tokenKind uint8

const (
	tokLiteral tokenKind = iota
	tokAny               // ?
	tokStar              // *
	tokClass             // [...]
)

// A token is 16 bytes: a glob keeps one per code point, so a class carried
// inline in every token would multiply the memory of a tree of many globs.
type token struct {
	kind tokenKind
	lit  rune
	cls  *class // tokClass only
}

type class struct {
	negated bool
	members []rune    // literal members
	ranges  [][2]rune // inclusive ranges
}

// HasMeta reports whether a key can match anything but itself.
func HasMeta(key string) bool { return strings.ContainsAny(key, "*?[") }

// CompileGlob compiles a pattern. Every pattern compiles: a malformed bracket
// reads as literals, as in Python.
func CompileGlob(pattern string) *Glob {
	g := &Glob{}
	if lit := LiteralPrefix(pattern); utf8.ValidString(lit) {
		g.prefix = lit
		pattern = pattern[len(lit):]
	}
	g.tokens = compileTokens(pattern)
	g.anyRest = len(g.tokens) == 1 && g.tokens[0].kind == tokStar
	return g
}

func compileTokens(pattern string) []token {
	// Invalid UTF-8 is read byte by byte (globbytes.go).
	p := escapedRunes(pattern)
	tokens := make([]token, 0, len(p)) // a token per code point at most
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case '*':
			if n := len(tokens); n == 0 || tokens[n-1].kind != tokStar {
				tokens = append(tokens, token{kind: tokStar})
			}
			i++
		case '?':
			tokens = append(tokens, token{kind: tokAny})
			i++
		case '[':
			tok, next, ok := parseClass(p, i)
			if !ok {
				tokens = append(tokens, token{kind: tokLiteral, lit: '['})
				i++
				continue
			}
			tokens = append(tokens, tok)
			i = next
		default:
			tokens = append(tokens, token{kind: tokLiteral, lit: c})
			i++
		}
	}
	return slices.Clip(tokens)
}

// Prefix is the part of the pattern a matching name starts with byte for
// byte: the literal text before the first metacharacter when it is valid
// UTF-8, else "".
func (g *Glob) Prefix() string { return g.prefix }

// AnyRest reports whether the pattern is its prefix followed by a lone *, so
// that every name starting with Prefix() matches.
func (g *Glob) AnyRest() bool { return g.anyRest }

// MatchAfterPrefix is Match for a name known to start with Prefix(), as a
// name found in an index bucketed by literal prefix does: only the rest of
// the pattern is compared.
func (g *Glob) MatchAfterPrefix(name string) bool {
	if g.anyRest {
		return true
	}
	return g.matchRest(name[len(g.prefix):])
}

// parseClass reads a bracket expression starting at p[start] == '[' the way
// fnmatch.translate does (governance-format.md §7.2). ok is false when the
// bracket is never closed.
func parseClass(p []rune, start int) (token, int, bool) {
	j := start + 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) && p[j] != ']' {
		j++
	}
	if j >= len(p) {
		return token{}, 0, false
	}
	body := p[start+1 : j]
	tok := token{kind: tokClass, cls: &class{}}
	if len(body) > 0 && body[0] == '!' {
		tok.cls.negated = true
		body = body[1:]
	}
	chunks := splitChunks(body)
	// Remove reversed ranges, last pair first: the two boundary characters go and
	// the chunks join.
	for k := len(chunks) - 1; k > 0; k-- {
		left, right := chunks[k-1], chunks[k]
		if len(left) > 0 && len(right) > 0 && left[len(left)-1] > right[0] {
			joined := append(append([]rune{}, left[:len(left)-1]...), right[1:]...)
			chunks = append(chunks[:k-1], append([][]rune{joined}, chunks[k+1:]...)...)
		}
	}
	// Python joins the chunks with '-' into a regular-expression class; read that
	// class the way the regexp engine does: x-y is a range, anything else literal.
	type item struct {
		r   rune
		sep bool
	}
	var items []item
	for k, ch := range chunks {
		if k > 0 {
			items = append(items, item{r: '-', sep: true})
		}
		for _, r := range ch {
			items = append(items, item{r: r})
		}
	}
	for i := 0; i < len(items); {
		if i+2 < len(items) && !items[i].sep && items[i+1].sep && !items[i+2].sep {
			tok.cls.ranges = append(tok.cls.ranges, [2]rune{items[i].r, items[i+2].r})
			i += 3
			continue
		}
		tok.cls.members = append(tok.cls.members, items[i].r)
		i++
	}
	return tok, j + 1, true
}

// splitChunks splits a bracket body at separator hyphens: the first '-' at index
// ≥ 1, then each next '-' at least three characters after the previous one.
func splitChunks(b []rune) [][]rune {
	var chunks [][]rune
	hasHyphen := false
	for _, r := range b {
		if r == '-' {
			hasHyphen = true
			break
		}
	}
	if !hasHyphen {
		return [][]rune{b}
	}
	start, from := 0, 1
	for {
		sep := -1
		for k := from; k < len(b); k++ {
			if b[k] == '-' {
				sep = k
				break
			}
		}
		if sep < 0 {
			break
		}
		chunks = append(chunks, b[start:sep])
		start = sep + 1
		from = sep + 3
	}
	chunks = append(chunks, b[start:])
	if last := chunks[len(chunks)-1]; len(last) == 0 {
		chunks = chunks[:len(chunks)-1]
		prev := chunks[len(chunks)-1]
		chunks[len(chunks)-1] = append(append([]rune{}, prev...), '-')
	}
	return chunks
}

func (t *class) match(r rune) bool {
	in := false
	for _, m := range t.members {
		if m == r {
			in = true
			break
		}
	}
	if !in {
		for _, rg := range t.ranges {
			if rg[0] <= r && r <= rg[1] {
				in = true
				break
			}
		}
	}
	return in != t.negated
}

func (t *token) matchOne(r rune) bool {
	switch t.kind {
	case tokLiteral:
		return t.lit == r
	case tokAny:
		return true
	case tokClass:
		return t.cls.match(r)
	}
	return false
}

// Match reports whether the whole name matches the whole pattern. With * the
// only variable-length token, remembering the last star and retrying from one
// character further is complete.
func (g *Glob) Match(name string) bool {
	if !strings.HasPrefix(name, g.prefix) {
		return false
	}
	return g.MatchAfterPrefix(name)
}

func (g *Glob) matchRest(name string) bool {
	ti, ni := 0, 0
	starTi, starNi := -1, 0
	for ni < len(name) {
		r, size := decodeEscaped(name[ni:])
		if ti < len(g.tokens) {
			t := &g.tokens[ti]
			if t.kind == tokStar {
				starTi, starNi = ti, ni
				ti++
				continue
			}
			if t.matchOne(r) {
				ti++
				ni += size
				continue
			}
		}
		if starTi < 0 {
			return false
		}
		_, skip := utf8.DecodeRuneInString(name[starNi:])
		starNi += skip
		ni = starNi
		ti = starTi + 1
	}
	for ti < len(g.tokens) && g.tokens[ti].kind == tokStar {
		ti++
	}
	return ti == len(g.tokens)
}

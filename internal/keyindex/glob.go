package keyindex

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Glob is a sources key compiled as a Python fnmatch.fnmatchcase pattern
// (governance-format.md §7.2): * and ? cross dots and slashes, [!…] negates
// ([^…] does not), a backslash is an ordinary character, an unclosed [ is a
// literal, and a reversed range matches nothing. Go's path.Match differs on
// every one of those points.
//
// A Glob is the pattern's text and a short program over it: runs of
// literal text are byte ranges of the pattern, compared as bytes, so a
// compiled pattern is a few ops whatever its length, and the matcher jumps
// to the next place a run occurs instead of trying every position. A Glob
// is immutable and safe for concurrent use.
//
// A Glob is a view: its ops and its classes' ranges may be parts of
// longer lists, an Index's globs being held back to back in one of each
// (globSet), none of them holding a pointer.
type Glob struct {
	text   string
	ops    []op
	ranges [][2]rune // the classes' ranges: an opClass's are ranges[start:end]
}

type opKind uint8

const (
	opLit      opKind = iota // text[start:end], valid UTF-8, compared as bytes
	opRune                   // one character that is not valid UTF-8 in the pattern (globbytes.go)
	opAny                    // ?
	opStar                   // * (a run of stars is one)
	opClass                  // [...]: a character in one of ranges[start:end]
	opNotClass               // [!...]: a character in none of ranges[start:end]
)

// An op is 12 bytes: a glob's program is most of what it holds. An
// opRune's character is not kept but read again from its byte
// (escapedByte).
type op struct {
	kind       opKind
	start, end int32 // opLit and opRune: the bytes of the pattern; a class: its ranges
}

// escapedByte is the character an opRune stands for: its byte, escaped.
func (g *Glob) escapedByte(o *op) rune { return 0xDC00 + rune(g.text[o.start]) }

// HasMeta reports whether a key can match anything but itself.
func HasMeta(key string) bool { return strings.ContainsAny(key, "*?[") }

// Compile compiles a pattern. Every pattern compiles: a malformed bracket
// reads as literals, as in Python. It panics on a pattern of 2 GiB or more.
func Compile(pattern string) *Glob {
	var buf [8]op
	ops, ranges := compile(buf[:0], nil, pattern)
	return &Glob{text: pattern, ops: slices.Clone(ops), ranges: ranges}
}

// compile appends pattern's program to ops, and its classes' ranges to
// ranges: an op's bytes are offsets in pattern, a class's ranges offsets
// in ranges. It panics on a pattern of 2 GiB or more, or beyond 2³¹
// ranges.
func compile(ops []op, ranges [][2]rune, pattern string) ([]op, [][2]rune) {
	if len(pattern) >= 1<<31-1 {
		panic("keyindex: pattern too long")
	}
	// The characters of a bracket expression, read only when there is one:
	// invalid UTF-8 is read byte by byte (globbytes.go), offs[i] is where the
	// i-th character starts.
	var p []rune
	var offs []int32
	first := len(ops)
	lit := -1 // the byte a literal run being read starts at
	flush := func(end int) {
		if lit >= 0 {
			ops = appendLiteral(ops, pattern, lit, end)
			lit = -1
		}
	}
	for i := 0; i < len(pattern); {
		switch pattern[i] {
		case '*':
			flush(i)
			if n := len(ops); n == first || ops[n-1].kind != opStar {
				ops = append(ops, op{kind: opStar})
			}
			i++
		case '?':
			flush(i)
			ops = append(ops, op{kind: opAny})
			i++
		case '[':
			if p == nil {
				p, offs = escapedRunes(pattern)
			}
			at, _ := slices.BinarySearch(offs, int32(i))
			from := len(ranges)
			var negated, ok bool
			var next int
			ranges, negated, next, ok = parseClass(ranges, p, at)
			if !ok {
				if lit < 0 {
					lit = i // an unclosed [ is a literal
				}
				i++
				continue
			}
			if len(ranges) > 1<<31-1 {
				panic("keyindex: too many classes")
			}
			flush(i)
			kind := opClass
			if negated {
				kind = opNotClass
			}
			ops = append(ops, op{kind: kind, start: int32(from), end: int32(len(ranges))})
			i = int(offs[next])
		default:
			if lit < 0 {
				lit = i
			}
			i++
		}
	}
	flush(len(pattern))
	return ops, ranges
}

// appendLiteral appends the bytes pattern[from:to] as literal ops: the
// valid UTF-8 stretches as byte ranges of the pattern, each byte of an
// invalid sequence as a character of its own.
func appendLiteral(ops []op, pattern string, from, to int) []op {
	for i := from; i < to; {
		j := i
		for j < to {
			if pattern[j] < utf8.RuneSelf {
				j++
				continue
			}
			r, size := decodeEscaped(pattern[j:to])
			if isEscaped(r) {
				break
			}
			j += size
		}
		if j > i {
			ops = append(ops, op{kind: opLit, start: int32(i), end: int32(j)})
			i = j
			continue
		}
		ops = append(ops, op{kind: opRune, start: int32(i), end: int32(i + 1)})
		i++
	}
	return ops
}

// runes is the pattern's length in code points, an invalid byte counting
// as one (resolution's tie rule, §7.1).
func (g *Glob) runes() int { return utf8.RuneCountInString(g.text) }

// isPrefixStar reports whether the pattern is literal text followed by a
// lone *: every name starting with that text matches.
func (g *Glob) isPrefixStar() bool {
	return len(g.ops) == 2 && g.ops[0].kind == opLit && g.ops[1].kind == opStar
}

// String is the pattern as written.
func (g *Glob) String() string { return g.text }

// parseClass reads a bracket expression starting at p[start] == '[' the way
// fnmatch.translate does (governance-format.md §7.2), appending the class's
// ranges to ranges: a character is in the class if it is in one of them, a
// single member m being the range [m, m]. next is the character after the
// closing ]. ok is false, and ranges as given, when the bracket is never
// closed.
func parseClass(ranges [][2]rune, p []rune, start int) (_ [][2]rune, negated bool, next int, ok bool) {
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
		return ranges, false, 0, false
	}
	body := p[start+1 : j]
	if len(body) > 0 && body[0] == '!' {
		negated = true
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
			ranges = append(ranges, [2]rune{items[i].r, items[i+2].r})
			i += 3
			continue
		}
		ranges = append(ranges, [2]rune{items[i].r, items[i].r})
		i++
	}
	return ranges, negated, j + 1, true
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

// inClass reports whether r is in one of ranges, or, negated, in none.
func inClass(ranges [][2]rune, negated bool, r rune) bool {
	for _, rg := range ranges {
		if rg[0] <= r && r <= rg[1] {
			return !negated
		}
	}
	return negated
}

// Match reports whether the whole name matches the whole pattern.
//
// With * the only variable-length op, remembering the last star and
// retrying from one character further is complete; a retry whose next op
// is literal text goes straight to where that text next occurs. A literal
// run is valid UTF-8, so an occurrence of it starts where a character of
// the name starts, and comparing bytes is comparing characters.
func (g *Glob) Match(name string) bool {
	ops := g.ops
	oi, ni := 0, 0
	starOi, starNi := -1, 0
	for {
		if oi == len(ops) {
			if ni == len(name) {
				return true
			}
		} else {
			o := &ops[oi]
			switch o.kind {
			case opStar:
				if oi == len(ops)-1 {
					return true // a trailing star takes the rest, whatever it is
				}
				starOi, starNi = oi, ni
				oi++
				continue
			case opLit:
				if lit := g.text[o.start:o.end]; strings.HasPrefix(name[ni:], lit) {
					ni += len(lit)
					oi++
					continue
				}
			default:
				if ni < len(name) {
					r, size := decodeEscaped(name[ni:])
					if o.kind == opAny || o.kind == opRune && r == g.escapedByte(o) || (o.kind == opClass || o.kind == opNotClass) && inClass(g.ranges[o.start:o.end], o.kind == opNotClass, r) {
						ni += size
						oi++
						continue
					}
				}
			}
		}
		// A mismatch: the last star takes one more character.
		if starOi < 0 || starNi >= len(name) {
			return false
		}
		_, size := utf8.DecodeRuneInString(name[starNi:])
		starNi += size
		if next := &ops[starOi+1]; next.kind == opLit {
			lit := g.text[next.start:next.end]
			if starOi+2 == len(ops) {
				// The pattern ends with this text: so must the name.
				return len(name)-len(lit) >= starNi && strings.HasSuffix(name, lit)
			}
			k := strings.Index(name[starNi:], lit)
			if k < 0 {
				return false
			}
			starNi += k
		}
		ni, oi = starNi, starOi+1
	}
}

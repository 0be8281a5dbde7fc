package keyindex

import "unicode/utf8"

// A name or pattern that is not valid UTF-8 (a dataset id from a URL can be
// any bytes) is read the way Python's surrogateescape reads it: each byte of
// an invalid sequence is one character of its own, U+DC80 + (byte − 0x80),
// a lone surrogate no valid UTF-8 decodes to. So a literal matches only the
// very same bytes — an invalid byte never matches another invalid byte, nor
// a U+FFFD written in a key — and ? matches one such byte.

// decodeEscaped is utf8.DecodeRuneInString with invalid bytes escaped.
func decodeEscaped(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return 0xDC00 + rune(s[0]), 1
	}
	return r, size
}

// isEscaped reports whether r stands for an invalid byte.
func isEscaped(r rune) bool { return r >= 0xDC80 && r <= 0xDCFF }

// escapedRunes is []rune(s) with invalid bytes escaped, and where each
// character starts in s (one more offset: len(s)).
func escapedRunes(s string) ([]rune, []int32) {
	out := make([]rune, 0, len(s))
	offs := make([]int32, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, size := decodeEscaped(s[i:])
		out = append(out, r)
		offs = append(offs, int32(i))
		i += size
	}
	return out, append(offs, int32(len(s)))
}

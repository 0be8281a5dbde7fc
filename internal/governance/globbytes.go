package governance

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

// escapedRunes is []rune(s) with invalid bytes escaped.
func escapedRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, size := decodeEscaped(s[i:])
		out = append(out, r)
		i += size
	}
	return out
}

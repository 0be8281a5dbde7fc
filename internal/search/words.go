package search

import (
	"unicode"
	"unicode/utf8"
)

// isWordRune reports whether r belongs to a word: a letter or a digit.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// nextWord finds the first word of s at or after i: runs of letters and
// digits. It returns the word's bounds, or start == len(s) when there is
// none.
func nextWord(s string, i int) (start, end int) {
	start = len(s)
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		in := isWordRune(r)
		switch {
		case in && start == len(s):
			start = i
		case !in && start < len(s):
			return start, i
		}
		i += size
	}
	return start, len(s)
}

// appendLower appends w lower-cased, rune by rune.
func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			for _, r := range w[i:] {
				dst = utf8.AppendRune(dst, unicode.ToLower(r))
			}
			return dst
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// eachWord calls fn with each word of s, lower-cased, in order. The word
// is in buf's storage, valid until the next call: reading words allocates
// nothing per word.
func eachWord(s string, buf *[]byte, fn func(word []byte)) {
	for i := 0; ; {
		start, end := nextWord(s, i)
		if start == len(s) {
			return
		}
		*buf = appendLower((*buf)[:0], s[start:end])
		fn(*buf)
		i = end
	}
}

// Words are the words of s, lower-cased, in order: what a query and every
// indexed field are read as.
func Words(s string) []string {
	var out []string
	var buf []byte
	eachWord(s, &buf, func(w []byte) { out = append(out, string(w)) })
	return out
}

package search

import (
	"strings"
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

// eachWord calls fn with each word of s, lower-cased, in order: runs of
// letters and digits. Each word is a part of s lower-cased as a whole (s
// itself when it holds no upper case), so reading words costs no
// allocation per word.
func eachWord(s string, fn func(word string)) {
	s = strings.ToLower(s)
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch in := isWordRune(r); {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			fn(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// Words are the words of s, lower-cased, in order: what a query and every
// indexed field are read as.
func Words(s string) []string {
	var out []string
	eachWord(s, func(w string) { out = append(out, w) })
	return out
}

// Package jsonstring writes a Go string as a JSON string, byte for byte as
// encoding/json writes it with HTML escaping off, without an encoder.
package jsonstring

import (
	"encoding/binary"
	"unicode/utf8"
)

// Append appends s to dst as a JSON string exactly as encoding/json writes it
// with HTML escaping off (\b and \f short forms, invalid UTF-8 as \ufffd,
// U+2028 and U+2029 escaped). A json.Encoder per string costs an allocation and
// a reflection round trip; rule bodies write tens of strings each, and a tree
// of 100 000 sources serves millions.
func Append(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	wordsFrom := 0 // where the next word may be passed over whole
	for i := 0; i < len(s); {
		if i >= wordsFrom {
			// Most strings are ASCII with nothing to escape: passed over
			// eight bytes at a time while a word holds none of what stops
			// the byte loop below (a control byte, '"', '\\', or a byte of
			// a multi-byte sequence). The word that stops it is read byte
			// by byte, not tested again at every byte.
			for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
				i += 8
			}
			if i >= len(s) {
				break
			}
			wordsFrom = i + 8
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainWord reports whether none of x's eight bytes is a control byte
// (below 0x20), '"', '\\' or 0x80 and above: the bytes JSON writes as they
// are. Each test is the exact "has a zero byte" or "has a byte less than n"
// of a word (Hacker's Delight 6-1), so a word reported plain is.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - 0x20*ones) &^ x // a byte below 0x20 sets its high bit
	quote := x ^ '"'*ones        // a '"' is a zero byte
	backslash := x ^ '\\'*ones
	return (less|(quote-ones)&^quote|(backslash-ones)&^backslash|x)&highs == 0
}

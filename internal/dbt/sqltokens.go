package dbt

import "strings"

// sqlTokens splits compiled SQL into the token list of spec §8.5, so that two
// compilations differing only in layout or comments compare equal while any
// change inside a literal does not: whitespace and comments are dropped,
// quoted strings and identifiers are single verbatim tokens, word runs keep
// their case, every other character is a token of its own.
func sqlTokens(sql string) []string {
	var out []string
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql) // an unterminated comment runs to the end, as in SQL
			} else {
				i += 2 + end + 2
			}
		case c == '\'' || c == '"' || c == '`':
			j := quotedEnd(sql, i)
			out = append(out, sql[i:j])
			i = j
		case isWordByte(c):
			j := i + 1
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			out = append(out, sql[i:j])
			i = j
		default:
			out = append(out, sql[i:i+1])
			i++
		}
	}
	return out
}

// quotedEnd returns the index just past the quoted token starting at i; a
// doubled quote inside it is part of the token.
func quotedEnd(s string, i int) int {
	q := s[i]
	j := i + 1
	for j < len(s) {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j += 2
				continue
			}
			return j + 1
		}
		j++
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func sameTokens(a, b string) bool {
	ta, tb := sqlTokens(a), sqlTokens(b)
	if len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		if ta[i] != tb[i] {
			return false
		}
	}
	return true
}

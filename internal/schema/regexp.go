package schema

import (
	"fmt"
	"regexp"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// pyRegexp compiles a schema pattern with the semantics of Python's re.search,
// which the reference validates with: a match anywhere in the value, "^" at the
// start only, and "$" at the very end or just before a final line feed ("abc\n"
// matches "…c$"). Go's RE2 has no such "$", so an unescaped "$" outside a
// character class becomes (?:\n?\z), and "\Z" becomes "\z". The schemas use no
// other construct where the two dialects differ (\d, \w and \s are not used).
func pyRegexp(pattern string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(translatePattern(pattern))
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	return &pyRe{re: re, src: pattern}, nil
}

type pyRe struct {
	re  *regexp.Regexp
	src string
}

// String is the pattern as written in the schema: messages quote it.
func (r *pyRe) String() string { return r.src }

// MatchString reports whether the pattern is found in s. A non-string mapping
// key (see nonStringKey) never matches: Python cannot search one.
func (r *pyRe) MatchString(s string) bool {
	if strings.HasPrefix(s, nonStringKey) {
		return false
	}
	return r.re.MatchString(s)
}

func translatePattern(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteByte(c)
				b.WriteByte(p[i+1])
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// "]" right after "[" or "[^" is a member, not the end.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '$':
			b.WriteString(`(?:\n?\z)`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

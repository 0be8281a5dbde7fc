package yaml11

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// PyStr is Python's str() of the value the reference's loader would have built:
// the text the reference uses for a bare owner item or a non-string root key.
func PyStr(n *Node) string {
	switch n.Kind {
	case String:
		return n.Str
	case Timestamp:
		return timeStr(*n.Time, " ")
	}
	return PyRepr(n)
}

// PyRepr is Python's repr() of the value, the notation the reference prints in
// messages (validation.md §2.5).
func PyRepr(n *Node) string {
	var b strings.Builder
	writeRepr(&b, n, scalarRepr, math.MaxInt)
	return b.String()
}

// scalarRepr is the repr of a scalar n; a list or mapping is written by
// writeRepr.
func scalarRepr(n *Node) string {
	switch n.Kind {
	case Null:
		return "None"
	case Bool:
		if n.Bool {
			return "True"
		}
		return "False"
	case Int:
		if n.BigInt != nil {
			return n.BigInt.String()
		}
		return strconv.FormatInt(n.Int, 10)
	case Float:
		return PyFloat(n.Float)
	case String:
		return PyQuote(n.Str)
	case Timestamp:
		return timeRepr(*n.Time)
	}
	return ""
}

// writeRepr writes n's repr, each scalar in it as scalar writes it, and
// stops once b holds more than max bytes, reporting whether it wrote
// everything.
func writeRepr(b *strings.Builder, n *Node, scalar func(*Node) string, max int) bool {
	if b.Len() > max {
		return false
	}
	switch n.Kind {
	case Seq:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if !writeRepr(b, it, scalar, max) {
				return false
			}
		}
		b.WriteByte(']')
	case Map:
		b.WriteByte('{')
		for i, p := range n.Pairs {
			if i > 0 {
				b.WriteString(", ")
			}
			if !writeRepr(b, p.Key, scalar, max) {
				return false
			}
			b.WriteString(": ")
			if !writeRepr(b, p.Value, scalar, max) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		b.WriteString(scalar(n))
	}
	return b.Len() <= max
}

// MaxQuoted is about how many characters of a value a message quotes
// (ShortRepr): enough to recognise the value, too few to copy a file into a
// message. A file read by mistake (a secret a symbolic link leads to, read as
// a governance document) is one scalar, which a message would otherwise
// quote whole.
const MaxQuoted = 40

// ShortRepr is PyRepr cut for a message: a string to its first MaxQuoted
// characters, a long integer to its first digits and their count, a list or
// mapping to about twice as many characters; "…" marks a cut. It costs time
// in the length of what it returns, not of the value.
func ShortRepr(n *Node) string {
	switch n.Kind {
	case String:
		return shortQuote(n.Str)
	case Int:
		if n.BigInt != nil {
			s := n.BigInt.String()
			digits := len(strings.TrimPrefix(s, "-"))
			if digits > MaxQuoted {
				return s[:len(s)-digits+MaxQuoted] + fmt.Sprintf("…(%d digits)", digits)
			}
			return s
		}
	case Seq, Map:
		var b strings.Builder
		if !writeRepr(&b, n, ShortRepr, 2*MaxQuoted) {
			return cutRunes(b.String(), 2*MaxQuoted) + "…"
		}
		return b.String()
	}
	return PyRepr(n)
}

// shortQuote is PyQuote of s's first MaxQuoted characters, with "…" inside
// the quotes when s is longer.
func shortQuote(s string) string {
	cut := cutRunes(s, MaxQuoted)
	if len(cut) == len(s) {
		return PyQuote(s)
	}
	q := PyQuote(cut)
	return q[:len(q)-1] + "…" + q[len(q)-1:]
}

// cutRunes is s's first n characters.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// PyFloat is Python's repr of a float: the shortest round-tripping digits,
// positional for decimal exponents -4 ≤ e < 16, otherwise d.ddde±XX.
func PyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// PyQuote is Python's repr of a str.
func PyQuote(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !pyPrintable(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// pyPrintable mirrors Python's str.isprintable for one non-ASCII code point: not
// in categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs.
func pyPrintable(r rune) bool {
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	// Cn: unassigned code points belong to no category.
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

func timeStr(t Time, sep string) string {
	if t.DateOnly {
		return t.T.Format("2006-01-02")
	}
	s := t.T.Format("2006-01-02") + sep + t.T.Format("15:04:05")
	if us := t.T.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if t.HasZone {
		s += zoneSuffix(t)
	}
	return s
}

func zoneSuffix(t Time) string {
	_, off := t.T.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
}

// ISO renders a timestamp as Python's isoformat(): 2024-01-01,
// 2024-01-01T10:00:00[.ffffff][±HH:MM].
func (t Time) ISO() string { return timeStr(t, "T") }

func timeRepr(t Time) string {
	d := t.T
	if t.DateOnly {
		return fmt.Sprintf("datetime.date(%d, %d, %d)", d.Year(), int(d.Month()), d.Day())
	}
	s := fmt.Sprintf("datetime.datetime(%d, %d, %d, %d, %d", d.Year(), int(d.Month()), d.Day(), d.Hour(), d.Minute())
	us := d.Nanosecond() / 1000
	if d.Second() != 0 || us != 0 {
		s += fmt.Sprintf(", %d", d.Second())
	}
	if us != 0 {
		s += fmt.Sprintf(", %d", us)
	}
	if t.HasZone {
		_, off := d.Zone()
		if off == 0 {
			s += ", tzinfo=datetime.timezone.utc"
		} else {
			days := 0
			if off < 0 {
				days = -1
				off += 86400
			}
			td := fmt.Sprintf("seconds=%d", off)
			if days != 0 {
				td = fmt.Sprintf("days=%d, %s", days, td)
			}
			s += fmt.Sprintf(", tzinfo=datetime.timezone(datetime.timedelta(%s))", td)
		}
	}
	return s + ")"
}

// Describe names a value for an error message: its kind and, for scalars, the
// value as the reference prints it (cut: ShortRepr), with a hint where YAML 1.1 typing is the
// likely surprise (an unquoted date is not a string).
func Describe(n *Node) string {
	switch n.Kind {
	case Map:
		return "a mapping"
	case Seq:
		return "a list"
	case Null:
		return "null"
	case Timestamp:
		return fmt.Sprintf("the unquoted date %s (quote it to make it a string)", PyStr(n))
	}
	return fmt.Sprintf("%s %s", n.Kind, ShortRepr(n))
}

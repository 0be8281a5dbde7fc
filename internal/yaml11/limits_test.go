package yaml11

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// laughs is the "billion laughs" document: levels anchors, each a list of ten
// aliases to the one before, so the last expands to 10^levels values.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// deepThroughAliases nests an anchored list depth levels deep, then nests
// aliases to it, each copy another depth levels deeper: no part is deeper
// than depth+copies, but read as a tree it is depth*(copies+1) deep.
func deepThroughAliases(depth, copies int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a0: &a0 %sx%s\n", strings.Repeat("[", depth), strings.Repeat("]", depth))
	for i := 1; i <= copies; i++ {
		fmt.Fprintf(&b, "a%d: &a%d %s*a%d%s\n", i, i, strings.Repeat("[", depth), i-1, strings.Repeat("]", depth))
	}
	return b.String()
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		limits Limits
		line   int    // of the error; 0 when the document loads
		msg    string // a substring of the error
	}{
		{name: "billion laughs", doc: laughs(9), line: 6, msg: "aliases expand the document by more than 1000000 values"},
		{name: "a thousand laughs load", doc: laughs(2)},
		{name: "a hundred thousand laughs load", doc: laughs(4)},
		{name: "a million laughs", doc: laughs(5), line: 6, msg: "more than 1000000 values"},
		{name: "a lower bound", doc: laughs(3), limits: Limits{MaxAliasValues: 500}, line: 3, msg: "more than 500 values"},
		{name: "no bound", doc: laughs(6), limits: Limits{MaxAliasValues: -1}},
		{name: "merge-key laughs", doc: "a: &a {x0: 0, x1: 1, x2: 2, x3: 3, x4: 4, x5: 5, x6: 6, x7: 7, x8: 8, x9: 9}\n" +
			"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
			"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
			"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n" +
			"f: {<<: [*a], g: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]}\n", line: 6, msg: "more than 1000000 values"},
		{name: "nesting", doc: strings.Repeat("[", 1002) + strings.Repeat("]", 1002), line: 1, msg: "nesting deeper than 1000 levels"},
		{name: "nesting at the limit", doc: strings.Repeat("[", 1001) + strings.Repeat("]", 1001)},
		{name: "nesting through aliases", doc: deepThroughAliases(400, 3), line: 3, msg: "nesting deeper than 1000 levels through aliases"},
		{name: "shallow aliases", doc: deepThroughAliases(300, 2)},
		{name: "a lower depth", doc: "a: [[[x]]]\n", limits: Limits{MaxDepth: 2}, line: 1, msg: "nesting deeper than 2 levels"},
		{name: "size", doc: "a: " + strings.Repeat("x", 100) + "\n", limits: Limits{MaxBytes: 64}, msg: "more than the limit of 64"},
		{name: "nodes", doc: "[1, 2, 3, 4, 5]", limits: Limits{MaxNodes: 4}, line: 1, msg: "more than 4 values"},
		{name: "recursive alias", doc: "a: &a [*a]\n", line: 1, msg: "recursive alias"},
		// Integer digits: converting text to a big integer costs time
		// quadratic in its digits, so millions of digits would hold the
		// reader for a long time.
		{name: "a 4-million-digit integer", doc: "a: 1\nb: " + strings.Repeat("7", 4_000_000) + "\n", line: 2, msg: "an integer of 4000000 digits, more than the limit of 4300 digits"},
		{name: "4301 digits", doc: "a: -" + strings.Repeat("1", 4301) + "\n", line: 1, msg: "an integer of 4301 digits, more than the limit of 4300"},
		{name: "4300 digits load", doc: "a: -" + strings.Repeat("1", 4300) + "\n"},
		{name: "underscores are not digits", doc: "a: " + strings.Repeat("1_", 4299) + "1\n"},
		{name: "leading zeros are digits", doc: "a: 1" + strings.Repeat("0", 4300) + "\n", line: 1, msg: "4301 digits"},
		{name: "hexadecimal digits count", doc: "a: 0x" + strings.Repeat("f", 4301) + "\n", line: 1, msg: "4301 digits"},
		{name: "binary digits count", doc: "a: 0b" + strings.Repeat("1", 4301) + "\n", line: 1, msg: "4301 digits"},
		{name: "octal digits count", doc: "a: 0" + strings.Repeat("7", 4300) + "\n", line: 1, msg: "4301 digits"},
		{name: "base 60", doc: "a: 1" + strings.Repeat(":59", 2200) + "\n", line: 1, msg: "4401 digits"},
		{name: "an explicit tag", doc: "a: !!int " + strings.Repeat("9", 5000) + "\n", line: 1, msg: "5000 digits"},
		{name: "a key", doc: "? " + strings.Repeat("9", 5000) + "\n: x\n", line: 1, msg: "5000 digits"},
		{name: "a lower digit limit", doc: "a: 123456\n", limits: Limits{MaxIntDigits: 5}, line: 1, msg: "6 digits, more than the limit of 5"},
		{name: "no digit limit", doc: "a: " + strings.Repeat("9", 5000) + "\n", limits: Limits{MaxIntDigits: -1}},
		// Floats convert in time linear in their text: no digit limit.
		{name: "a float of 4 million digits", doc: "a: 1." + strings.Repeat("7", 4_000_000) + "e+99999999999999999999\n"},
		{name: "a quoted integer is a string", doc: "a: '" + strings.Repeat("7", 10_000) + "'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseWithWarnings([]byte(tt.doc), tt.limits)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ye *Error
			if !errors.As(err, &ye) {
				t.Fatalf("err = %v (%T), want a *yaml11.Error", err, err)
			}
			if !strings.Contains(ye.Msg, tt.msg) || ye.Line != tt.line {
				t.Errorf("err = %v, want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

// TestAliasSharingStaysShared: aliases within the bounds still share their
// anchor's node (the bounds count, they do not copy).
func TestAliasSharingStaysShared(t *testing.T) {
	n, err := Parse([]byte(laughs(3)))
	if err != nil {
		t.Fatal(err)
	}
	l3 := n.Get("l3")
	if l3.Items[0] != l3.Items[9] || l3.Items[0] != n.Get("l2") {
		t.Error("an alias was copied instead of shared")
	}
	got, err := n.Get("l1").MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := "[" + strings.Repeat(`["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"],`, 9) + `["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("l1 (-want +got):\n%s", diff)
	}
}

// BenchmarkHugeNumbers: a number of millions of digits costs time linear in
// its text: an integer is refused after counting its digits, a float
// converted through strconv, which reads a bounded number of them.
func BenchmarkHugeNumbers(b *testing.B) {
	for _, tt := range []struct{ name, doc string }{
		{"int-4M-digits", "a: " + strings.Repeat("7", 4_000_000) + "\n"},
		{"float-4M-digits", "a: 1." + strings.Repeat("7", 4_000_000) + "\n"},
		{"float-huge-exponent", "a: 1.5e+" + strings.Repeat("9", 4_000_000) + "\n"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.doc)))
			for b.Loop() {
				_, _, _ = ParseWithWarnings([]byte(tt.doc), Limits{})
			}
		})
	}
}

// TestShortRepr: a message quotes at most about MaxQuoted characters of a
// value, whatever its size.
func TestShortRepr(t *testing.T) {
	long := strings.Repeat("abcdefghij", 10)
	tests := []struct{ doc, want string }{
		{"short", "'short'"},
		{long, "'" + long[:40] + "…'"},
		{"\"it's " + long + "\"", `"it's ` + long[:35] + `…"`},
		{strings.Repeat("é", 50), "'" + strings.Repeat("é", 40) + "…'"},
		{"12", "12"},
		{strings.Repeat("9", 100), strings.Repeat("9", 40) + "…(100 digits)"},
		{"-" + strings.Repeat("9", 100), "-" + strings.Repeat("9", 40) + "…(100 digits)"},
		{"[1, 2]", "[1, 2]"},
		{"{a: " + long + "}", "{'a': '" + long[:40] + "…'}"},
		{"[" + strings.Repeat("1234567, ", 100) + "1]", "[" + strings.Repeat("1234567, ", 8) + "1234567…"},
	}
	for _, tt := range tests {
		n, err := Parse([]byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := ShortRepr(n); got != tt.want {
			t.Errorf("ShortRepr(%.30s…) = %q, want %q", tt.doc, got, tt.want)
		}
	}
	if got := Describe(&Node{Kind: String, Str: long}); got != "string '"+long[:40]+"…'" {
		t.Errorf("Describe = %q", got)
	}
}

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

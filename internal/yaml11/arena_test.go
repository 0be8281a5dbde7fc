package yaml11

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nodeDiff compares two trees value by value, positions included.
func nodeDiff(want, got *Node) string {
	return cmp.Diff(want, got, cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 }))
}

func TestArena(t *testing.T) {
	docs := []struct{ name, text string }{
		{"scalars", "a: 1\nb: 1.5\nc: true\nd: null\ne: 2024-01-01 10:00:00+05:30\nf: 'x'\ng: 123456789012345678901234567890\n"},
		{"nested", "datasets:\n  a.b:\n    tags: [x, y]\n    ownership: [{name: o, type: DATA_OWNER}]\n"},
		{"anchors and merge keys", "x: &A {p: 1, q: [1, 2]}\ny: {<<: *A, q: 2}\nz: *A\n"},
		{"empty collections", "a: {}\nb: []\n"},
	}
	// One arena for every case, so that each document is read into the
	// memory the one before it used.
	var a Arena
	if _, err := ParseDocumentIn([]byte("filler: [1, 2, 3, {a: b, c: d}]\n"), Limits{}, &a); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			a.Reset()
			heap, err := ParseDocument([]byte(d.text), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			in, err := ParseDocumentIn([]byte(d.text), Limits{}, &a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := nodeDiff(heap.Root, in.Root); diff != "" {
				t.Fatalf("read into an arena (-heap +arena):\n%s", diff)
			}
			kept := in.Root.Clone()
			a.Reset()
			if diff := nodeDiff(heap.Root, kept); diff != "" {
				t.Fatalf("a clone after the arena's reset (-heap +clone):\n%s", diff)
			}
		})
	}
}

// An alias's node stays one node in a clone: a walk that remembers anchored
// nodes (Node.Anchored) visits it once.
func TestCloneSharesAliases(t *testing.T) {
	var a Arena
	d, err := ParseDocumentIn([]byte("x: &A {p: 1}\ny: *A\n"), Limits{}, &a)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Root.Clone()
	if c.Get("x") != c.Get("y") {
		t.Error("the clone made two copies of an anchored node")
	}
	if c.Get("x") == d.Root.Get("x") {
		t.Error("the clone shares a node with the arena")
	}
}

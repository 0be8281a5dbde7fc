package yaml11

import (
	"testing"
	"unsafe"
)

// TestNodeSize holds a Node to Go's 128-byte size class: a tree check holds a
// Node per value of every document of a tree at once, and the next class up
// is 160 bytes (node.go).
func TestNodeSize(t *testing.T) {
	if size := unsafe.Sizeof(Node{}); size > 128 {
		t.Errorf("a Node is %d bytes, more than the 128-byte size class", size)
	}
}

// TestAnchored holds which nodes are marked as anchored: the anchored ones,
// however they are reached, and nothing else (validate remembers only these
// when it walks a tree).
func TestAnchored(t *testing.T) {
	n, err := Parse([]byte("a: &a [1, {x: 2}]\nb: [*a, *a]\nc: &c 3\nd: *c\nm: &m {k: [v]}\nn: {<<: *m, j: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		node *Node
		want bool
	}{
		{"root", n, false},
		{"anchored sequence", n.Get("a"), true},
		{"its item", n.Get("a").Items[1], false},
		{"through an alias", n.Get("b").Items[0], true},
		{"the sequence of aliases", n.Get("b"), false},
		{"anchored scalar", n.Get("c"), true},
		{"scalar through an alias", n.Get("d"), true},
		{"merge source", n.Get("m"), true},
		{"a merged value", n.Get("n").Get("k"), false},
		{"the merging mapping", n.Get("n"), false},
	}
	for _, tt := range tests {
		if tt.node.Anchored != tt.want {
			t.Errorf("%s: Anchored = %v, want %v", tt.name, tt.node.Anchored, tt.want)
		}
	}
	if n.Get("b").Items[0] != n.Get("a") || n.Get("n").Get("k") != n.Get("m").Get("k") {
		t.Error("aliases and merged pairs no longer share the nodes they name; Anchored's reasoning (node.go) needs revisiting")
	}
}

// TestKeyIndex holds KeyIndex to Get: the same value for every key, string
// keys only, nil for anything but a mapping.
func TestKeyIndex(t *testing.T) {
	n, err := Parse([]byte("m: {a: 1, 2: b, c: [x], a: 3}\ns: [a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := n.Get("m")
	idx := m.KeyIndex()
	if len(idx) != 2 {
		t.Errorf("KeyIndex has %d keys, want 2 (a and c; 2 is not a string)", len(idx))
	}
	for _, k := range []string{"a", "c", "2", "z"} {
		if idx[k] != m.Get(k) {
			t.Errorf("KeyIndex()[%q] = %v, Get = %v", k, idx[k], m.Get(k))
		}
	}
	for name, node := range map[string]*Node{"sequence": n.Get("s"), "missing": n.Get("nope")} {
		if got := node.KeyIndex(); got != nil {
			t.Errorf("%s: KeyIndex = %v, want nil", name, got)
		}
	}
}

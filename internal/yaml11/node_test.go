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

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestBufferLogKeepsEveryLineInOrder: batching must not lose, reorder or
// split lines, and the flush at exit writes what is left.
func TestBufferLogKeepsEveryLineInOrder(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, flush := bufferLog(f)
	if _, ok := w.(*lineBuffer); !ok {
		t.Fatalf("a file is written through %T, want a lineBuffer", w)
	}
	const writers, lines = 4, 5000 // enough to cross flushAt several times
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "{\"writer\":%d,\"line\":%d}\n", g, i)
			}
		})
	}
	wg.Wait()
	flush()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var g, i int
		if _, err := fmt.Sscanf(string(l), "{\"writer\":%d,\"line\":%d}", &g, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d after %d", g, i, next[g]-1)
		}
		next[g]++
	}
	for g, n := range next {
		if n != lines {
			t.Errorf("writer %d: %d lines, want %d", g, n, lines)
		}
	}
	if w, _ := bufferLog(&bytes.Buffer{}); w == nil {
		t.Fatal("no writer for a buffer")
	} else if _, ok := w.(*bytes.Buffer); !ok {
		t.Errorf("a buffer is wrapped in %T, want it written directly", w)
	}
}

package snapshot

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileCache: a file read once is served from memory while its identity
// holds, read again once it changed, and dropped once no reading reads it.
func TestFileCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "governance.yaml")
	if err := os.WriteFile(p, []byte("defaults: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(p, "/")
	c := newFileCache()
	read := func() (string, bool) {
		t.Helper()
		r := c.reading(os.DirFS("/").(osRoot))
		if _, err := r.Stat(name); err != nil {
			t.Fatal(err)
		}
		f, err := r.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		_, fromMemory := f.(*memFile)
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		r.done()
		return string(b), fromMemory
	}
	if got, mem := read(); got != "defaults: {}\n" || mem {
		t.Fatalf("first read %q from memory %v", got, mem)
	}
	if got, mem := read(); got != "defaults: {}\n" || !mem {
		t.Fatalf("second read %q from memory %v, want the cached bytes", got, mem)
	}
	if err := os.WriteFile(p, []byte("defaults: {expose: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, mem := read(); got != "defaults: {expose: true}\n" || mem {
		t.Fatalf("after an edit: %q from memory %v, want the new bytes from disk", got, mem)
	}
	c.reading(os.DirFS("/").(osRoot)).done() // a reading that reads nothing
	if len(c.files) != 0 {
		t.Errorf("%d files kept after a reading that read none", len(c.files))
	}
}

// Package testfs lays out files for tests: the governance trees, overlays
// and registries that tests of several packages build on disk.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files (slash-separated path under dir → content), with the
// directories they need, failing the test on any error.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Tree writes files under a new temporary directory and returns it.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	return dir
}

// Package testfs lays out files for tests: the governance trees, overlays
// and registries that tests of several packages build on disk, and the
// generated trees the scale benchmarks run over.
package testfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/treegen"
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

// Generated writes a generated tree under a new temporary directory and
// returns it.
func Generated(t testing.TB, tree *treegen.Tree) string {
	t.Helper()
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// EachScale runs f as a sub-benchmark of b for each of treegen.ScaleSizes,
// named by the size n, with the generated tree of n sources
// (treegen.Scale), whose YAML bytes are the work's throughput (b.SetBytes),
// allocations reported. The tree is generated in the sub-benchmark, so a
// size that -bench leaves out costs nothing.
func EachScale(b *testing.B, f func(b *testing.B, n int, tree *treegen.Tree)) {
	for _, n := range treegen.ScaleSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			tree := treegen.Generate(treegen.Scale(n))
			b.SetBytes(int64(tree.Bytes()))
			b.ReportAllocs()
			f(b, n, tree)
		})
	}
}

// Append adds text at the end of the file name (slash-separated, under dir),
// as an editor or a sync appending to it would, failing the test on any error.
func Append(t testing.TB, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(name)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Replace rewrites the file name (slash-separated, under dir) with its first
// old replaced by new, failing the test when the file holds no old: an edit
// that changes nothing would test nothing.
func Replace(t testing.TB, dir, name, old, new string) {
	t.Helper()
	replace(t, dir, name, old, new, 1)
}

// ReplaceAll is Replace for every old in the file.
func ReplaceAll(t testing.TB, dir, name, old, new string) {
	t.Helper()
	replace(t, dir, name, old, new, -1)
}

func replace(t testing.TB, dir, name, old, new string, n int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", name, old)
	}
	Write(t, dir, map[string]string{name: strings.Replace(string(b), old, new, n)})
}

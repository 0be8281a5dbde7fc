//go:build unix

package check

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/celine-eu/governanced/internal/testctx"
)

// countingFS counts the bytes read through it.
type countingFS struct {
	fs.FS
	read *int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, c.read}, nil
}

// Stat is the file system's own: fs.Stat without it opens the file, and
// opening a FIFO blocks.
func (c countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

type countingFile struct {
	fs.File
	read *int64
}

func (c countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	*c.read += int64(n)
	return n, err
}

// endless is a file that says it is small and never ends: a file growing
// between the check of its size and the read.
type endless struct{ fs.FileInfo }

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
func (e endless) Stat() (fs.FileInfo, error) { return e.FileInfo, nil }
func (endless) Close() error                 { return nil }

type endlessFS struct{ fstest.MapFS }

func (e endlessFS) Open(name string) (fs.File, error) {
	info, err := e.MapFS.Stat(name)
	if err != nil {
		return nil, err
	}
	return endless{info}, nil
}

// TestReadFileOddKinds: an input is opened only when it is a regular file
// within the size limit, and read through the limit: a FIFO (whose open
// would block), a device (whose read never ends), a directory, a 2 GB
// sparse file and a file growing under the read are each refused, after
// reading at most the limit.
func TestReadFileOddKinds(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	sparse := filepath.Join(dir, "sparse")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 2<<30); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "dir"), 0o755)
	os.WriteFile(filepath.Join(dir, "ok"), []byte("a: 1\n"), 0o644)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	root := os.DirFS(dir)
	const limit = 1 << 20
	tests := []struct {
		name string
		fsys fs.FS
		want error
	}{
		{"fifo", root, ErrNotRegular},
		{"zero", root, ErrNotRegular},
		{"dir", root, ErrNotRegular},
		{"sparse", root, ErrTooLarge},
		{"grows", endlessFS{fstest.MapFS{"grows": {Data: []byte("a: 1\n")}}}, ErrTooLarge},
		{"ok", root, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var read int64
			var err error
			testctx.Within(t, "ReadFile", func() { _, _, err = ReadFile(countingFS{tt.fsys, &read}, tt.name, limit) })
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if read > limit+1 {
				t.Errorf("read %d bytes, more than the limit", read)
			}
		})
	}
}

// TestOddFilesThroughTheCheck: the same files named as governance files
// give a load-error finding each, and the check returns.
func TestOddFilesThroughTheCheck(t *testing.T) {
	dir := t.TempDir()
	for _, app := range []string{"fifo", "sparse", "zero"} {
		os.MkdirAll(filepath.Join(dir, "apps", app), 0o755)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "apps/fifo/governance.yaml"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.WriteFile(filepath.Join(dir, "apps/sparse/governance.yaml"), nil, 0o644)
	os.Truncate(filepath.Join(dir, "apps/sparse/governance.yaml"), 2<<30)
	os.Symlink("/dev/zero", filepath.Join(dir, "apps/zero/governance.yaml"))
	var rep *Report
	var err error
	testctx.Within(t, "the check", func() {
		rep, err = Run(context.Background(), Options{Paths: []string{"apps/fifo/governance.yaml", "apps/sparse/governance.yaml", "apps/zero/governance.yaml"}, Dir: dir})
	})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, f := range rep.Findings {
		if f.Severity == Error {
			found[f.File+" "+f.Code] = f.Message
		}
	}
	// check.md §3.2: a path that is not a regular file contributes nothing,
	// which is an error of its own; a regular file over the limit is read
	// no further than its size.
	for key, msg := range map[string]string{
		"apps/fifo/governance.yaml " + CodePathNoMatch: "matches no governance file",
		"apps/sparse/governance.yaml " + CodeLoadError: "too large: 2147483648 bytes, more than the limit of 67108864",
		"apps/zero/governance.yaml " + CodePathNoMatch: "matches no governance file",
	} {
		if !strings.Contains(found[key], msg) {
			t.Errorf("%s: %q, want an error saying %q", key, found[key], msg)
		}
	}
}

package demo

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed tree
var files embed.FS

// FS is the demo tree: apps/<app>/governance.yaml, an overlay beside the
// meters app, and owners.yaml at the top.
func FS() fs.FS {
	sub, err := fs.Sub(files, "tree")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// OwnersFile is the registry's path inside the tree.
const OwnersFile = "owners.yaml"

// WriteTo copies the demo tree into dir, which must exist. The server checks
// and serves it from there with the same code as any tree on disk.
func WriteTo(dir string) error {
	return fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

package demo

import (
	"embed"
	"io/fs"
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

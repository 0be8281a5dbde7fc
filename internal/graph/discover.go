package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the only file name that becomes a node. governance.<name>.yaml
// beside it is a deployer overlay, not a pipeline.
const FileName = "governance.yaml"

// File is one governance file discovery found.
type File struct {
	// Path is the file as printed: the hit text as pathlib normalises it,
	// joined with governance.yaml for a directory (graph.md §3).
	Path string
	// open is the path read: Path joined to the working directory.
	open string
	// dir is the directory Path names, symlinks resolved: the pipeline's
	// name comes from it (§4.1, §12.1 C5).
	dir string
}

// Discovery is what a set of patterns names.
type Discovery struct {
	Files []File
	// SkippedOverlays are the governance.<name>.yaml (and governance.yml)
	// files a pattern named, as printed. They are never nodes; a caller who
	// globbed a directory of overlays and got no graph is owed the reason.
	SkippedOverlays []string
	// dir is the working directory the patterns were expanded in.
	dir string
}

// Discover expands patterns as the reference does (graph.md §3): each with
// Python's glob(recursive=True) semantics, its hits sorted by their raw text
// (§12.1 C3); a directory contributes the governance.yaml directly inside it
// when that is a regular file, a file named governance.yaml is a pipeline, a
// governance.*.yaml or .yml file is a skipped overlay, anything else is
// ignored. Files and overlays are each kept once by resolved path, the first
// spelling winning.
//
// dir is the working directory relative patterns are taken against; ""
// means the process's. Nothing matching is not an error here: the caller
// decides (the command ends with "No governance.yaml matched").
func Discover(dir string, patterns []string) (*Discovery, error) {
	f, err := newFS(dir)
	if err != nil {
		return nil, err
	}
	d := &Discovery{dir: f.dir}
	seenFiles, seenOverlays := map[string]bool{}, map[string]bool{}
	for _, pattern := range patterns {
		for _, hit := range f.pyGlob(pattern) {
			switch name := pathName(hit); {
			case f.IsDir(hit):
				candidate := pathJoin(hit, FileName)
				if f.isRegular(candidate) {
					d.addFile(f, candidate, seenFiles)
				}
			case name == FileName:
				d.addFile(f, pathStr(hit), seenFiles)
			case isOverlayName(name):
				p := pathStr(hit)
				if id := f.realPath(p); !seenOverlays[id] {
					seenOverlays[id] = true
					d.SkippedOverlays = append(d.SkippedOverlays, p)
				}
			}
		}
	}
	return d, nil
}

func (d *Discovery) addFile(f fsys, p string, seen map[string]bool) {
	id := f.realPath(p)
	if seen[id] {
		return
	}
	seen[id] = true
	d.Files = append(d.Files, File{Path: p, open: f.abs(p), dir: f.realPath(pathParent(p))})
}

// isOverlayName is the reference's test for a deployer overlay's file name:
// it starts with "governance." and its suffix is .yaml or .yml (so
// governance.yml itself is one).
func isOverlayName(name string) bool {
	return strings.HasPrefix(name, "governance.") &&
		(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"))
}

func newFS(dir string) (fsys, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fsys{}, fmt.Errorf("the working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fsys{}, err
	}
	// The reference resolves against os.getcwd(), which the kernel reports
	// with every symlink resolved.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return fsys{dir: abs}, nil
}

package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// A snapshot's inputs as a tree of files under their served names: what a
// state directory keeps (internal/state), so that a server starting on a
// tree it must reject can serve the last revision it activated. Read from
// those files alone (InputTree.Loader), the inputs are the same files under the
// same names and options, so the check, the revision and every answer are
// the same (TestTreeRebuildsTheRevision).

// InputTree is what a snapshot was built from, as files under their served
// names.
type InputTree struct {
	// Inputs are the options the snapshot was built with, every tree root
	// and file named by its served name: a Loader reading a file system
	// holding each file at that name reads the same inputs.
	Inputs Inputs
	// Files are every input by served name and hash (Snapshot.Inputs).
	Files []InputFile
	// Dirs are the directories the check looked at that need not hold an
	// input: the overlay directory, and the directories of the apps
	// directory that hold no governance.yaml (no-governance-in-dir).
	Dirs []string
}

// Loader is a loader of the tree laid out in fsys: each of Files at its
// path, each of Dirs a directory.
func (t InputTree) Loader(fsys fs.FS) *Loader { return &Loader{Inputs: t.Inputs, FS: fsys} }

// InputTree is what s was built from, as files under their served names.
func (s *Snapshot) InputTree() InputTree { return s.tree }

// servedAs is in with every root and file named by its served name in v.
func (in Inputs) servedAs(v view) Inputs {
	return Inputs{
		Trees:          slices.Clone(v.trees[:len(in.Trees)]),
		Base:           v.base,
		TreeName:       in.TreeName,
		OverlayName:    in.OverlayName,
		OverlayDir:     v.overlayDir,
		Owners:         slices.Clone(v.owners),
		Placeholders:   v.placeholders,
		Dataspace:      in.Dataspace,
		Strict:         in.Strict,
		NoInferFromDir: in.NoInferFromDir,
	}
}

// tree is the tree of a build of r serving files, whose check reported rep.
func (r *reading) tree(files []InputFile, rep *check.Report) InputTree {
	t := InputTree{Inputs: r.served, Files: files}
	if r.view.overlayDir != "" {
		t.Dirs = append(t.Dirs, r.view.overlayDir)
	}
	for _, f := range rep.Findings {
		if f.Code == check.CodeNoGovernanceInDir && f.File != "" {
			t.Dirs = append(t.Dirs, f.File)
		}
	}
	slices.Sort(t.Dirs)
	t.Dirs = slices.Compact(t.Dirs)
	return t
}

// inputSource is where a reading's inputs can be read again.
type inputSource struct {
	fsys  fs.FS             // nil: the operating system's, by rooted name
	names map[string]string // served name → name in fsys
}

// ErrNotReadable is an input a snapshot cannot read again: one it did not
// read itself (an app held at files the tree no longer holds, a snapshot
// restored from a state directory).
var ErrNotReadable = errors.New("the snapshot did not read this input, so it cannot read it again")

// ReadInput reads the input served as path (one of InputTree().Files) where the
// snapshot's reading read it, and fails with ErrInputsChanged unless its
// bytes are still those the snapshot was built from.
func (s *Snapshot) ReadInput(path string) ([]byte, error) {
	i, found := slices.BinarySearchFunc(s.Inputs, path, func(f InputFile, p string) int { return strings.Compare(f.Path, p) })
	name, ok := s.source.names[path]
	if !found || !ok || s.Inputs[i].SHA256 == "" {
		return nil, fmt.Errorf("%s: %w", path, ErrNotReadable)
	}
	fsys := s.source.fsys
	if fsys == nil {
		fsys = os.DirFS("/")
	}
	data, _, err := check.ReadFile(fsys, name, yaml11.MaxDocumentBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != s.Inputs[i].SHA256 {
		return nil, fmt.Errorf("%s: %w", path, ErrInputsChanged)
	}
	return data, nil
}

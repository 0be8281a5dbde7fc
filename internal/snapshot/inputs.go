package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Inputs name what a snapshot is built from: the same options `governanced
// validate` takes, so that the tree served is the tree checked.
type Inputs struct {
	// Trees are tree roots: a directory holding apps/<app>/governance.yaml (and
	// overlays beside them), or a directory holding one governance.yaml.
	Trees []string
	// OverlayName is the overlay to look for beside each base instead of the app
	// name ("" pairs by app name).
	OverlayName string
	// OverlayDir is a directory of deployer overlays paired by app name ("" for none).
	OverlayDir string
	// Owners are owners registry files, in precedence order (later shadows earlier).
	Owners []string
	// Placeholders is the deployment's placeholder map file ("" for none).
	Placeholders string
	// Dir is the working directory relative paths are read against and display
	// paths derive from ("" is the process's working directory).
	Dir string
}

// Paths are the check's PATH arguments for the tree roots: `<root>/apps/*` for a
// root with an apps directory, else the root itself (a literal directory
// contributes its governance.yaml).
func (in Inputs) Paths() []string {
	out := make([]string, 0, len(in.Trees))
	for _, t := range in.Trees {
		if info, err := os.Stat(in.abs(filepath.Join(t, "apps"))); err == nil && info.IsDir() {
			out = append(out, joinDisplay(t, "apps/*"))
			continue
		}
		out = append(out, t)
	}
	return out
}

// WatchDirs are the directories whose changes can change the snapshot: every
// tree root (recursively), and flatly each root's parent, the overlay
// directory and the directories holding the owners files and the placeholder
// map.
func (in Inputs) WatchDirs() (recursive, flat []string) {
	for _, t := range in.Trees {
		recursive = append(recursive, in.abs(t))
		// The parent sees a root that is a symlink being swapped.
		flat = append(flat, filepath.Dir(filepath.Clean(in.abs(t))))
	}
	if in.OverlayDir != "" {
		flat = append(flat, in.abs(in.OverlayDir))
	}
	for _, f := range in.Owners {
		flat = append(flat, filepath.Dir(in.abs(f)))
	}
	if in.Placeholders != "" {
		flat = append(flat, filepath.Dir(in.abs(in.Placeholders)))
	}
	slices.Sort(flat)
	return recursive, slices.Compact(flat)
}

func (in Inputs) abs(p string) string {
	if filepath.IsAbs(p) || in.Dir == "" {
		return p
	}
	return filepath.Join(in.Dir, p)
}

// joinDisplay joins a root as the user typed it with a slash path, keeping the
// root's spelling so display paths read the way the user named them.
func joinDisplay(root, rel string) string {
	if root == "." || root == "" {
		return rel
	}
	return strings.TrimRight(filepath.ToSlash(root), "/") + "/" + rel
}

// InputFile is one file the snapshot was built from and the hash of its bytes.
type InputFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // "" when the file does not exist (the check reports that)
}

// fingerprint hashes every input byte: each governance document under the tree
// roots, the overlay directory's overlays, the owners files and the placeholder
// map, plus the options that choose how they combine. Two fingerprints are equal
// exactly when a rebuild would serve the same thing.
func (in Inputs) fingerprint() (revision string, files []InputFile, err error) {
	seen := map[string]bool{}
	// Files are hashed as they are read, through one buffer: a build hashes
	// the tree twice (before and after its check) and every file event once,
	// and reading each file whole allocated the tree's size each time.
	buf := make([]byte, 256<<10)
	fh := sha256.New()
	add := func(display string) {
		if seen[display] {
			return
		}
		seen[display] = true
		fh.Reset()
		if err := hashFile(fh, in.abs(display), buf); err != nil {
			// A missing or unreadable input is the check's to report; hashing
			// records it as absent so that its arrival changes the revision.
			files = append(files, InputFile{Path: display})
			return
		}
		files = append(files, InputFile{Path: display, SHA256: hex.EncodeToString(fh.Sum(nil))})
	}
	for _, root := range in.Trees {
		// A root that is a symlink (git-sync and Kubernetes volumes swap one
		// atomically) is walked where it points now; WalkDir alone would not
		// enter it, and a swap would leave the revision unchanged.
		walkRoot := in.abs(root)
		if resolved, err := filepath.EvalSymlinks(walkRoot); err == nil {
			walkRoot = resolved
		}
		var found []string
		walkErr := filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // a missing root is the check's path-no-match; an unreadable entry its load-error
			}
			if d.IsDir() {
				if p != walkRoot && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if isGovernanceName(d.Name()) {
				rel, err := filepath.Rel(walkRoot, p)
				if err != nil {
					return err
				}
				found = append(found, joinDisplay(root, filepath.ToSlash(rel)))
			}
			return nil
		})
		if walkErr != nil {
			return "", nil, fmt.Errorf("reading tree %s: %w", root, walkErr)
		}
		for _, f := range found {
			add(f)
		}
	}
	if in.OverlayDir != "" {
		entries, _ := os.ReadDir(in.abs(in.OverlayDir))
		for _, e := range entries {
			if !e.IsDir() && isOverlayName(e.Name()) {
				add(joinDisplay(in.OverlayDir, e.Name()))
			}
		}
	}
	for _, f := range in.Owners {
		add(f)
	}
	if in.Placeholders != "" {
		add(in.Placeholders)
	}
	slices.SortFunc(files, func(a, b InputFile) int { return strings.Compare(a.Path, b.Path) })

	h := sha256.New()
	fmt.Fprintf(h, "governanced-snapshot/1\x00trees=%q\x00overlay_name=%q\x00overlay_dir=%q\x00owners=%q\x00placeholders=%q\x00",
		in.Trees, in.OverlayName, in.OverlayDir, in.Owners, in.Placeholders)
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.SHA256)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), files, nil
}

// isGovernanceName reports whether a file name is a base or an overlay.
func isGovernanceName(name string) bool {
	return name == "governance.yaml" || isOverlayName(name)
}

// isOverlayName is check.md's overlay file name: governance.<NAME>.yaml, NAME non-empty.
func isOverlayName(name string) bool {
	rest, ok := strings.CutPrefix(name, "governance.")
	if !ok {
		return false
	}
	mid, ok := strings.CutSuffix(rest, ".yaml")
	return ok && mid != ""
}

func hashFile(h hash.Hash, path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	return err
}

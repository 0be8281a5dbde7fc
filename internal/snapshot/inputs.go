package snapshot

import (
	"path/filepath"
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
	// Dataspace also requires a DID for every owner of a dataspace offer
	// narrowed by an organization filter (validate --dataspace).
	Dataspace bool
	// Strict makes warnings fail the check (validate --strict): a reload
	// whose check has a warning is then rejected like one with an error.
	Strict bool
	// NoInferFromDir leaves each base unchanged when no overlay name is
	// given (check.Options.NoInferFromDir, validate --infer-from-dir=false).
	NoInferFromDir bool
	// Base is a governance file served alone, as the library's
	// auto_discover loads it: no overlay is paired with it. Its app is
	// named TreeName, else after its directory.
	Base string
	// TreeName is the name a single tree that is not a tree of apps (a
	// directory holding one governance.yaml) is served under, and so its
	// app's name; "" is the directory's own name. Both sides of a diff
	// take the head's, so that the same app compares with itself.
	TreeName string
	// Dir is the working directory relative paths are read against and display
	// paths derive from ("" is the process's working directory).
	Dir string
	// AllowOutsideLinks follows symbolic links under a tree root or the
	// overlay directory that lead out of it. Off, such a link fails the
	// reload (contain.go).
	AllowOutsideLinks bool
}

// rootedName is p's name in a file system laid out as the operating
// system's root directory: its absolute path without the leading slash.
func (in Inputs) rootedName(p string) (string, error) {
	abs, err := filepath.Abs(in.abs(p))
	if err != nil {
		return "", err
	}
	name := strings.TrimLeft(filepath.ToSlash(abs), "/")
	if name == "" {
		name = "."
	}
	return name, nil
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

// IsGovernanceName reports whether a file name is a base or an overlay.
func IsGovernanceName(name string) bool {
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

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/gitref"
)

// The served names. Every answer names a file by where it is in the tree
// served, not by where that tree lies on the server's disk: a tree mounted
// at /srv/governance/current (a git-sync link to .worktrees/<hash>) serves
// apps/dwd/governance.yaml, as a reader finds it in the repository, and so
// does a copy of it at /a/tree. The check itself reads the inputs under
// these names (check.Options.Mounts), so a finding's file, its message, a
// provenance's file, the graph's files and the revision all say the same,
// on every replica.
//
// The names:
//   - one tree whose apps are in an apps directory: the tree's root is the
//     top, its files are named as in the tree (apps/dwd/governance.yaml);
//   - a tree of one governance.yaml, or each of several trees: the tree's
//     directory name (Inputs.TreeName for one tree) is its top
//     (weather/governance.yaml), since a lone governance.yaml's app is
//     named after its directory;
//   - the overlay directory, an owners file or the placeholder map: its
//     name in the tree when it lies in one (lexically: deploy/owners.yaml),
//     else its own name (owners.yaml, overlays/governance.dwd.yaml), with
//     as many of the directories above it as it takes to name it apart
//     from everything else served.

// view is where the inputs are served from: the check's mounts, and what
// its options name in them.
type view struct {
	mounts       []check.Mount
	paths        []string // the check's PATH arguments
	overlayDir   string   // "" for none
	owners       []string
	placeholders string // "" for none
	// trees are the tree roots' served names ("." for one apps tree), in
	// the order of Inputs.Trees, then the directory of Inputs.Base.
	trees []string
	base  string // Inputs.Base's served name; "" for none
}

// DuplicateTreeError is two trees that would be served under one name.
type DuplicateTreeError struct{ Name, First, Second string }

func (e *DuplicateTreeError) Error() string {
	return fmt.Sprintf("the trees %s and %s would both be served as %q: every answer names a file by its tree's directory name when several trees are served, so mount them under different names", e.First, e.Second, e.Name)
}

// view lays the inputs out under their served names, reading fsys (rooted:
// laid out as the operating system's root directory) to tell a tree of
// apps from a tree of one governance.yaml.
func (in Inputs) view(fsys fs.FS, rooted bool) (view, error) {
	var v view
	name := in.namer(rooted)
	trees, err := v.addTrees(in, fsys, name)
	if err != nil {
		return v, err
	}
	if err := v.addBase(in, name); err != nil {
		return v, err
	}
	return v, v.addOutside(in, name, trees)
}

// namer is the name of a path the user gave in the file system the inputs
// are read from (rooted: laid out as the operating system's root
// directory).
func (in Inputs) namer(rooted bool) func(p string) (string, error) {
	return func(p string) (string, error) {
		if rooted {
			return in.rootedName(p)
		}
		n := path.Join(in.Dir, filepath.ToSlash(p))
		if !fs.ValidPath(n) {
			return "", fmt.Errorf("%s is not a name in the file system", p)
		}
		return n, nil
	}
}

// servedTree is a tree root: its name in the file system and its served
// name.
type servedTree struct{ name, display string }

// addTrees mounts the tree roots under their served names and adds the
// check's PATH argument for each.
func (v *view) addTrees(in Inputs, fsys fs.FS, name func(string) (string, error)) ([]servedTree, error) {
	// A tree holds apps when it has an apps directory, or something by
	// that name that cannot be read (a link out of the tree, a directory
	// it may not list): the reload then says why, naming it as a tree of
	// apps names it.
	hasApps := func(n string) bool {
		info, err := fs.Stat(fsys, joinName(n, "apps"))
		if err != nil {
			return !errors.Is(err, fs.ErrNotExist)
		}
		return info.IsDir()
	}
	var trees []servedTree
	byDisplay := map[string]string{}
	for _, t := range in.Trees {
		n, err := name(t)
		if err != nil {
			return nil, err
		}
		apps := hasApps(n)
		d := "."
		switch {
		case len(in.Trees) == 1 && apps:
		case len(in.Trees) == 1 && in.TreeName != "":
			d = in.TreeName
		case n != ".":
			d = path.Base(n)
		}
		if first, dup := byDisplay[d]; dup {
			return nil, &DuplicateTreeError{Name: d, First: first, Second: t}
		}
		byDisplay[d] = t
		trees = append(trees, servedTree{n, d})
		v.trees = append(v.trees, d)
		v.mounts = append(v.mounts, check.Mount{Display: d, Name: n})
		if apps {
			v.paths = append(v.paths, joinDisplay(d, "apps/*"))
		} else {
			v.paths = append(v.paths, d)
		}
	}
	return trees, nil
}

// addBase mounts the directory of a file found by discovery, served alone,
// under its app's name.
func (v *view) addBase(in Inputs, name func(string) (string, error)) error {
	if in.Base == "" {
		return nil
	}
	n, err := name(in.Base)
	if err != nil {
		return err
	}
	d := in.TreeName
	if d == "" {
		d = path.Base(path.Dir("/" + n))
	}
	v.trees = append(v.trees, d)
	v.mounts = append(v.mounts, check.Mount{Display: d, Name: path.Dir(n)})
	v.base = joinDisplay(d, path.Base(n))
	v.paths = append(v.paths, v.base)
	return nil
}

// addOutside names the overlay directory, the owners files and the
// placeholder map: by their names in a tree when they lie in one, else
// mounted apart from everything else served.
func (v *view) addOutside(in Inputs, name func(string) (string, error), trees []servedTree) error {
	// What an input outside every tree may not be named: the trees' names,
	// and the apps directory of a tree served at the top.
	taken := append([]string(nil), v.trees...)
	if len(v.trees) == 1 && v.trees[0] == "." {
		taken = []string{"apps"}
	}
	outside := map[string]string{} // name → served name, so a file named twice is one
	serve := func(p string) (string, error) {
		n, err := name(p)
		if err != nil {
			return "", err
		}
		for _, t := range trees {
			if rel, ok := within(t.name, n); ok {
				return joinDisplay(t.display, rel), nil
			}
		}
		if d, ok := outside[n]; ok {
			return d, nil
		}
		d := apart(n, taken)
		taken = append(taken, d)
		outside[n] = d
		v.mounts = append(v.mounts, check.Mount{Display: d, Name: n})
		return d, nil
	}
	var err error
	if in.OverlayDir != "" {
		if v.overlayDir, err = serve(in.OverlayDir); err != nil {
			return err
		}
	}
	for _, o := range in.Owners {
		d, err := serve(o)
		if err != nil {
			return err
		}
		v.owners = append(v.owners, d)
	}
	if in.Placeholders != "" {
		if v.placeholders, err = serve(in.Placeholders); err != nil {
			return err
		}
	}
	return nil
}

// within is name's path inside dir, when it lies there (lexically).
func within(dir, name string) (string, bool) {
	switch {
	case dir == ".":
		return name, true
	case name == dir:
		return ".", true
	}
	rest, ok := strings.CutPrefix(name, dir+"/")
	return rest, ok
}

// apart is the shortest tail of name (its last component, then the two
// last, …) that no taken name holds or lies in.
func apart(name string, taken []string) string {
	parts := strings.Split(name, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		d := strings.Join(parts[i:], "/")
		clash := false
		for _, t := range taken {
			if d == t || strings.HasPrefix(d, t+"/") || strings.HasPrefix(t, d+"/") {
				clash = true
				break
			}
		}
		if !clash {
			return d
		}
	}
	return name
}

// checkOptions are the tree check's options for the inputs served as v:
// the same check `governanced validate` runs, on the same files, under
// their served names.
func (in Inputs) checkOptions(v view, fsys fs.FS, rooted bool) check.Options {
	opts := check.Options{
		Paths: v.paths, Owners: v.owners, FS: fsys, Rooted: rooted, Mounts: v.mounts,
		Dataspace: in.Dataspace, Strict: in.Strict, NoInferFromDir: in.NoInferFromDir || in.Base != "",
	}
	if v.overlayDir != "" {
		opts.OverlayDir = &v.overlayDir
	}
	if in.OverlayName != "" && in.Base == "" {
		opts.OverlayName = &in.OverlayName
	}
	if v.placeholders != "" {
		// The file, not a parsed map: the check then reports a broken map with
		// its file and line like any other input.
		opts.PlaceholdersFile = &v.placeholders
	}
	return opts
}

// Source is where a served tree comes from: its served name and, when it
// is a git checkout (a clone, a git-sync worktree), the commit its HEAD
// names.
type Source struct {
	Tree   string `json:"tree"`
	Commit string `json:"commit,omitempty"`
	Ref    string `json:"ref,omitempty"` // the branch HEAD names; none when detached, as git-sync's worktrees are
}

// sources reads the trees' commits in fsys (the root file system as the
// reading reads it, so a git-sync link swapped meanwhile is not followed
// twice). A tree that is not a checkout, or whose git files say nothing
// readable, has no commit: the commit is for people, and the revision
// never depends on it.
func (in Inputs) sources(fsys fs.FS, v view) []Source {
	out := make([]Source, 0, len(in.Trees))
	for i, t := range in.Trees {
		src := Source{Tree: v.trees[i]}
		if n, err := in.rootedName(t); err == nil {
			if h, err := gitref.Read(fsys, n); err == nil {
				src.Commit, src.Ref = h.Commit, h.Ref
			}
		}
		out = append(out, src)
	}
	return out
}

// The uri base ids of the served report's SARIF rendering: GitHub code
// scanning places a result whose uri is relative to %SRCROOT% on the
// repository's file.
const sarifOutside = "GOVERNANCED_INPUTS"

// sarifBases place each served name in the SARIF rendering: a file of the
// one tree relative to its root (check.SRCROOT), a file of one of several
// trees relative to its tree's, and anything else (an owners file, an
// overlay directory outside the tree) under its served name, relative to
// a base that says it is not the repository's.
func (v view) sarifBases() *check.SARIFBases {
	desc := map[string]string{}
	ids := make([]string, len(v.trees))
	for i, t := range v.trees {
		if len(v.trees) == 1 {
			ids[i] = check.SRCROOT
			desc[ids[i]] = "The root of the served tree: the repository it is a checkout of."
			continue
		}
		ids[i] = "TREE_" + strconv.Itoa(i+1)
		desc[ids[i]] = fmt.Sprintf("The root of the served tree %s.", t)
	}
	// The mounts after the trees' are the inputs outside them.
	var outside []string
	for _, m := range v.mounts[len(v.trees):] {
		outside = append(outside, m.Display)
	}
	if len(outside) > 0 {
		desc[sarifOutside] = "Files the server reads outside its trees (an owners registry, a placeholder map, an overlay directory), by the names it serves them under; they are not in the repository."
	}
	trees := v.trees
	return &check.SARIFBases{Descriptions: desc, Locate: func(file string) (string, string) {
		for _, o := range outside {
			if _, ok := within(o, file); ok {
				return sarifOutside, file
			}
		}
		for i, t := range trees {
			if rel, ok := within(t, file); ok {
				return ids[i], rel
			}
		}
		return sarifOutside, file
	}}
}

// DirName is the name of the directory holding the file p (relative to
// dir): the app a lone governance file is served as when no name is given.
func DirName(p, dir string) string {
	if dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Base(filepath.Dir(p))
	}
	return filepath.Base(filepath.Dir(abs))
}

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
)

// The tree check (check.md §3.2, §4.1) reads only what it can see: an app
// directory whose governance.yaml is a dangling symlink, a directory or
// unreadable, or an overlay beside it that cannot be opened, contributes
// nothing — an info finding at most, often not even that. For `governanced
// validate` that is the reference's behaviour. For the service it would be a
// silent loss: a reload would activate a snapshot without the app's datasets,
// or without the overlay that tightens their access, while the inputs still
// declare them. So before every build the inputs are read the way the check
// would see them, and anything named like governance that cannot be read
// fails the reload: the last good snapshot keeps serving, and /status says
// which path and why. A symbolic link out of a tree root or the overlay
// directory is one (contain.go): an *OutsideError.

// UnreadableError is an input the service can see but not read.
type UnreadableError struct {
	Path   string // display path
	Reason string
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("%s cannot be read (%s); not serving the inputs without it, since that would silently drop what it declares", e.Path, e.Reason)
}

// readable reports every input the check would skip because it cannot read
// it from fsys (the root file system as the reload reads it): for each tree
// root, the entries of its apps directory (or the root itself when it has
// none), their governance files and overlays, and the overlays of the
// overlay directory. A path that does not exist at all is not reported: a
// deleted app is a change of the inputs, a missing root the check's own
// path-no-match.
// Paths are reported by their served names (v).
func (in Inputs) readable(fsys fs.FS, v view) error {
	var errs []error
	for i, root := range in.Trees {
		served := v.trees[i]
		fail := in.failer(&errs, served)
		name, err := in.rootedName(root)
		if err != nil {
			fail(served, err)
			continue
		}
		apps := joinName(name, "apps")
		info, err := fs.Stat(fsys, apps)
		switch {
		case err == nil && info.IsDir():
			entries, err := fs.ReadDir(fsys, apps)
			if err != nil {
				fail(joinDisplay(served, "apps"), err)
				continue
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					continue // the check's glob does not see hidden entries
				}
				disp := joinDisplay(served, "apps/"+e.Name())
				p := joinName(apps, e.Name())
				fi, err := fs.Stat(fsys, p)
				if err != nil {
					if e.Type()&fs.ModeSymlink != 0 || !errors.Is(err, fs.ErrNotExist) {
						fail(disp, err)
					}
					continue // gone since the listing: a deletion
				}
				if fi.IsDir() {
					readableDir(fsys, p, disp+"/", fail)
				}
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			fail(joinDisplay(served, "apps"), err)
		default:
			if fi, err := fs.Stat(fsys, name); err == nil && fi.IsDir() {
				readableDir(fsys, name, dirPrefix(served), fail)
			}
		}
	}
	if in.OverlayDir != "" {
		name, err := in.rootedName(in.OverlayDir)
		if fi, serr := fs.Stat(fsys, name); err == nil && serr == nil && fi.IsDir() {
			readableDir(fsys, name, dirPrefix(v.overlayDir), in.failer(&errs, v.overlayDir))
		}
	}
	return errors.Join(errs...)
}

// failer records why a path under dir (a tree root or the overlay
// directory, by its served name) cannot be read.
func (in Inputs) failer(errs *[]error, dir string) func(display string, err error) {
	return func(display string, err error) {
		if errors.Is(err, errOutside) {
			*errs = append(*errs, &OutsideError{Path: display, Root: dir})
			return
		}
		*errs = append(*errs, &UnreadableError{Path: display, Reason: reason(err)})
	}
}

// readableDir checks one directory the check reads governance files from:
// it must list, and every entry named like a base or an overlay must be a
// regular file that opens. name is the directory's name in fsys, prefix its
// display path with its trailing slash ("" for the working directory).
func readableDir(fsys fs.FS, name, prefix string, fail func(display string, err error)) {
	display := strings.TrimSuffix(prefix, "/")
	if display == "" {
		display = "."
	}
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		fail(display, err)
		return
	}
	for _, e := range entries {
		if !IsGovernanceName(e.Name()) {
			continue
		}
		disp := prefix + e.Name()
		p := joinName(name, e.Name())
		fi, err := fs.Stat(fsys, p)
		switch {
		case err != nil:
			if e.Type()&fs.ModeSymlink != 0 || !errors.Is(err, fs.ErrNotExist) {
				fail(disp, err)
			}
		case fi.IsDir():
			fail(disp, errors.New("it is a directory, not a file"))
		case !fi.Mode().IsRegular():
			fail(disp, errors.New("it is not a regular file"))
		default:
			if err := readableFile(fsys, p); err != nil {
				fail(disp, err)
			}
		}
	}
}

// readableFile reports why the regular file name of fsys could not be
// opened for reading: asked of the operating system without opening it
// where fsys can (osFiles), else by opening and closing it.
func readableFile(fsys fs.FS, name string) error {
	if a, ok := fsys.(interface{ CanRead(name string) error }); ok {
		return a.CanRead(name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	return f.Close()
}

func joinName(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// dirPrefix is a directory's display path ready for a name to be appended:
// "" for the working directory, else with a trailing slash.
func dirPrefix(dir string) string { return joinDisplay(dir, "") }

// reason says why a path cannot be read, in words.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "a symbolic link to nothing"
	case errors.Is(err, syscall.ELOOP):
		return "a loop of symbolic links"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.ENOTDIR):
		return "a path through something that is not a directory"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// which path and why.

// UnreadableError is an input the service can see but not read.
type UnreadableError struct {
	Path   string // display path
	Reason string
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("%s cannot be read (%s); not serving the inputs without it, since that would silently drop what it declares", e.Path, e.Reason)
}

// readable reports every input the check would skip because it cannot read
// it: for each tree root, the entries of its apps directory (or the root
// itself when it has none), their governance files and overlays, and the
// overlays of the overlay directory. A path that does not exist at all is
// not reported: a deleted app is a change of the inputs, a missing root the
// check's own path-no-match.
func (in Inputs) readable() error {
	var errs []error
	fail := func(display, reason string) { errs = append(errs, &UnreadableError{Path: display, Reason: reason}) }
	for _, root := range in.Trees {
		abs := in.abs(root)
		apps := filepath.Join(abs, "apps")
		info, err := os.Stat(apps)
		switch {
		case err == nil && info.IsDir():
			entries, err := os.ReadDir(apps)
			if err != nil {
				fail(joinDisplay(root, "apps"), reason(err))
				continue
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					continue // the check's glob does not see hidden entries
				}
				disp := joinDisplay(root, "apps/"+e.Name())
				p := filepath.Join(apps, e.Name())
				fi, err := os.Stat(p)
				if err != nil {
					if e.Type()&fs.ModeSymlink != 0 || !errors.Is(err, fs.ErrNotExist) {
						fail(disp, reason(err))
					}
					continue // gone since the listing: a deletion
				}
				if fi.IsDir() {
					in.readableDir(p, disp+"/", fail)
				}
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			fail(joinDisplay(root, "apps"), reason(err))
		default:
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				in.readableDir(abs, dirPrefix(root), fail)
			}
		}
	}
	if in.OverlayDir != "" {
		abs := in.abs(in.OverlayDir)
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			in.readableDir(abs, dirPrefix(in.OverlayDir), fail)
		}
	}
	return errors.Join(errs...)
}

// readableDir checks one directory the check reads governance files from:
// it must list, and every entry named like a base or an overlay must be a
// regular file that opens. prefix is the directory's display path with its
// trailing slash ("" for the working directory).
func (in Inputs) readableDir(dir, prefix string, fail func(display, reason string)) {
	display := strings.TrimSuffix(prefix, "/")
	if display == "" {
		display = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		fail(display, reason(err))
		return
	}
	for _, e := range entries {
		if !IsGovernanceName(e.Name()) {
			continue
		}
		disp := prefix + e.Name()
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			if e.Type()&fs.ModeSymlink != 0 || !errors.Is(err, fs.ErrNotExist) {
				fail(disp, reason(err))
			}
		case fi.IsDir():
			fail(disp, "it is a directory, not a file")
		case !fi.Mode().IsRegular():
			fail(disp, "it is not a regular file")
		default:
			f, err := os.Open(p)
			if err != nil {
				fail(disp, reason(err))
				continue
			}
			f.Close()
		}
	}
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

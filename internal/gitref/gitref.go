// Package gitref reads which commit a git checkout holds, from the files
// git keeps beside it, without running git: a server reports the commit of
// the tree it serves (a clone, or a git-sync worktree) where no git binary
// is installed.
//
// It reads only what naming a checkout's commit takes: the checkout's .git
// (a directory, or a file naming the git directory, as a worktree's is),
// HEAD, the loose ref HEAD names and packed-refs, in the git directory or
// the common directory a worktree shares with its repository. It never
// reads objects, so it cannot tell a commit from another object, nor
// whether the checkout's files match it.
package gitref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// Head is what a checkout's HEAD names.
type Head struct {
	Commit string // the object name, lower-case hex (40 for SHA-1, 64 for SHA-256)
	Ref    string // the branch HEAD names (refs/heads/main); "" for a detached HEAD
}

// ErrNotCheckout is a directory with no .git.
var ErrNotCheckout = errors.New("not a git checkout")

// maxFile bounds every file read: a HEAD, a ref or a .git file is a line,
// packed-refs a line a ref. Anything larger is not what git writes.
const maxFile = 64 << 20

// maxSymbolic bounds the symbolic refs followed from HEAD.
const maxSymbolic = 5

// Read reads the head of the checkout whose top is dir, a name in fsys. A
// .git file's gitdir, and a worktree's commondir, may be absolute paths:
// they are read in fsys as names of the root file system (absolute path
// without the leading slash), so fsys should be laid out as the operating
// system's root. A directory without .git is ErrNotCheckout.
func Read(fsys fs.FS, dir string) (Head, error) {
	gitDir := path.Join(dir, ".git")
	info, err := fs.Stat(fsys, gitDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Head{}, ErrNotCheckout
	case err != nil:
		return Head{}, err
	case !info.IsDir():
		line, err := readLine(fsys, gitDir)
		if err != nil {
			return Head{}, err
		}
		target, ok := strings.CutPrefix(line, "gitdir:")
		if !ok {
			return Head{}, fmt.Errorf("%s: not a gitdir line", gitDir)
		}
		gitDir = resolve(dir, strings.TrimSpace(target))
	}
	common := gitDir
	if line, err := readLine(fsys, path.Join(gitDir, "commondir")); err == nil {
		common = resolve(gitDir, line)
	}
	head, err := readLine(fsys, path.Join(gitDir, "HEAD"))
	if err != nil {
		return Head{}, err
	}
	var out Head
	for range maxSymbolic {
		ref, symbolic := strings.CutPrefix(head, "ref:")
		if !symbolic {
			if !isObjectName(head) {
				// What it holds is not quoted: a .git file may name any
				// directory, and its HEAD is not the checkout's to show.
				return Head{}, fmt.Errorf("%s: not an object name", path.Join(gitDir, "HEAD"))
			}
			out.Commit = strings.ToLower(head)
			return out, nil
		}
		ref = strings.TrimSpace(ref)
		if !validRef(ref) {
			return Head{}, errors.New("HEAD names something that is not a ref")
		}
		if out.Ref == "" {
			out.Ref = ref
		}
		if head, err = lookup(fsys, gitDir, common, ref); err != nil {
			return Head{}, err
		}
	}
	return Head{}, fmt.Errorf("HEAD: more than %d symbolic refs", maxSymbolic)
}

// lookup is the value of ref: its loose file (in the git directory for
// per-worktree refs, else the common one), else its line in packed-refs.
func lookup(fsys fs.FS, gitDir, common, ref string) (string, error) {
	for _, d := range uniq(gitDir, common) {
		if v, err := readLine(fsys, path.Join(d, ref)); err == nil {
			return v, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	for _, d := range uniq(gitDir, common) {
		data, err := readLimited(fsys, path.Join(d, "packed-refs"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 4096), maxFile)
		for sc.Scan() {
			name, refName, ok := strings.Cut(sc.Text(), " ")
			if ok && refName == ref {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %w", ref, fs.ErrNotExist)
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// resolve is target, a path a git file names, as a name in the file
// system: an absolute path is a name of the root, a relative one is taken
// from dir.
func resolve(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		n := strings.TrimLeft(path.Clean(target), "/")
		if n == "" {
			return "."
		}
		return n
	}
	return path.Join(dir, target)
}

func readLine(fsys fs.FS, name string) (string, error) {
	data, err := readLimited(fsys, name)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line), nil
}

func readLimited(fsys fs.FS, name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	tooLarge := &fs.PathError{Op: "read", Path: name, Err: errors.New("larger than git writes it")}
	if info.Size() > maxFile {
		return nil, tooLarge
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err == nil && len(data) > maxFile {
		return nil, tooLarge
	}
	return data, err
}

// isObjectName reports whether s is a SHA-1 or SHA-256 object name.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// validRef accepts the refs HEAD may name: under refs/, with no component
// that could leave the git directory.
func validRef(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") || !fs.ValidPath(ref) {
		return false
	}
	return !strings.Contains(ref, "\\")
}

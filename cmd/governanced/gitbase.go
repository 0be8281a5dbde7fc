package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/celine-eu/governanced/internal/cli"
)

// checkoutRef writes the tree a git ref holds at the place of head in its
// repository (head may be a subdirectory) into a new temporary directory,
// with `git archive`, and returns it, the tree as git names it (REF:path/),
// and a function removing it. It needs
// the git binary and head inside a repository; without either, or for a
// name that is no ref, the error is a usage error saying so.
func checkoutRef(ctx context.Context, ref, head string) (dir, treeish string, cleanup func(), err error) {
	notDir := fmt.Sprintf("--base %s is not a directory", ref)
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", nil, cli.Usagef("%s, and git, which would read it as a ref, is not installed", notDir)
	}
	prefix, err := gitOutput(ctx, head, "rev-parse", "--show-prefix")
	if err != nil {
		return "", "", nil, cli.Usagef("%s, nor a git ref: --head %s is not inside a git repository (%v)", notDir, head, err)
	}
	prefix = strings.TrimSpace(prefix)
	top, err := gitOutput(ctx, head, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", nil, cli.Usagef("%s, nor a git ref: --head %s is not inside a git work tree (%v)", notDir, head, err)
	}
	top = strings.TrimSpace(top)
	if strings.HasPrefix(ref, "-") {
		return "", "", nil, cli.Usagef("%s, nor a git ref", notDir)
	}
	treeish = ref + ":" + prefix
	if kind, err := gitOutput(ctx, head, "cat-file", "-t", treeish); err != nil || strings.TrimSpace(kind) != "tree" {
		where := "the repository"
		if prefix != "" {
			where = "the repository at " + strings.TrimSuffix(prefix, "/")
		}
		return "", "", nil, cli.Usagef("%s, nor a git ref holding %s", notDir, where)
	}
	dir, err = os.MkdirTemp("", "governanced-base-")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", treeish)
	cmd.Dir = top // from a subdirectory git archive reads the tree-ish's path relative to it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("git archive %s: %w", treeish, err)
	}
	xerr := untar(out, dir)
	_, _ = io.Copy(io.Discard, out)
	if werr := cmd.Wait(); werr != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("git archive %s: %v: %s", treeish, werr, strings.TrimSpace(stderr.String()))
	}
	if xerr != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("git archive %s: %w", treeish, xerr)
	}
	return dir, treeish, cleanup, nil
}

// gitOutput runs git in dir and returns its standard output.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return stdout.String(), nil
}

// untar writes the regular files, directories and symbolic links of a tar
// stream (git archive's) under dir; a name leaving dir is refused.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if !filepathLocal(name) {
			if h.Typeflag == tar.TypeXGlobalHeader || name == "." {
				continue // git archive's pax header: the commit id
			}
			return fmt.Errorf("the archive names %q, outside its root", h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFrom(p, tr)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(h.Linkname, p)
			}
		}
		if err != nil {
			return err
		}
	}
}

func writeFrom(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// filepathLocal reports whether a slash name stays below its root.
func filepathLocal(name string) bool {
	return name != "." && filepath.IsLocal(filepath.FromSlash(name))
}

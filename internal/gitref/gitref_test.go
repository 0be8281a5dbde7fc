package gitref_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/celine-eu/governanced/internal/gitref"
)

// git runs git in dir and returns its output, trimmed; the test is skipped
// where git is not installed (the package itself never needs it).
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// rootFS is the operating system's root, as a server reads its trees.
var rootFS = os.DirFS("/")

func name(p string) string { return strings.TrimPrefix(filepath.ToSlash(p), "/") }

func commitFile(t *testing.T, repo, file, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", file)
	return git(t, repo, "rev-parse", "HEAD")
}

// TestReadMatchesGit compares Read with `git rev-parse HEAD` in the
// layouts a served tree comes in.
func TestReadMatchesGit(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	first := commitFile(t, repo, "apps/a/governance.yaml", "defaults: {}\n")
	second := commitFile(t, repo, "apps/b/governance.yaml", "defaults: {}\n")

	check := func(t *testing.T, dir string, want gitref.Head) {
		t.Helper()
		got, err := gitref.Read(rootFS, name(dir))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Read = %+v, want %+v", got, want)
		}
	}
	t.Run("a clone on a branch", func(t *testing.T) {
		check(t, repo, gitref.Head{Commit: second, Ref: "refs/heads/main"})
	})
	t.Run("packed refs", func(t *testing.T) {
		git(t, repo, "pack-refs", "--all")
		if _, err := os.Stat(filepath.Join(repo, ".git/refs/heads/main")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the loose ref is still there: %v", err)
		}
		check(t, repo, gitref.Head{Commit: second, Ref: "refs/heads/main"})
	})
	t.Run("a detached HEAD", func(t *testing.T) {
		clone := filepath.Join(t.TempDir(), "clone")
		git(t, repo, "clone", "-q", repo, clone)
		git(t, clone, "checkout", "-q", "--detach", first)
		check(t, clone, gitref.Head{Commit: first})
	})
	t.Run("a git-sync worktree behind its link", func(t *testing.T) {
		// git-sync's --root: the repository, its worktrees under
		// .worktrees/<hash>, and the link it swaps to the current one.
		root := t.TempDir()
		git(t, root, "clone", "-q", repo, ".")
		wt := filepath.Join(root, ".worktrees", first)
		git(t, root, "worktree", "add", "-q", "--detach", wt, first)
		if err := os.Symlink(".worktrees/"+first, filepath.Join(root, "current")); err != nil {
			t.Fatal(err)
		}
		check(t, filepath.Join(root, "current"), gitref.Head{Commit: first})
		// A worktree on a branch reads the branch from the common directory.
		git(t, root, "worktree", "add", "-q", "-b", "side", filepath.Join(root, "side"), second)
		git(t, root, "pack-refs", "--all")
		check(t, filepath.Join(root, "side"), gitref.Head{Commit: second, Ref: "refs/heads/side"})
	})
	t.Run("not a checkout", func(t *testing.T) {
		if _, err := gitref.Read(rootFS, name(t.TempDir())); !errors.Is(err, gitref.ErrNotCheckout) {
			t.Errorf("err %v, want ErrNotCheckout", err)
		}
	})
}

// TestReadRefusesWhatGitDoesNotWrite: every odd .git gives an error, never
// a commit read from elsewhere and never a hang.
func TestReadRefusesWhatGitDoesNotWrite(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
	}{
		{"a .git file that is no gitdir line", fstest.MapFS{"t/.git": {Data: []byte("hello\n")}}},
		{"a gitdir that does not exist", fstest.MapFS{"t/.git": {Data: []byte("gitdir: ../nowhere\n")}}},
		{"no HEAD", fstest.MapFS{"t/.git/config": {Data: []byte("")}}},
		{"a HEAD that is no object name", fstest.MapFS{"t/.git/HEAD": {Data: []byte("0123\n")}}},
		{"a ref out of refs/", fstest.MapFS{"t/.git/HEAD": {Data: []byte("ref: ../../etc/passwd\n")}}},
		{"a ref climbing out", fstest.MapFS{"t/.git/HEAD": {Data: []byte("ref: refs/../../x\n")}}},
		{"a branch with no commit", fstest.MapFS{"t/.git/HEAD": {Data: []byte("ref: refs/heads/main\n")}}},
		{"symbolic refs in a loop", fstest.MapFS{
			"t/.git/HEAD":         {Data: []byte("ref: refs/heads/a\n")},
			"t/.git/refs/heads/a": {Data: []byte("ref: refs/heads/b\n")},
			"t/.git/refs/heads/b": {Data: []byte("ref: refs/heads/a\n")},
		}},
		{"a HEAD that is a directory", fstest.MapFS{"t/.git/HEAD/x": {Data: []byte(sha)}}},
		{"a packed-refs line that names another ref", fstest.MapFS{
			"t/.git/HEAD":        {Data: []byte("ref: refs/heads/main\n")},
			"t/.git/packed-refs": {Data: []byte("# pack-refs with: peeled\n" + sha + " refs/heads/mainline\n")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := gitref.Read(tc.files, "t")
			if err == nil {
				t.Errorf("Read = %+v, want an error", h)
			}
		})
	}
	t.Run("a worktree's gitdir and commondir, relative", func(t *testing.T) {
		files := fstest.MapFS{
			"repo/.git/worktrees/w/HEAD":      {Data: []byte("ref: refs/heads/w\n")},
			"repo/.git/worktrees/w/commondir": {Data: []byte("../..\n")},
			"repo/.git/packed-refs":           {Data: []byte(sha + " refs/heads/w\n")},
			"w/.git":                          {Data: []byte("gitdir: ../repo/.git/worktrees/w\n")},
		}
		h, err := gitref.Read(files, "w")
		if err != nil || h != (gitref.Head{Commit: sha, Ref: "refs/heads/w"}) {
			t.Errorf("Read = %+v, %v", h, err)
		}
	})
}

// FuzzRead: whatever a checkout's git files hold, Read returns a commit
// that is an object name, or an error.
func FuzzRead(f *testing.F) {
	f.Add([]byte("gitdir: ../repo/.git\n"), []byte("ref: refs/heads/main\n"), []byte("0123456789abcdef0123456789abcdef01234567\n"), []byte("0123456789abcdef0123456789abcdef01234567 refs/heads/main\n"))
	f.Add([]byte(""), []byte("0123456789abcdef0123456789abcdef01234567"), []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, dotGit, head, ref, packed []byte) {
		files := fstest.MapFS{
			"repo/.git/HEAD":            {Data: head},
			"repo/.git/refs/heads/main": {Data: ref},
			"repo/.git/packed-refs":     {Data: packed},
			"w/.git":                    {Data: dotGit},
		}
		for _, dir := range []string{"repo", "w"} {
			h, err := gitref.Read(files, dir)
			if err == nil && len(h.Commit) != 40 && len(h.Commit) != 64 {
				t.Errorf("%s: commit %q", dir, h.Commit)
			}
		}
	})
}

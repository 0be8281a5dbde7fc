package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/diff"
)

// gitRepo makes dir a git repository with everything in it committed; the
// test is skipped where git is not installed (CI has it).
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"commit", "-q", "-m", "the base"},
	} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestDiffBaseRef: `governanced diff --base HEAD` compares the working tree
// with its last commit, read from the repository; in a subdirectory of the
// repository, with that subdirectory's tree at the ref. Outside a
// repository, or for a name that is no ref, it is a usage error saying so.
func TestDiffBaseRef(t *testing.T) {
	for _, sub := range []string{"", "governance"} {
		t.Run("head at "+map[string]string{"": "the repository's root", "governance": "a subdirectory"}[sub], func(t *testing.T) {
			repo := t.TempDir()
			head := filepath.Join(repo, sub)
			celineCheckout(t, head)
			if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("a repository\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitRepo(t, repo)
			editFile(t, filepath.Join(head, "apps/copernicus/governance.yaml"), "  access_level: internal\n", "  access_level: open\n")
			if err := os.RemoveAll(filepath.Join(head, "apps/mt")); err != nil {
				t.Fatal(err)
			}
			t.Chdir(head)

			code, out, errs := runArgs(t, "diff", "--base", "HEAD", "--owners", "owners.yaml", "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var rep diff.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			root := "HEAD:"
			if sub != "" {
				root = "HEAD:" + sub + "/"
			}
			if rep.Base.Root != root || rep.Count(diff.AccessLevelLowered) == 0 || len(rep.Apps) != 1 || rep.Apps[0].App != "mt" || rep.Apps[0].Status != diff.AppRemoved {
				t.Errorf("base %+v, kinds %+v, apps %+v; want mt removed and the copernicus datasets' access level lowered against %s", rep.Base, rep.Kinds, rep.Apps, root)
			}
			for _, d := range rep.Datasets {
				if d.App == "copernicus" && (d.Base == nil || d.Base.File != "apps/copernicus/governance.yaml") {
					t.Errorf("%s %s: %+v", d.App, d.Dataset, d.Base)
				}
			}
			code, text, _ := runArgs(t, "diff", "--base", "HEAD", "--owners", "owners.yaml", "--format", "text")
			if code != 0 || !strings.Contains(text, root+"apps/mt/governance.yaml") {
				t.Errorf("exit %d; the text does not name the removed app's file as git show takes it (%sapps/mt/…):\n%s", code, root, text)
			}
			// The commit against itself: nothing changes.
			code, out, _ = runArgs(t, "diff", "--base", "HEAD", "--head", "HEAD-as-dir-does-not-exist", "--format", "json")
			if code != 2 {
				t.Errorf("a --head that is no directory: exit %d, want 2\n%s", code, out)
			}
		})
	}
	t.Run("no ref", func(t *testing.T) {
		repo := t.TempDir()
		celineCheckout(t, repo)
		gitRepo(t, repo)
		t.Chdir(repo)
		code, _, errs := runArgs(t, "diff", "--base", "no-such-branch")
		if code != 2 || !strings.Contains(errs, "--base no-such-branch is not a directory, nor a git ref") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("outside a repository", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		dir := t.TempDir()
		celineCheckout(t, dir)
		t.Chdir(dir)
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
		code, _, errs := runArgs(t, "diff", "--base", "HEAD")
		if code != 2 || !strings.Contains(errs, "is not inside a git repository") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}

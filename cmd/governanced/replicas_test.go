package main

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// answer is what a client keeps of one GET: the status, the validator and
// the body.
type answer struct {
	Status int
	ETag   string
	Body   string
}

// replicaAnswers are a running server's answers to the reads a client of
// several replicas makes, by target.
func replicaAnswers(t *testing.T, s *server) (string, map[string]answer) {
	t.Helper()
	get := func(target string) answer {
		t.Helper()
		resp, b := s.fetch(t, target)
		return answer{resp.StatusCode, resp.Header.Get("ETag"), string(b)}
	}
	var status struct {
		Revision string `json:"revision"`
	}
	if st := s.getJSON(t, "/status", &status); st != 200 {
		t.Fatalf("/status: %d", st)
	}
	targets := []string{"/apps", "/datasets", "/owners", "/unresolved-owners", "/graph", "/graph?overlays=true&format=mermaid",
		"/report", "/report?format=sarif", "/ui/", "/ui/datasets", "/ui/apps", "/ui/report", "/ui/graph", "/ui/owners"}
	var apps struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	s.getJSON(t, "/apps", &apps)
	for _, a := range apps.Items {
		targets = append(targets, "/apps/"+a.Name, "/graph/pipelines/"+a.Name, "/ui/apps/"+a.Name)
	}
	var datasets struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	s.getJSON(t, "/datasets", &datasets)
	for _, d := range datasets.Items {
		id := url.PathEscape(d.ID)
		targets = append(targets, "/datasets/"+id+"/rule", "/datasets/"+id+"/rule?explain=true", "/datasets/"+id+"/exposure",
			"/datasets/"+id+"/facet", "/datasets/"+id+"/producers", "/ui/datasets/"+id)
	}
	out := map[string]answer{}
	for _, target := range targets {
		a := get(target)
		if a.Status != 200 && a.Status != 409 {
			t.Errorf("GET %s: %d %s", target, a.Status, a.Body)
		}
		if strings.HasPrefix(target, "/ui/") {
			// A page shows this replica's last reload (when, and whether it
			// failed), and its weak ETag says so: only its status compares.
			a.Body, a.ETag = "", ""
		}
		out[target] = a
	}
	return status.Revision, out
}

// TestReplicasAgree starts two servers on the same 17 real files and owners
// registry, one from a copy and one from behind a git-sync link
// (current → .worktrees/<hash>) with its registry elsewhere: a client
// whose requests land on either sees one revision, the same ETag and the
// same body for every answer. The git-sync one reports its commit.
func TestReplicasAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	disk := t.TempDir()
	copyTree := filepath.Join(disk, "a/tree")
	celineCheckout(t, copyTree)
	if err := os.MkdirAll(filepath.Join(disk, "a/config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(copyTree, "owners.yaml"), filepath.Join(disk, "a/config/owners.yaml")); err != nil {
		t.Fatal(err)
	}

	// git-sync's --root: the clone, a worktree per commit, the link.
	root := filepath.Join(disk, "srv/governance")
	repo := filepath.Join(disk, "upstream")
	celineCheckout(t, repo)
	if err := os.Rename(filepath.Join(repo, "owners.yaml"), filepath.Join(disk, "owners.yaml")); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, repo) // skips without git
	commit := strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD"))
	gitIn(t, disk, "clone", "-q", repo, root)
	gitIn(t, root, "worktree", "add", "-q", "--detach", ".worktrees/"+commit, commit)
	if err := os.Symlink(".worktrees/"+commit, filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(disk, "etc/governanced"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(disk, "owners.yaml"), filepath.Join(disk, "etc/governanced/owners.yaml")); err != nil {
		t.Fatal(err)
	}

	env := map[string]string{"GOVERNANCED_LOG_LEVEL": "warn"}
	a := startServe(t, env, "--tree", copyTree, "--owners", filepath.Join(disk, "a/config/owners.yaml"))
	revA, answersA := replicaAnswers(t, a)
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	t.Chdir(disk) // the second names its inputs relative to its working directory
	b := startServe(t, env, "--tree", "srv/governance/current", "--owners", "etc/governanced/owners.yaml")
	revB, answersB := replicaAnswers(t, b)
	var status struct {
		Inputs []struct {
			Path string `json:"path"`
		} `json:"inputs"`
		Trees []struct {
			Tree, Commit string
		} `json:"trees"`
	}
	b.getJSON(t, "/status", &status)
	if err := b.stop(); err != nil {
		t.Fatal(err)
	}

	if revA != revB {
		t.Errorf("revisions: %s from a copy, %s from behind the link", revA, revB)
	}
	if d := cmp.Diff(answersA, answersB); d != "" {
		t.Errorf("the answers differ (-copy +git-sync):\n%.4000s", d)
	}
	if len(answersA) < 100 {
		t.Errorf("%d answers compared", len(answersA))
	}
	if len(status.Trees) != 1 || status.Trees[0].Commit != commit || status.Trees[0].Tree != "." {
		t.Errorf("/status trees %+v, want the worktree's commit %s", status.Trees, commit)
	}
	for _, in := range status.Inputs {
		if strings.HasPrefix(in.Path, "/") || strings.Contains(in.Path, "srv/") || strings.Contains(in.Path, "etc/") {
			t.Errorf("/status names an input %q", in.Path)
		}
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(answersB["/report"].Body), &report); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"paths": []any{"apps/*"}, "owners": []any{"owners.yaml"}, "overlay_dir": nil, "overlay_name": nil,
		"placeholders": nil, "dataspace": false, "infer_from_dir": true}, report["inputs"]); d != "" {
		t.Errorf("report inputs (-want +got):\n%s", d)
	}
}

// gitIn runs git in dir, failing the test on an error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

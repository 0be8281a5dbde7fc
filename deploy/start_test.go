package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// These tests start the real binary the way the pod and the image start it:
// the rendered container's arguments, each mounted path laid out in a
// temporary directory (ConfigMap volumes hold the rendered ConfigMap's keys;
// git-sync's volume holds its link to a checkout of the CELINE pipelines
// repository), and the listen address moved to a free loopback port. A flag
// the binary does not take, or a tree it cannot serve, fails here rather
// than in a rollout.

// moduleRoot is the repository root (the directory holding go.mod).
func moduleRoot(t testing.TB) string {
	t.Helper()
	return filepath.Dir(testcorpus.Root(t))
}

var built struct {
	once sync.Once
	path string
	err  error
}

// governanced builds the binary once for every test of the package.
func governanced(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "governanced-deploy-test-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "governanced")
		cmd := exec.Command("go", "build", "-trimpath", "-o", built.path, "./cmd/governanced")
		cmd.Dir = moduleRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestPodStarts starts governanced with each rendering's container args and
// its volumes laid out on disk, and waits for it to be ready with the tree
// and owners it was given.
func TestPodStarts(t *testing.T) {
	bin := governanced(t)
	wantApps := map[string]int{"base": 17, "overlays/configmap-tree": 1, "overlays/private-repo": 17, "overlays/state-dir": 17}
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			r, problems := render(filesys.MakeFsOnDisk(), dir)
			if len(problems) > 0 {
				t.Fatal(strings.Join(problems, "\n"))
			}
			spec := &r.deployments[0].Spec.Template.Spec
			c := container(spec, serverName)
			root := t.TempDir()
			local := layOutVolumes(t, root, spec, c, r.configMaps)

			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = local(a)
			}
			env := []string{"TMPDIR=" + local(envOr(c, "TMPDIR", "/tmp"))}
			status := startAndWait(t, bin, args, env)
			want, ok := wantApps[dir]
			if !ok {
				t.Fatalf("no expected app count for %s: add it to wantApps", dir)
			}
			if status.Counts.Apps != want {
				t.Errorf("serves %d apps, want %d", status.Counts.Apps, want)
			}
			if status.Counts.Owners == 0 {
				t.Error("serves no owners although --owners names the ConfigMap's registry")
			}
			if dir, ok := flagValue(c.Args, "--state-dir"); ok {
				// The revision served is kept there, on the volume mounted.
				deadline := time.Now().Add(time.Minute)
				for {
					if kept, _ := filepath.Glob(filepath.Join(local(dir), "revisions", "*.json")); len(kept) == 1 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("no revision kept in --state-dir %s", dir)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
}

// TestImageCommandStarts starts the binary with the Dockerfile's CMD: the
// demo tree, on the address the CMD names explicitly (the binary's own
// default is loopback, which nothing outside the container reaches).
func TestImageCommandStarts(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CMD (\[.*\])$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Dockerfile has no exec-form CMD")
	}
	var cmd []string
	if err := json.Unmarshal(m[1], &cmd); err != nil {
		t.Fatalf("Dockerfile CMD %s: %v", m[1], err)
	}
	if addr, _ := flagValue(cmd, "--addr"); addr != ":8080" && addr != "0.0.0.0:8080" {
		t.Errorf("CMD %q does not listen on :8080 explicitly", cmd)
	}
	for _, want := range []string{`(?m)^EXPOSE 8080$`, `(?m)^USER 65532`, `(?m)^ENTRYPOINT \["/usr/local/bin/governanced"\]$`} {
		if !regexp.MustCompile(want).Match(b) {
			t.Errorf("Dockerfile has no line matching %s", want)
		}
	}
	status := startAndWait(t, governanced(t), cmd, []string{"TMPDIR=" + t.TempDir()})
	if status.Counts.Apps == 0 {
		t.Error("the demo tree serves no apps")
	}
}

// layOutVolumes makes a directory under root for each volume container c
// mounts, filled as Kubernetes (and git-sync) would fill it, and returns a
// function mapping a path (or a --flag=path argument) in the container to
// the local one.
func layOutVolumes(t *testing.T, root string, spec *corev1.PodSpec, c *corev1.Container, configMaps map[string]*corev1.ConfigMap) func(string) string {
	t.Helper()
	gs, hasGitSync := gitSync(spec)
	for _, m := range c.VolumeMounts {
		v := volumeNamed(spec, m.Name)
		dir := filepath.Join(root, m.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case v.ConfigMap != nil:
			cm := configMaps[v.ConfigMap.Name]
			for key, data := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, key), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		case v.Secret != nil:
			// A Secret made beside the manifests (deploy/README.md): a
			// token under each key the volume names.
			for _, it := range v.Secret.Items {
				if err := os.WriteFile(filepath.Join(dir, it.Path), []byte("a-test-token-0123456789abcdef\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		case hasGitSync && volumeAt(spec, gs, flagValueOr(gs.Args, "--root")) == v:
			gitSyncCheckout(t, dir, flagValueOr(gs.Args, "--link"))
		}
	}
	// The container path of a mount, longest first, is replaced by its
	// local directory; --addr moves to a free loopback port.
	return func(arg string) string {
		prefix, p := "", arg
		if i := strings.Index(arg, "="); strings.HasPrefix(arg, "--") && i > 0 {
			prefix, p = arg[:i+1], arg[i+1:]
		}
		if prefix == "--addr=" {
			return prefix + freeAddr(t)
		}
		if m := mountOf(c, p); m != nil && strings.HasPrefix(p, "/") {
			return prefix + filepath.Join(root, m.Name, strings.TrimPrefix(p, m.MountPath))
		}
		return arg
	}
}

// gitSyncCheckout lays dir out as git-sync leaves its --root after the first
// sync: a worktree named by the commit, and the link pointing at it. The
// worktree is the CELINE pipelines repository's layout (apps/<app>/).
func gitSyncCheckout(t *testing.T, dir, link string) {
	t.Helper()
	worktree := filepath.Join(dir, ".worktrees", "0123456789abcdef0123456789abcdef01234567")
	if err := os.CopyFS(worktree, os.DirFS(testcorpus.Path(t, "reference/celine-pipelines"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(worktree, filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
}

type status struct {
	Counts struct {
		Apps   int `json:"apps"`
		Owners int `json:"owners"`
	} `json:"counts"`
}

// startAndWait runs the binary with args (the --addr value is replaced by a
// free loopback address), waits until /readyz answers 200, checks /healthz,
// and returns /status. The process is stopped when the test ends.
func startAndWait(t *testing.T, bin string, args, env []string) status {
	t.Helper()
	addr := ""
	for i, a := range args {
		switch {
		case a == "--addr" && i+1 < len(args):
			addr = freeAddr(t)
			args = append(append(append([]string{}, args[:i+1]...), addr), args[i+2:]...)
		case strings.HasPrefix(a, "--addr="):
			addr = strings.TrimPrefix(a, "--addr=")
		}
	}
	if addr == "" {
		t.Fatalf("args %q name no --addr", args)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("governanced %q exited before it was ready: %v\n%s", args, waitErr, logs.String())
		default:
		}
		if code, _ := get(base + "/readyz"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("governanced %q not ready after 60s\n%s", args, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := get(base + "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz answered %d: %s", code, body)
	}
	code, body := get(base + "/status")
	var s status
	if code != http.StatusOK {
		t.Fatalf("/status answered %d: %s", code, body)
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("/status: %v: %s", err, body)
	}
	return s
}

// lockedBuffer collects a process's output while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func flagValueOr(args []string, name string) string {
	v, _ := flagValue(args, name)
	return v
}

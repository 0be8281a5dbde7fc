// Package testserve builds the governanced binary and runs it, for tests
// that need the server as a deployment runs it: a process on a port, which
// a test can stop.
package testserve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// Binary builds cmd/governanced into a temporary directory of t and
// returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "governanced")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/governanced")
	cmd.Dir = filepath.Dir(testcorpus.Root(t))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// RealTree copies the 17 CELINE pipelines (testdata/reference) and
// dataset-api's owners registry into a temporary directory of t, which
// the test may edit, and returns the tree root and the registry's path.
func RealTree(t testing.TB) (tree, owners string) {
	t.Helper()
	ref := testcorpus.Path(t, "reference")
	root := t.TempDir()
	tree = filepath.Join(root, "celine-pipelines")
	if err := os.CopyFS(tree, os.DirFS(filepath.Join(ref, "celine-pipelines"))); err != nil {
		t.Fatal(err)
	}
	owners = filepath.Join(root, "owners.yaml")
	b, err := os.ReadFile(filepath.Join(ref, "dataset-api", "owners.yaml"))
	if err == nil {
		err = os.WriteFile(owners, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return tree, owners
}

// Server is a running governanced serve.
type Server struct {
	Base string // http://127.0.0.1:port

	cmd     *exec.Cmd
	log     *buffer
	done    chan struct{}
	waitErr error
	stop    sync.Once
}

// Start runs bin serve with args on a free loopback port and waits until
// it is ready (a tree served). It finds the port in the "listening" log
// line, so args must not set --log-level above info. The server is
// stopped when t ends.
func Start(t testing.TB, bin string, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cmd: cmd, log: &buffer{}, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.log.write(sc.Text() + "\n")
			var line struct{ Message, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "listening" && line.Addr != "" {
				select {
				case addr <- line.Addr:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.Stop() })
	select {
	case a := <-addr:
		s.Base = "http://" + a
	case <-s.done:
		t.Fatalf("governanced serve ended before listening: %v\n%s", s.waitErr, s.log)
	case <-time.After(time.Minute):
		t.Fatalf("governanced serve did not listen within a minute\n%s", s.log)
	}
	deadline := time.Now().Add(time.Minute)
	for !s.ready() {
		if time.Now().After(deadline) {
			t.Fatalf("governanced serve was not ready within a minute\n%s", s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

func (s *Server) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Base+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop ends the server as a deployment does (SIGTERM) and waits for the
// process to exit; it returns how the process ended.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s.waitErr
}

// Log is what the server wrote on standard error so far.
func (s *Server) Log() string { return s.log.String() }

type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) write(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.WriteString(s)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

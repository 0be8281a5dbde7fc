package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/testfs"
)

// metric reads one sample of the server's /metrics.
func (s *server) metric(t *testing.T, series string) float64 {
	t.Helper()
	_, body := s.get(t, "/metrics")
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in the metrics", series)
	return 0
}

func oneAppTree(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "apps", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "a", "governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	return dir
}

// TestIdleConnectionsDoNotStopReadyz: 2 000 connections that do nothing —
// half of them keep-alive connections idle after one request, half opened
// and silent — against a cap of 200: the server closes the quietest to make
// room, never holds more than its cap, and /readyz still answers.
func TestIdleConnectionsDoNotStopReadyz(t *testing.T) {
	const idle, limit = 2000, 200
	testfs.NeedFiles(t, idle+limit+256) // the clients' ends are this process's too
	s := startServe(t, nil, "--tree", oneAppTree(t), "--max-connections", strconv.Itoa(limit), "--log-level", "error")
	addr := strings.TrimPrefix(s.base, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range idle {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			continue // silent
		}
		// One request, then idle: the answer may be 503 once the cap's
		// ordinary connections are all busy, never nothing.
		if _, err := io.WriteString(c, "GET /status HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d got no answer: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if code, body := s.get(t, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz behind %d idle connections: %d %s", idle, code, body)
	}
	if open := s.metric(t, "governanced_connections_open"); open > limit {
		t.Errorf("%v connections open, over the cap of %d", open, limit)
	}
	if shed := s.metric(t, "governanced_connections_shed_total"); shed < idle-limit {
		t.Errorf("%v quiet connections closed, want at least %d", shed, idle-limit)
	}
}

// TestReservedConnections: with every ordinary connection busy (requests
// waiting for a change), a new connection is one of those kept for the
// probes: /readyz and /metrics are answered, anything else 503
// connections-full, and the connection is closed after one answer.
func TestReservedConnections(t *testing.T) {
	const limit, kept = 100, probeConns
	s := startServe(t, nil, "--tree", oneAppTree(t), "--max-connections", strconv.Itoa(limit),
		"--max-waiters-per-client", "256", "--log-level", "error")
	addr := strings.TrimPrefix(s.base, "http://")
	resp, err := http.Get(s.base + "/apps")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("Etag")
	http.DefaultClient.CloseIdleConnections()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	waiting := func() int {
		c := dial(t, addr)
		defer c.Close()
		fmt.Fprint(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "governanced_waiters "); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		return 0
	}
	// Waits until every ordinary connection holds one: a connection that
	// had not sent its request yet when the cap was near may have been
	// closed as quiet, and is replaced.
	eventually(t, "every ordinary connection to wait", func() bool {
		n := waiting()
		for range limit - kept - n {
			c := dial(t, addr)
			conns = append(conns, c)
			fmt.Fprintf(c, "GET /apps?wait=5m HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\n\r\n", etag)
		}
		return n == limit-kept
	})
	for _, tt := range []struct {
		path   string
		status int
	}{{"/readyz", 200}, {"/metrics", 200}, {"/apps", 503}, {"/datasets/ds.x/rule", 503}} {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", tt.path)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s on a reserved connection: %v", tt.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || !resp.Close {
			t.Errorf("%s on a reserved connection: %d, close %v, want %d and close", tt.path, resp.StatusCode, resp.Close, tt.status)
		}
		if tt.status == 503 && !strings.Contains(string(body), "connections-full") {
			t.Errorf("%s: %s", tt.path, body)
		}
		if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
			t.Errorf("%s: the reserved connection stayed open (%v)", tt.path, err)
		}
		c.Close()
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConnectionCap(t *testing.T) {
	for _, tt := range []struct {
		given   int
		fdLimit uint64
		want    int
		err     string
	}{
		{0, 1024, 896, ""},     // an eighth kept
		{0, 256, 192, ""},      // at least 64 kept
		{0, 1 << 20, 4096, ""}, // the default's own bound
		{0, 0, 4096, ""},       // no limit known
		{500, 1024, 500, ""},
		{1000, 1024, 0, "at most 896"},
		{0, 100, 0, "raise it"},
		{-1, 1024, 0, "must not be negative"},
	} {
		got, err := connectionCap(tt.given, tt.fdLimit)
		var ue *cli.UsageError
		switch {
		case tt.err != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("connectionCap(%d, %d): %v, want a usage error mentioning %q", tt.given, tt.fdLimit, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("connectionCap(%d, %d) = %d, %v; want %d", tt.given, tt.fdLimit, got, err, tt.want)
		}
	}
}

// TestIdleConnectionsUnderTheFileLimit: a server whose process may open
// 1 024 files, the default cap read from that limit, and 1 100 connections
// idle after one request each — which once took every descriptor, so that
// accept failed and /readyz went unanswered: /readyz answers. The server
// runs in a process of its own (this test binary again), started with the
// lower limit, which it inherits.
func TestIdleConnectionsUnderTheFileLimit(t *testing.T) {
	const fileLimit, idle = 1024, 1100
	testfs.NeedFiles(t, idle+256)
	// The shell lowers both limits before it becomes the server: a Go
	// process raises its soft limit to the hard one at start, so the hard
	// limit is what the server lives under.
	cmd := exec.Command("/bin/sh", "-c", `ulimit -n `+strconv.Itoa(fileLimit)+` && exec "$0" "$@"`,
		os.Args[0], "-test.run=^TestServeHelperProcess$", "--", "serve", "--addr", "127.0.0.1:0", "--tree", oneAppTree(t), "--log-level", "info")
	cmd.Env = append(os.Environ(), "GOVERNANCED_HELPER_SERVE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("starting the server under a shell: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The log says the cap and the address.
	type started struct {
		addr     string
		maxConns int
		fdLimit  uint64
	}
	found := make(chan started, 1)
	go func() {
		var st started
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			var ev struct {
				Message        string `json:"message"`
				Addr           string `json:"addr"`
				MaxConnections int    `json:"max_connections"`
				OpenFileLimit  uint64 `json:"open_file_limit"`
			}
			if json.Unmarshal(lines.Bytes(), &ev) != nil {
				continue
			}
			switch {
			case ev.MaxConnections > 0:
				st.maxConns, st.fdLimit = ev.MaxConnections, ev.OpenFileLimit
			case ev.Message == "listening":
				st.addr = ev.Addr
				found <- st
			}
		}
		close(found)
	}()
	var st started
	select {
	case st = <-found:
	case <-time.After(time.Minute):
		t.Fatal("the server process did not say where it listens")
	}
	if st.addr == "" || st.fdLimit != fileLimit || st.maxConns == 0 || st.maxConns >= fileLimit {
		t.Fatalf("%+v: the server did not start under a limit of %d with a cap below it", st, fileLimit)
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range idle {
		c, err := net.Dial("tcp", st.addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		c.SetReadDeadline(time.Now().Add(time.Minute)) // a server out of descriptors never answers
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d got no answer: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Get("http://" + st.addr + "/readyz")
	if err != nil {
		t.Fatalf("/readyz behind %d idle connections: %v", idle, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz behind %d idle connections: %d", idle, resp.StatusCode)
	}
}

// TestServeHelperProcess is the server of TestIdleConnectionsUnderTheFileLimit,
// run in a process of its own: the arguments after -- are governanced's.
func TestServeHelperProcess(t *testing.T) {
	if os.Getenv("GOVERNANCED_HELPER_SERVE") == "" {
		t.Skip("the server process of TestIdleConnectionsUnderTheFileLimit")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(context.Background(), args, os.Getenv, os.Stdout, os.Stderr))
}

package main

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/google/go-cmp/cmp"
)

// dial opens a raw TCP connection to the server.
func (s *server) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dribble writes prompt at once, then msg one byte at a time, every gap,
// until the server closes the connection or the message is out; started is
// called once the first byte is out (and again on return: it must bear
// that). It reports whether the server cut the client off and what it
// answered before (if anything).
func dribble(c net.Conn, prompt, msg string, gap time.Duration, started func()) (cut bool, answer string) {
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(c) // until the server closes
		got <- string(b)
	}()
	defer started()
	if _, err := io.WriteString(c, prompt); err != nil {
		return true, <-got
	}
	for i := 0; i < len(msg); i++ {
		if i == 1 {
			started()
		}
		select {
		case a := <-got:
			return true, a
		default:
		}
		if _, err := c.Write([]byte{msg[i]}); err != nil {
			return true, <-got
		}
		time.Sleep(gap)
	}
	// Everything was sent: whatever the server does now is not a cut-off.
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	return false, <-got
}

// TestSlowClientsAreCutOff: a client that dribbles its headers (slowloris)
// is disconnected once --read-header-timeout passes, one that dribbles its
// body once --request-timeout passes; meanwhile everyone else is served.
func TestSlowClientsAreCutOff(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "apps", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "a", "governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	s := startServe(t, nil, "--tree", dir, "--log-level", "error",
		"--read-header-timeout", "300ms", "--request-timeout", "1s")

	// A header line long enough to take a minute at one byte every 50ms.
	slowHeaders := "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 1200) + "\r\n\r\n"
	// Headers at once, then a body of 1200 bytes at the same pace.
	bodyHeaders := "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-tar\r\nContent-Length: 1200\r\n\r\n"
	slowBody := strings.Repeat("\x00", 1200)

	// Many slow clients at once must not starve a prompt one.
	type result struct {
		body   bool // a slow body, not slow headers
		cut    bool
		answer string
	}
	results := make(chan result, 40)
	var started sync.WaitGroup
	for i := range 40 {
		prompt, msg := "", slowHeaders
		if i%2 == 1 {
			prompt, msg = bodyHeaders, slowBody
		}
		c := s.dial(t)
		started.Add(1)
		go func() {
			cut, answer := dribble(c, prompt, msg, 50*time.Millisecond, sync.OnceFunc(started.Done))
			results <- result{prompt != "", cut, answer}
		}()
	}
	started.Wait() // every slow client is connected and sending
	resp, err := http.Get(s.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a prompt client behind 40 slow ones: %d", resp.StatusCode)
	}
	answers := map[string]int{}
	for range 40 {
		r := <-results
		if !r.cut {
			t.Fatalf("a slow client was never cut off; it got %q", r.answer)
		}
		// Slow headers get net/http's bare 400 or nothing; a slow body gets
		// 408 (it held a validation slot and the body stopped arriving) or
		// 429 (every slot was taken by the other slow bodies) — never a 5xx
		// nor a report of a truncated tree.
		got := firstLine(r.answer)
		ok := got == "" || got == "HTTP/1.1 400 Bad Request"
		if r.body {
			ok = got == "HTTP/1.1 429 Too Many Requests" ||
				got == "HTTP/1.1 408 Request Timeout" && strings.Contains(r.answer, "the request body did not arrive within the request timeout")
		}
		if !ok {
			t.Errorf("a slow client (body %v) was answered:\n%s", r.body, r.answer)
		}
		answers[got]++
	}
	t.Logf("what the slow clients got before the close: %v", answers)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}

// TestServeAuth runs the server with a token file: POSTs and /metrics need
// the token, reads do not, the start-up log says authentication is on, and no
// token ever appears in the log.
func TestServeAuth(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "apps", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "a", "governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	const token = "Zm9vYmFyYmF6cXV4LXRva2VuLTEyMzQ1Njc4OTA="
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("# rotated on Monday\n"+token+"\n"), 0o600)
	s := startServe(t, map[string]string{"GOVERNANCED_AUTH_TOKEN_FILE": tokenFile}, "--tree", dir, "--log-level", "debug")

	call := func(method, path, auth string) (int, string) {
		req, _ := http.NewRequest(method, s.base+path, strings.NewReader(`{"base": {}, "override": {}}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}
	type answer struct {
		Status    int
		Challenge string
	}
	tests := []struct {
		method, path, auth string
		want               answer
	}{
		{"POST", "/merge", "", answer{401, `Bearer realm="governanced"`}},
		{"POST", "/merge", "Bearer wrong-token-0000000000000", answer{401, `Bearer realm="governanced", error="invalid_token"`}},
		{"POST", "/merge", "Bearer " + token, answer{200, ""}},
		{"GET", "/metrics", "", answer{401, `Bearer realm="governanced"`}},
		{"GET", "/metrics", "Bearer " + token, answer{200, ""}},
		{"GET", "/apps", "", answer{200, ""}},
		{"GET", "/status", "", answer{200, ""}},
	}
	for _, tt := range tests {
		code, challenge := call(tt.method, tt.path, tt.auth)
		if diff := cmp.Diff(tt.want, answer{code, challenge}); diff != "" {
			t.Errorf("%s %s with %q (-want +got):\n%s", tt.method, tt.path, tt.auth, diff)
		}
	}
	s.stop()
	logs := s.stderr.String()
	if !strings.Contains(logs, "authentication on") || !strings.Contains(logs, `"token_source":"file `+tokenFile+`"`) {
		t.Errorf("the start-up log does not say authentication is on:\n%s", logs)
	}
	if strings.Contains(logs, token) || strings.Contains(logs, "wrong-token") {
		t.Errorf("a token reached the log")
	}
}

// TestServeAuthRotatesOnSIGHUP: a token file rewritten on disk takes effect
// on SIGHUP, without a restart; a file emptied by mistake keeps the tokens
// in use, and the log says which happened.
func TestServeAuthRotatesOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "apps", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "a", "governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	const old, next = "old-token-0123456789abcdef", "new-token-fedcba9876543210"
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(old+"\n"), 0o600)
	s := startServe(t, nil, "--tree", dir, "--auth-token-file", tokenFile, "--reload-debounce", "1h", "--rescan-interval", "0")
	status := func(token string) int { return s.metricsWith(t, token) }
	hup := func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	if status(old) != 200 || status(next) != 401 {
		t.Fatalf("before the rotation: old %d, new %d; want 200 and 401", status(old), status(next))
	}

	os.WriteFile(tokenFile, []byte(next+"\n"), 0o600)
	hup()
	eventually(t, "the new token after SIGHUP", func() bool { return status(next) == 200 })
	if got := status(old); got != 401 {
		t.Errorf("the removed token still answers %d, want 401", got)
	}

	os.WriteFile(tokenFile, []byte("# emptied by mistake\n"), 0o600)
	hup()
	eventually(t, "the log to refuse the empty file", func() bool {
		return strings.Contains(s.stderr.String(), "auth tokens not reloaded")
	})
	if got := status(next); got != 200 {
		t.Errorf("after an emptied token file the token in use answers %d, want 200", got)
	}
	s.stop()
	if logs := s.stderr.String(); strings.Contains(logs, old) || strings.Contains(logs, next) {
		t.Errorf("a token reached the log")
	}
}

// TestServeWithoutAuthSaysSo: off is the default, and the log says so loudly.
func TestServeWithoutAuthSaysSo(t *testing.T) {
	s := startServe(t, map[string]string{"GOVERNANCED_LOG_LEVEL": "warn"})
	s.stop()
	if logs := s.stderr.String(); !strings.Contains(logs, `"level":"warn"`) || !strings.Contains(logs, "AUTHENTICATION IS OFF") {
		t.Errorf("no warning that authentication is off:\n%s", logs)
	}
}

func TestAuthConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	const tok = "0123456789abcdef0123"
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		tokens []string
		err    string // a substring of the usage error
	}{
		{name: "off by default"},
		{name: "environment token", env: map[string]string{"GOVERNANCED_AUTH_TOKEN": tok + "\n"}, tokens: []string{tok}},
		{name: "token file flag", args: []string{"--auth-token-file", write("one", tok+"\n")}, tokens: []string{tok}},
		{name: "token file variable", env: map[string]string{"GOVERNANCED_AUTH_TOKEN_FILE": write("env", tok)}, tokens: []string{tok}},
		{name: "rotation: two tokens, comments, blank lines, CRLF", args: []string{"--auth-token-file", write("two", "# old\r\n"+tok+"\r\n\r\n"+tok+"XYZ==\r\n")}, tokens: []string{tok, tok + "XYZ=="}},
		{name: "file and variable", args: []string{"--auth-token-file", write("both", tok)}, env: map[string]string{"GOVERNANCED_AUTH_TOKEN": tok}, err: "not both"},
		{name: "missing file", args: []string{"--auth-token-file", filepath.Join(dir, "nope")}, err: "no such file"},
		{name: "empty file", args: []string{"--auth-token-file", write("empty", "# nothing\n\n")}, err: "holds no token"},
		{name: "short token", env: map[string]string{"GOVERNANCED_AUTH_TOKEN": "short"}, err: "at least 16 characters"},
		{name: "token with a space", args: []string{"--auth-token-file", write("space", "0123456789 abcdef0123\n")}, err: "line 1: a token may hold only"},
		{name: "token with a quote", env: map[string]string{"GOVERNANCED_AUTH_TOKEN": `0123456789"abcdef0123`}, err: "a token may hold only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseServeArgs(tt.args, mapEnv(tt.env), io.Discard)
			if tt.err != "" {
				var ue *cli.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want a usage error mentioning %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "0123456789") {
					t.Errorf("the error quotes the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.tokens, c.auth.tokens); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeDebugAddr: --debug-addr serves the profiler on its own listener,
// says so in the log, and the public address does not serve it.
func TestServeDebugAddr(t *testing.T) {
	s := startServe(t, nil, "--debug-addr", "127.0.0.1:0")
	var addr string
	eventually(t, "the profiler's address in the log", func() bool {
		for _, line := range strings.Split(s.stderr.String(), "\n") {
			if strings.Contains(line, "profiler endpoints served") {
				var ev struct{ Addr string }
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Addr != "" {
					addr = ev.Addr
					return true
				}
			}
		}
		return false
	})
	get := func(url string) int {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("http://" + addr + "/debug/pprof/"); code != 200 {
		t.Errorf("profiler index on --debug-addr: %d, want 200", code)
	}
	if code := get(s.base + "/debug/pprof/"); code != 404 {
		t.Errorf("profiler on the public address: %d, want 404", code)
	}
}

// metricsWith is the status of GET /metrics with token as the bearer.
func (s *server) metricsWith(t *testing.T, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// holdTokenReads makes the server pause between the two reads of a changed
// token file until the test lets it go: each pause arrives on the returned
// channel, and closing what it receives ends the pause. Pauses the test does
// not take are let go once it ends.
func holdTokenReads(t *testing.T) <-chan chan struct{} {
	t.Helper()
	paused := make(chan chan struct{})
	done := make(chan struct{})
	orig := pauseBetweenTokenReads
	pauseBetweenTokenReads = func() {
		c := make(chan struct{})
		select {
		case paused <- c:
			<-c
		case <-done:
		}
	}
	t.Cleanup(func() {
		close(done)
		pauseBetweenTokenReads = orig
	})
	return paused
}

// nextPause is the server's next pause between two reads of the token
// file; a server that never reads it twice fails the test.
func nextPause(t *testing.T, paused <-chan chan struct{}) chan struct{} {
	t.Helper()
	select {
	case c := <-paused:
		return c
	case <-time.After(time.Minute):
		t.Fatal("the server never read the changed token file a second time")
		return nil
	}
}

// TestTokenWrittenInTwoPartsIsNeverHalfAccepted: a token file rewritten in
// place in two writes is read between them; the first part (24 characters,
// a well-formed token by itself) is never accepted, the old token stays
// until the whole new one has been read twice alike, and then only the new
// one is accepted.
func TestTokenWrittenInTwoPartsIsNeverHalfAccepted(t *testing.T) {
	const old, next = "old-token-0123456789abcdef", "new-token-fedcba9876543210-and-more"
	half := next[:24]
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(old+"\n"), 0o600)
	paused := holdTokenReads(t)
	s := startServe(t, nil, "--tree", oneAppTree(t), "--auth-token-file", tokenFile, "--log-level", "debug", "--reload-debounce", "20ms", "--rescan-interval", "0")
	// The server listens before it watches: an edit before the watcher is
	// armed would be seen by no one.
	eventually(t, "the watcher to watch", func() bool { return s.logged("watching the inputs", nil) })
	status := func(token string) int { return s.metricsWith(t, token) }
	accepted := func() (got [3]int) { return [3]int{status(old), status(half), status(next)} }

	f, err := os.OpenFile(tokenFile, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(half); err != nil {
		t.Fatal(err)
	}
	first := nextPause(t, paused) // the server has read the first part
	if got := accepted(); got != [3]int{200, 401, 401} {
		t.Errorf("after reading the first part (old, half, new): %v, want [200 401 401]", got)
	}
	if _, err := f.WriteString(next[24:] + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	close(first) // its second read sees the whole token: no agreement yet
	second := nextPause(t, paused)
	if got := accepted(); got != [3]int{200, 401, 401} {
		t.Errorf("after reading the file whole once (old, half, new): %v, want [200 401 401]", got)
	}
	close(second) // the third read agrees with the second
	eventually(t, "the new token", func() bool { return status(next) == 200 })
	if got := accepted(); got != [3]int{401, 401, 200} {
		t.Errorf("after the new token settled (old, half, new): %v, want [401 401 200]", got)
	}
	s.stop()
	if logs := s.stderr.String(); strings.Contains(logs, old) || strings.Contains(logs, half) {
		t.Errorf("a token reached the log")
	}
}

// TestDemoWatchesTheTokenFile: serving the demo tree (no --tree), a token
// file replaced on disk takes effect without a signal.
func TestDemoWatchesTheTokenFile(t *testing.T) {
	const old, next = "old-token-0123456789abcdef", "new-token-fedcba9876543210"
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte(old+"\n"), 0o600)
	s := startServe(t, nil, "--auth-token-file", tokenFile, "--log-level", "debug", "--reload-debounce", "20ms")
	eventually(t, "the watcher to watch", func() bool { return s.logged("watching the inputs", nil) })
	status := func(token string) int { return s.metricsWith(t, token) }
	if status(old) != 200 {
		t.Fatal("the token in the file is not accepted")
	}
	// Atomically, as a secret volume or a rename writes it.
	tmp := filepath.Join(dir, ".token.tmp")
	os.WriteFile(tmp, []byte(next+"\n"), 0o600)
	if err := os.Rename(tmp, tokenFile); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new token", func() bool { return status(next) == 200 })
	if status(old) != 401 {
		t.Error("the replaced token is still accepted")
	}
}

// TestReadWhole: a read during which the file changes is refused.
func TestReadWhole(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	os.WriteFile(p, []byte("0123456789abcdef\n"), 0o600)
	if data, err := readWhole(p); err != nil || string(data) != "0123456789abcdef\n" {
		t.Fatalf("readWhole: %q %v", data, err)
	}
	// The file grows between the stat and the read, as a writer appending
	// to it does.
	grow := func() {
		f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString("more")
		f.Close()
	}
	if _, err := readWholeAfter(p, grow); !errors.Is(err, errChangedWhileRead) {
		t.Errorf("a file that grew during the read: %v, want errChangedWhileRead", err)
	}
}

package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/testfs"
)

// dialFrom connects to addr from the loopback address from (127.0.0.x),
// so that the server sees another client; it skips the test where loopback
// has only 127.0.0.1.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dialing from %s: %v (loopback has no such address here)", from, err)
	}
	return c
}

// metricValue reads one sample of the server's metrics, 0 when absent.
func metricValue(t testing.TB, h http.Handler, series string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

// TestIdleStreamsDoNotStopAWait: a thousand GET /events streams from one
// address that never read take that address's share of the waiter slots
// and no more; a ?wait from another client still gets a slot, and answers
// when the tree changes.
func TestIdleStreamsDoNotStopAWait(t *testing.T) {
	const attackers = 1000
	testfs.NeedFiles(t, 2*attackers+256) // both ends of every connection are in this process
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
	store.Reload(context.Background(), true)
	h, s := newServer(Deps{Store: store})
	srv := httptest.NewServer(h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	share := s.waiters.perClient

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range attackers {
		c := dialFrom(t, "127.0.0.2", addr)
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "every stream to be taken or refused", func() bool {
		return s.waiters.inUse() == share &&
			metricValue(t, h, `governanced_waiters_refused_total{reason="client-share"}`) == attackers-float64(share)
	})
	if got := metricValue(t, h, "governanced_waiters"); got != float64(share) {
		t.Errorf("governanced_waiters %v, want %d", got, share)
	}

	// Another client's wait gets a slot, and its answer once the tree
	// changes.
	c := dialFrom(t, "127.0.0.3", addr)
	defer c.Close()
	etag := store.Current().ETag()
	fmt.Fprintf(c, "GET /apps?wait=5m HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\n\r\n", etag)
	waitFor(t, "the wait to take a slot", func() bool { return s.waiters.inUse() == share+1 })
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.y: {expose: true}\n"})
	store.Reload(context.Background(), false)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Etag") == etag {
		t.Errorf("the wait behind %d idle streams: %d, ETag %s", attackers, resp.StatusCode, resp.Header.Get("Etag"))
	}
}

// TestEventStreamEnds: a stream ends after --max-wait, having told its
// client when to reconnect, and gives its slot back; the client reconnects
// and starts from the last reload.
func TestEventStreamEnds(t *testing.T) {
	_, store := testServer(t)
	h, s := newServer(Deps{Store: store, Limits: Limits{MaxWait: 50 * time.Millisecond}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 2 {
		resp, err := http.Get(srv.URL + "/events")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body) // to the end the server sets
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(body), "retry: 3000\n\n") || !strings.Contains(string(body), "event: reload") ||
			!strings.HasSuffix(string(body), ": the stream ends after --max-wait; reconnect\n\n") {
			t.Errorf("the stream:\n%s", body)
		}
	}
	waitFor(t, "the slots back", func() bool { return s.waiters.inUse() == 0 })
	if got := metricValue(t, h, `governanced_event_streams_ended_total{reason="max-duration"}`); got != 2 {
		t.Errorf("streams ended at their longest: %v, want 2", got)
	}
}

// TestEventStreamDropsANonReader: a stream whose write does not complete
// within its write timeout — a client that does not read — is dropped and
// gives its slot back.
func TestEventStreamDropsANonReader(t *testing.T) {
	_, store := testServer(t)
	h, s := newServer(Deps{Store: store})
	s.streamWriteTimeout = 20 * time.Millisecond
	w := &stuckWriter{header: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, httptest.NewRequest("GET", "/events", nil))
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the stream was never dropped")
	}
	if !w.timedOut() {
		t.Error("the stream ended without its write timing out")
	}
	if s.waiters.inUse() != 0 {
		t.Error("the dropped stream kept its slot")
	}
	if got := metricValue(t, h, `governanced_event_streams_ended_total{reason="write-failed"}`); got != 1 {
		t.Errorf("streams dropped: %v, want 1", got)
	}
}

// stuckWriter is a connection whose client never reads: a write blocks
// until the write deadline passes.
type stuckWriter struct {
	header   http.Header
	mu       sync.Mutex
	deadline time.Time
	expired  bool
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}

func (w *stuckWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	return nil
}

func (w *stuckWriter) Write([]byte) (int, error) {
	w.mu.Lock()
	d := w.deadline
	w.mu.Unlock()
	if d.IsZero() {
		return 0, errors.New("a stream wrote without a deadline")
	}
	time.Sleep(time.Until(d))
	w.mu.Lock()
	w.expired = true
	w.mu.Unlock()
	return 0, os.ErrDeadlineExceeded
}

func (w *stuckWriter) timedOut() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.expired
}

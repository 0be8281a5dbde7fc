package api

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// A client mirroring the served tree (dataset-api) learns of a change
// without polling: a tree-derived GET with If-None-Match naming the served
// revision's ETag and ?wait=DURATION waits until another revision is served
// and then answers 200 at once, or answers 304 when the wait ends with
// nothing new — Consul's and Kubernetes' watches in plain HTTP. GET /events
// streams every reload as a server-sent event. Waiting requests and event
// streams take slots of their own (Limits.MaxWaiters, 429 beyond), and hold
// no lock: a reload wakes them all at once and never waits for them.
//
// The slots are shared fairly: one remote address holds at most
// Limits.MaxWaitersPerClient of them, so one peer opening streams it never
// reads cannot take every slot from the others. Each slot is held for a
// bounded time: a wait for at most Limits.MaxWait, a stream for as long,
// after which it ends and the client reconnects (the stream's retry:
// field says when); and a stream drops a client that does not take what
// it is sent within streamWriteTimeout.

// streamWriteTimeout is the longest one write of an event stream may take:
// a client that does not read is dropped when it passes.
const streamWriteTimeout = 10 * time.Second

// streamRetryMillis is the reconnection delay an event stream asks of its
// client (the SSE retry: field), after the server ends the stream.
const streamRetryMillis = 3000

// waiterSlots are the slots of waiting requests and event streams: at most
// total at once, and at most perClient for one remote address.
type waiterSlots struct {
	mu        sync.Mutex
	total     int
	perClient int
	used      int
	byClient  map[string]int
}

func newWaiterSlots(total, perClient int) *waiterSlots {
	return &waiterSlots{total: total, perClient: perClient, byClient: map[string]int{}}
}

// take takes a slot for client, or says why not: "full" when every slot
// is taken, "client-share" when client holds its share.
func (ws *waiterSlots) take(client string) (refused string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	switch {
	case ws.used >= ws.total:
		return "full"
	case ws.byClient[client] >= ws.perClient:
		return "client-share"
	}
	ws.used++
	ws.byClient[client]++
	return ""
}

func (ws *waiterSlots) release(client string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.used--
	if ws.byClient[client]--; ws.byClient[client] <= 0 {
		delete(ws.byClient, client)
	}
}

// inUse is the slots taken.
func (ws *waiterSlots) inUse() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.used
}

// remoteHost is the address a request came from, without its port: what a
// client's share of the waiter slots is counted by. Behind a proxy every
// client shares the proxy's.
func remoteHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// waitable lets a tree-derived GET wait for a change (?wait).
func (s *server) waitable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v string
		if r.URL.RawQuery != "" { // most reads carry no query: parse none
			v = r.URL.Query().Get("wait")
		}
		if v == "" {
			next.ServeHTTP(w, r)
			return
		}
		d, err := parseWait(v)
		if err != nil {
			refuse(w, r, err)
			return
		}
		d = min(d, s.limits.MaxWait)
		match := r.Header.Get("If-None-Match")
		// The channel first: a swap after it is taken closes it.
		changed := s.store.Changed()
		snap := s.store.Current()
		if match == "" || snap == nil || !httpread.ETagMatches(match, snap.ETag()) {
			next.ServeHTTP(w, r) // the client's copy is stale already: answer now
			return
		}
		release, err := s.takeWaiter(r)
		if err != nil {
			refuse(w, r, err)
			return
		}
		defer release()
		// The wait is the client's to choose within the maximum; the server's
		// write timeout is for ordinary requests.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d + s.limits.RequestTimeout))
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-changed:
		case <-timer.C:
		case <-s.streams.Done():
		case <-r.Context().Done():
			return
		}
		next.ServeHTTP(w, r) // 200 with the new revision, or 304
	})
}

// parseWait reads ?wait: a Go duration (30s, 2m) or a number of seconds.
func parseWait(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, badRequest("wait must be a duration such as 30s or a number of seconds, not %q", v)
	}
	return d, nil
}

// takeWaiter takes a waiter slot for the request, or says why not: 429.
func (s *server) takeWaiter(r *http.Request) (release func(), err error) {
	client := remoteHost(r)
	switch s.waiters.take(client) {
	case "":
		s.metrics.waiting.Inc()
		return func() {
			s.waiters.release(client)
			s.metrics.waiting.Dec()
		}, nil
	case "full":
		s.metrics.waitersRefused.WithLabelValues("full").Inc()
		return nil, busy("waiter", s.waiters.total, 1)
	}
	s.metrics.waitersRefused.WithLabelValues("client-share").Inc()
	return nil, &requestError{status: http.StatusTooManyRequests, kind: "busy", detail: fmt.Sprintf(
		"this client (%s) holds its share of the waiter slots, %d of %d (--max-waiters-per-client); end a wait or a stream first",
		client, s.waiters.perClient, s.waiters.total), header: map[string]string{"Retry-After": "1"}}
}

// reloadEvent is one reload as GET /events streams it.
type reloadEvent struct {
	Seq         uint64    `json:"seq"`
	At          time.Time `json:"at"`
	Outcome     string    `json:"outcome"`
	OK          bool      `json:"ok"`
	Revision    *string   `json:"revision"`
	Previous    *string   `json:"previous"`
	DurationMS  float64   `json:"duration_ms"`
	UnitsReused int       `json:"units_reused"`
	UnitsBuilt  int       `json:"units_built"`
	Error       *string   `json:"error"`
	Findings    *findings `json:"findings"`
	// What is served after the reload: its revision, the apps it holds,
	// and the state directory's revision it is.
	Served    *string     `json:"served"`
	Held      []heldEvent `json:"held"`
	Persisted *persisted  `json:"persisted"`
}

// heldEvent is a held app as an event names it; /status says why.
type heldEvent struct {
	App   string    `json:"app"`
	Since time.Time `json:"since"`
}

// findings counts the check's findings by severity.
type findings struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

func newReloadEvent(st *snapshot.ReloadStatus, cur *snapshot.Snapshot) reloadEvent {
	ev := reloadEvent{Seq: st.Seq, At: st.At, Outcome: st.Outcome.String(), OK: st.OK(),
		DurationMS: float64(st.Duration.Microseconds()) / 1000, UnitsReused: st.UnitsReused, UnitsBuilt: st.UnitsBuilt}
	if st.Revision != "" {
		ev.Revision = &st.Revision
	}
	if st.Previous != "" {
		ev.Previous = &st.Previous
	}
	if st.Served != "" {
		ev.Served = &st.Served
	}
	ev.Held = make([]heldEvent, len(st.Held))
	for i, h := range st.Held {
		ev.Held[i] = heldEvent{App: h.App, Since: h.Since}
	}
	ev.Persisted = newPersisted(st.Persisted)
	if st.Err != nil {
		msg := st.Err.Error()
		ev.Error = &msg
	}
	switch {
	case st.Rejected != nil:
		sum := st.Rejected.Report.Summary
		ev.Findings = &findings{sum.Errors, sum.Warnings, sum.Infos}
	case st.OK() && cur != nil && cur.Revision == st.Revision:
		sum := cur.Report().Summary
		ev.Findings = &findings{sum.Errors, sum.Warnings, sum.Infos}
	}
	return ev
}

// events streams every reload as it ends (text/event-stream): an event
// "reload" whose data is a reloadEvent and whose id is its sequence number.
// A client that reads slowly gets the latest reload when it next reads (the
// ids then skip), never a backlog. Every write must complete within
// streamWriteTimeout, or the client is dropped; the stream ends after
// Limits.MaxWait, and the client reconnects after the retry: it was given.
//
// It is the one handler that writes as it goes rather than return a
// result: a stream lasts minutes and is written event by event.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	release, err := s.takeWaiter(r)
	if err != nil {
		refuse(w, r, err)
		return
	}
	defer release()
	ended := "client"
	defer func() { s.metrics.streamsEnded.WithLabelValues(ended).Inc() }()
	rc := http.NewResponseController(w)
	// write sends p and flushes it, within streamWriteTimeout.
	write := func(p []byte) error {
		if err := rc.SetWriteDeadline(time.Now().Add(s.streamWriteTimeout)); err != nil {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
		return rc.Flush()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would hold the events back
	w.WriteHeader(http.StatusOK)
	if err := write([]byte("retry: " + strconv.Itoa(streamRetryMillis) + "\n\n")); err != nil {
		ended = "write-failed"
		return
	}
	var sent uint64
	send := func() error {
		st := s.store.LastReload()
		if st == nil || st.Seq == sent {
			return nil
		}
		sent = st.Seq
		buf := getBuffer()
		defer putBuffer(buf)
		fmt.Fprintf(buf, "id: %d\nevent: reload\ndata: ", st.Seq)
		writeJSONValue(buf, newReloadEvent(st, s.store.Current()))
		buf.WriteString("\n\n")
		return write(buf.Bytes())
	}
	// The last reload first, so a client starts from the state it reports.
	if err := send(); err != nil {
		ended = "write-failed"
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	longest := time.NewTimer(s.limits.MaxWait)
	defer longest.Stop()
	for {
		reloaded := s.store.Reloaded()
		if err := send(); err != nil { // one that ended before the channel was taken
			ended = "write-failed"
			return
		}
		select {
		case <-reloaded:
			if err := send(); err != nil {
				ended = "write-failed"
				return
			}
		case <-keepAlive.C:
			if err := write([]byte(": keep-alive\n\n")); err != nil {
				ended = "write-failed"
				return
			}
		case <-longest.C:
			// The client reconnects after the retry: it was given, and
			// starts again from the last reload.
			ended = "max-duration"
			_ = write([]byte(": the stream ends after --max-wait; reconnect\n\n"))
			return
		case <-s.streams.Done():
			ended = "shutdown"
			return
		case <-r.Context().Done():
			return
		}
	}
}

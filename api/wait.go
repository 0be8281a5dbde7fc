package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

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
			writeError(w, r, err)
			return
		}
		d = min(d, s.limits.MaxWait)
		match := r.Header.Get("If-None-Match")
		// The channel first: a swap after it is taken closes it.
		changed := s.store.Changed()
		snap := s.store.Current()
		if match == "" || snap == nil || !etagMatches(match, snap.ETag()) {
			next.ServeHTTP(w, r) // the client's copy is stale already: answer now
			return
		}
		if !s.takeWaiter(w, r) {
			return
		}
		defer s.releaseWaiter()
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

func (s *server) takeWaiter(w http.ResponseWriter, r *http.Request) bool {
	select {
	case s.waiters <- struct{}{}:
		return true
	default:
		writeBusy(w, r, "waiter", cap(s.waiters), 1)
		return false
	}
}

func (s *server) releaseWaiter() { <-s.waiters }

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
// ids then skip), never a backlog.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	if !s.takeWaiter(w, r) {
		return
	}
	defer s.releaseWaiter()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream has no end the server knows of
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would hold the events back
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 3000\n\n")
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
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		return rc.Flush()
	}
	// The last reload first, so a client starts from the state it reports.
	if err := send(); err != nil {
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		reloaded := s.store.Reloaded()
		if err := send(); err != nil { // one that ended before the channel was taken
			return
		}
		select {
		case <-reloaded:
			if err := send(); err != nil {
				return
			}
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-s.streams.Done():
			return
		case <-r.Context().Done():
			return
		}
	}
}

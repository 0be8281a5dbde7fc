package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// defaultRetry is how long Watch waits before it reconnects when the server
// has not said (the SSE retry field).
const defaultRetry = 3 * time.Second

// minRetry and maxRetry bound the wait before Watch connects again,
// whatever a stream asks for.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Minute
)

// Watch follows the server's reloads over GET /events until ctx ends, then
// returns ctx's error. While its stream is live, a cached answer of the
// revision the server last reported is returned without a request, and a
// reload to another revision makes every older answer ask again. When the
// server ends the stream, or it cannot be reached, Watch waits as long as
// the stream's retry field says (429: Retry-After) and connects again;
// meanwhile every read asks the server. It returns early, with a *Problem,
// only when the server refuses the stream for good (a 4xx other than 429).
//
// Run it in its own goroutine: go c.Watch(ctx).
func (c *Client) Watch(ctx context.Context) error {
	retry := defaultRetry
	for {
		err := c.stream(ctx, &retry)
		c.setState(func(s *watchState) { s.live = false })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Never sooner than minRetry, whatever the stream said: a server
		// ending every stream at once must not be asked in a loop.
		wait := max(retry, minRetry)
		var p *Problem
		if errors.As(err, &p) {
			if p.Status >= 400 && p.Status < 500 && p.Status != http.StatusTooManyRequests {
				return err
			}
			wait = min(max(wait, p.RetryAfter), maxRetry)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Revision is the revision Watch last saw served ("" before any), and
// whether its stream follows the server now.
func (c *Client) Revision() (revision string, live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watched.revision, c.watched.live
}

// Changed returns a channel that is closed when what Revision returns next
// changes: a reload to another revision, the stream lost or regained.
func (c *Client) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// current reports whether an answer of revision is the one served, as far
// as a live stream says.
func (c *Client) current(revision string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watched.live && revision != "" && revision == c.watched.revision
}

func (c *Client) setState(f func(*watchState)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.watched
	f(&c.watched)
	if c.watched != before {
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// stream reads one GET /events stream until it ends. A stream that sends
// nothing, not even the server's keep-alive comments, for c.idle is taken
// for lost (a peer that vanished without closing the connection).
func (c *Client) stream(ctx context.Context, retry *time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url("/events", nil), nil)
	if err != nil {
		return err
	}
	c.headers(req)
	req.Header.Set("Accept", "text/event-stream")
	// The same transport, without the client's overall timeout: a stream
	// lasts as long as the server keeps it.
	hc := *c.http
	hc.Timeout = 0
	idle := time.AfterFunc(c.idle, cancel)
	defer idle.Stop()
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return problemOf(resp)
	}
	return readEvents(resp.Body, func() { idle.Reset(c.idle) }, retry, func(event, data string) {
		if event != "reload" {
			return
		}
		var ev ReloadEvent
		if json.Unmarshal([]byte(data), &ev) != nil {
			return
		}
		served := ev.Served()
		c.setState(func(s *watchState) {
			s.live = served != ""
			if served != "" {
				s.revision = served
			}
		})
	})
}

// readEvents reads a text/event-stream until it ends, calling onEvent with
// each event's type and data, and alive at every line; a retry field sets
// *retry. It returns the error that ended the stream (io.EOF when the
// server closed it).
func readEvents(body io.Reader, alive func(), retry *time.Duration, onEvent func(event, data string)) error {
	r := bufio.NewReader(body)
	var event string
	var data strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		alive()
		line = strings.TrimRight(line, "\r\n")
		if line == "" { // an event ends at a blank line
			if data.Len() > 0 {
				onEvent(event, data.String())
			}
			event = ""
			data.Reset()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment: the server's keep-alive
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil && ms >= 0 {
				*retry = min(time.Duration(min(ms, int(maxRetry/time.Millisecond)))*time.Millisecond, maxRetry)
			}
		}
	}
}

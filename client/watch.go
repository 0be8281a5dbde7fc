package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// defaultRetry is how long Watch waits before it reconnects when the server
// has not said (the SSE retry field).
const defaultRetry = 3 * time.Second

// minRetry is the shortest wait before Watch connects again.
const minRetry = 100 * time.Millisecond

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
			wait = max(wait, p.RetryAfter)
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
	r := bufio.NewReader(resp.Body)
	var event string
	var data strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err // the server ended the stream, or it was lost
		}
		idle.Reset(c.idle)
		line = strings.TrimRight(line, "\r\n")
		if line == "" { // an event ends at a blank line
			if event == "reload" && data.Len() > 0 {
				var ev ReloadEvent
				if json.Unmarshal([]byte(data.String()), &ev) == nil {
					served := ev.Served()
					c.setState(func(s *watchState) {
						s.live = served != ""
						if served != "" {
							s.revision = served
						}
					})
				}
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
				*retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

package api

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// ConnLimit caps the connections a server holds open below the process's
// open-file limit, so that a crowd of idle keep-alive connections cannot
// exhaust it: with every descriptor taken, accept fails and the probes get
// no answer. Of Max connections, the last Reserve are kept for the probes
// and the metrics. When a new connection would pass Max-Reserve the
// connections doing nothing — idle between requests, or opened and silent
// — are closed first, the longest idle first; when none is, the new one is
// a reserved connection: it may ask /healthz, /readyz or /metrics once and
// is then closed, and anything else is answered 503 connections-full. Past
// Max a new connection is closed at once.
//
// A server wires it in three places: its listener (Listener), its
// http.Server's ConnState and ConnContext, and Deps.Conns, which answers the
// reserved connections and counts it all in the metrics.
type ConnLimit struct {
	max, reserve int

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
	shed  int64 // connections closed to make room
	full  int64 // connections closed at once past max
}

// NewConnLimit caps connections at limit, of which reserve are kept for
// the probes and the metrics (at least 1, at most half).
func NewConnLimit(limit, reserve int) *ConnLimit {
	reserve = max(min(reserve, limit/2), 1)
	return &ConnLimit{max: limit, reserve: reserve, conns: map[*limitedConn]struct{}{}}
}

// Max is the cap; Reserve the connections kept for probes.
func (l *ConnLimit) Max() int     { return l.max }
func (l *ConnLimit) Reserve() int { return l.reserve }

// limitedConn is a connection the limit counts.
type limitedConn struct {
	net.Conn
	l         *ConnLimit
	once      sync.Once
	reserved  bool      // accepted past max-reserve: probes only, once
	busy      bool      // a request is being read or answered
	served    bool      // it has been answered at least once
	quietFrom time.Time // since when it has done nothing, when not busy
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return err
}

// Listener counts the connections ln accepts against the limit.
func (l *ConnLimit) Listener(ln net.Listener) net.Listener {
	return &limitedListener{Listener: ln, l: l}
}

type limitedListener struct {
	net.Listener
	l *ConnLimit
}

func (ln *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := ln.l.admit(c); lc != nil {
			return lc, nil
		}
		c.Close()
	}
}

// admit counts a new connection, closing quiet ones to make room when the
// count nears the cap; nil when it must be closed at once.
func (l *ConnLimit) admit(c net.Conn) *limitedConn {
	l.mu.Lock()
	var shed []*limitedConn
	if n := len(l.conns) + 1; n > l.max-l.reserve {
		shed = l.quietest(n - (l.max - l.reserve))
		l.shed += int64(len(shed))
	}
	n := len(l.conns) + 1 - len(shed)
	if n > l.max {
		l.full++
		l.mu.Unlock()
		return nil
	}
	lc := &limitedConn{Conn: c, l: l, reserved: n > l.max-l.reserve, quietFrom: time.Now()}
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	for _, q := range shed {
		q.Close()
	}
	return lc
}

// quietest are up to k connections doing nothing: those idle after an
// answer first, then those opened and silent, each the longest quiet first.
// Called with l.mu held.
func (l *ConnLimit) quietest(k int) []*limitedConn {
	var quiet []*limitedConn
	for c := range l.conns {
		if !c.busy {
			quiet = append(quiet, c)
		}
	}
	sooner := func(a, b *limitedConn) bool {
		if a.served != b.served {
			return a.served
		}
		return a.quietFrom.Before(b.quietFrom)
	}
	// A partial selection: k is small next to the connections.
	for i := 0; i < k && i < len(quiet); i++ {
		first := i
		for j := i + 1; j < len(quiet); j++ {
			if sooner(quiet[j], quiet[first]) {
				first = j
			}
		}
		quiet[i], quiet[first] = quiet[first], quiet[i]
	}
	return quiet[:min(k, len(quiet))]
}

// ConnState follows each connection's state: set it as the http.Server's
// ConnState.
func (l *ConnLimit) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateActive:
		lc.busy = true
	case http.StateIdle:
		lc.busy, lc.served, lc.quietFrom = false, true, time.Now()
	case http.StateHijacked:
		lc.busy = true // no longer the server's to close
	}
}

type connKey struct{}

// ConnContext puts the connection in its requests' context: set it as the
// http.Server's ConnContext.
func (l *ConnLimit) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// counts are the limit's state for the metrics.
func (l *ConnLimit) counts() (open int, shed, full int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns), l.shed, l.full
}

// reservedConn reports whether the request came on a reserved connection.
func reservedConn(r *http.Request) bool {
	lc, ok := r.Context().Value(connKey{}).(*limitedConn)
	return ok && lc.reserved
}

// answerReserved answers a request on a reserved connection, and closes the
// connection after it: a probe or the metrics as usual, anything else 503.
// It reports whether it answered.
func (s *server) answerReserved(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Connection", "close")
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return false
	}
	refuse(w, r, &requestError{status: http.StatusServiceUnavailable, kind: "connections-full",
		detail: "the server holds as many connections as it may (--max-connections) and keeps the last for its probes; retry, or reuse an open connection",
		header: map[string]string{"Retry-After": "1"}})
	return true
}

package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compressMin is the smallest body compressed: below it gzip's header and
// the work cost more than the bytes saved.
const compressMin = 4 << 10

// compressLevel trades ratio for speed: the listings are repetitive JSON,
// which the fastest level already shrinks to a few percent, in about half
// the time the default level takes (BenchmarkCompressListing).
const compressLevel = gzip.BestSpeed

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, compressLevel)
	return w
}}

// compress gzips a response when the client accepts gzip and the body, of
// a textual type, reaches compressMin: the first compressMin bytes are held
// to decide. A body a handler flushes before that (an event stream), a
// body the handler encoded itself (GET /metrics), a HEAD and a bodiless
// status pass as they are. The reads of one dataset are routed without it
// (routes.go): their bodies are small, and their throughput is the
// service's (ADR-0015).
//
// A compressed body is another representation of the resource: its ETag
// becomes weak (W/"…"), which If-None-Match still matches (httpread.ETagMatches),
// and every answer names Accept-Encoding in Vary.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{ResponseWriter: w}
		defer cw.finish()
		next.ServeHTTP(cw, r)
	})
}

// acceptsGzip reports whether an Accept-Encoding value admits gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || strings.HasPrefix(q, "q=0.") && strings.Trim(q[len("q=0."):], "0") == "" {
			return false
		}
		return true
	}
	return false
}

// compressible reports whether a media type is worth gzipping: text and
// JSON, never an event stream (each event must reach the client as it is
// written) nor what is compressed already.
func compressible(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"), mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/x-ndjson", mt == "application/yaml", mt == "application/javascript", mt == "image/svg+xml":
		return true
	}
	return false
}

// compressWriter holds the start of a body until it knows whether to
// compress it.
type compressWriter struct {
	http.ResponseWriter
	status  int
	held    []byte
	decided bool
	gz      *gzip.Writer // set when compressing
	// whole holds a compressed body whose length the handler stated
	// (write sets Content-Length for a whole body): it goes out at the end
	// with its own length, never chunked. Nil for a streamed body.
	whole *bytes.Buffer
}

func (c *compressWriter) WriteHeader(status int) {
	if c.decided || c.status != 0 {
		if c.decided && c.gz == nil {
			c.ResponseWriter.WriteHeader(status)
		}
		return
	}
	c.status = status
	if status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		c.pass()
	}
}

func (c *compressWriter) Write(p []byte) (int, error) {
	if !c.decided {
		if !compressible(c.Header().Get("Content-Type")) || c.Header().Get("Content-Encoding") != "" {
			c.pass()
		} else if len(c.held)+len(p) < compressMin {
			c.held = append(c.held, p...)
			return len(p), nil
		} else {
			c.start()
		}
	}
	if c.gz != nil {
		return c.gz.Write(p)
	}
	return c.ResponseWriter.Write(p)
}

// Flush sends what is held as it is (a stream is not compressed) and
// flushes the connection.
func (c *compressWriter) Flush() {
	if !c.decided {
		c.pass()
	}
	if c.whole != nil {
		return // a whole body goes out at the end, with its length
	}
	if c.gz != nil {
		_ = c.gz.Flush()
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (c *compressWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// pass decides against compressing: the status and what is held go out
// as they are.
func (c *compressWriter) pass() {
	c.decided = true
	if c.status != 0 {
		c.ResponseWriter.WriteHeader(c.status)
	}
	if len(c.held) > 0 {
		_, _ = c.ResponseWriter.Write(c.held)
	}
	c.held = nil
}

// start decides to compress: the headers say so, and what is held is the
// first of the compressed stream.
func (c *compressWriter) start() {
	c.decided = true
	h := c.Header()
	h.Set("Content-Encoding", "gzip")
	if etag := h.Get("Etag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		h.Set("Etag", "W/"+etag)
	}
	c.gz = gzipWriters.Get().(*gzip.Writer)
	if h.Get("Content-Length") != "" {
		h.Del("Content-Length")
		c.whole = getBuffer()
		c.gz.Reset(c.whole)
	} else {
		h.Del("Content-Length")
		if c.status != 0 {
			c.ResponseWriter.WriteHeader(c.status)
		}
		c.gz.Reset(c.ResponseWriter)
	}
	held := c.held
	c.held = nil
	_, _ = c.gz.Write(held)
}

// finish ends the response: a body that never reached compressMin goes
// out as it is, a compressed one is closed.
func (c *compressWriter) finish() {
	if !c.decided {
		c.pass()
		return
	}
	if c.gz != nil {
		_ = c.gz.Close()
		c.gz.Reset(io.Discard)
		gzipWriters.Put(c.gz)
		c.gz = nil
	}
	if c.whole != nil {
		c.Header().Set("Content-Length", strconv.Itoa(c.whole.Len()))
		if c.status != 0 {
			c.ResponseWriter.WriteHeader(c.status)
		}
		_, _ = c.ResponseWriter.Write(c.whole.Bytes())
		putBuffer(c.whole)
		c.whole = nil
	}
}

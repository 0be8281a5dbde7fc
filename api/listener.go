package api

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// ProblemListener wraps a listener so that the answers net/http writes by
// itself, before any handler runs, are problem details like every other
// error instead of plain text: a request it cannot read (an invalid
// percent-escape such as %zz in the path, a malformed request line or
// header, no Host), request headers that are too large, a transfer encoding
// it does not support. A server passes its listener through this before
// Serve; it is for plain HTTP (TLS would encrypt the answer before the
// wrapper saw it).
func ProblemListener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c}, nil
}

// problemConn rewrites net/http's own error answers as they are written.
type problemConn struct{ net.Conn }

// net/http writes its own answers in one write, as
// "HTTP/1.1 <status>" + earlyErrorHeaders + body. A handler's answer never
// looks so: net/http sorts a response's header fields (Connection before
// Content-Type) and adds Date.
const earlyErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *problemConn) Write(p []byte) (int, error) {
	if len(p) < 512 && bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		if status, reason, ok := earlyError(p); ok {
			if _, err := c.Conn.Write(earlyProblem(status, reason)); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}

// CloseWrite lets net/http half-close the connection after refusing
// oversized headers, as it does on the connection it wraps.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// earlyError reads one of net/http's own answers: its status and what it
// says beyond the status text ("missing required Host header").
func earlyError(p []byte) (status int, reason string, ok bool) {
	line, rest, found := strings.Cut(string(p[len("HTTP/1.1 "):]), "\r\n")
	if !found || !strings.HasPrefix("\r\n"+rest, earlyErrorHeaders) || len(line) < 3 {
		return 0, "", false
	}
	status, err := strconv.Atoi(line[:3])
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	if _, r, found := strings.Cut(line, ": "); found {
		reason = r
	}
	return status, reason, true
}

// earlyProblem is the answer to a request net/http refused, as a problem
// detail. It has no request id: the request was never read far enough to
// have one.
func earlyProblem(status int, reason string) []byte {
	detail := reason
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		detail = "the request's headers are larger than this server accepts"
	case status == http.StatusNotImplemented:
		detail = "the request's transfer encoding is not one this server supports"
	case detail == "":
		detail = "the request line or a header does not parse; an invalid percent-escape in the path (such as %zz) is the usual cause"
	default:
		detail = "the request does not parse: " + detail
	}
	var body bytes.Buffer
	body.WriteString(`{"type":`)
	writeJSONValue(&body, ProblemBase+"unreadable-request")
	body.WriteString(`,"title":`)
	writeJSONValue(&body, problemTitles["unreadable-request"])
	body.WriteString(`,"status":`)
	body.WriteString(strconv.Itoa(status))
	body.WriteString(`,"detail":`)
	writeJSONValue(&body, detail)
	body.WriteString("}\n")
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(body.Len()) + "\r\n\r\n")
	out.Write(body.Bytes())
	return out.Bytes()
}

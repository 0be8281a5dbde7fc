// Package httpread reads what the API and its web pages both read from a
// request, so that the two read it alike: a route parameter and the
// If-None-Match comparison.
package httpread

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
)

// PathParam is a route parameter, percent-decoded: chi matches on the raw
// path when the request had to escape something (a glob's %2A, a %2F), and
// then hands the parameter over still escaped.
func PathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath == "" {
		return v
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// ETagMatches is If-None-Match's weak comparison (RFC 9110 §13.1.2): true
// when the header names etag, weak or strong, or is "*".
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

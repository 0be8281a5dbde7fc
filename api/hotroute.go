package api

import (
	"net/http"
	"strings"
)

// hotRoute is a route ServeHTTP matches itself, ahead of chi: the reads of
// one dataset, which are nearly all of a server's traffic. chi's routing of
// them (its tree walk, and the path values it copies onto the request, a map
// per request) was a fifth of the time a rule answer took in process, and
// every microsecond there is a larger share of the throughput once the
// kernel and the client are counted (docs/performance.md).
//
// A hot route is registered with chi too, so chi stays the definition of
// every route: HEAD, and any path the matcher is unsure of, go to chi, and
// TestHotRoutesAgreeWithChi and FuzzHotRoutes hold the matcher to chi's
// answer for every path it takes.
type hotRoute struct {
	pattern string // as registered with chi: prefix + "{id}" + suffix
	prefix  string
	suffix  string
	handler http.HandlerFunc
}

// hotParam is the one parameter a hot route has.
const hotParam = "id"

func newHotRoute(pattern string, h http.HandlerFunc) hotRoute {
	prefix, suffix, ok := strings.Cut(pattern, "{"+hotParam+"}")
	if !ok || strings.Contains(suffix, "{") || !strings.HasPrefix(suffix, "/") || strings.Contains(prefix, "{") {
		panic("api: hot route " + pattern + " must have one {" + hotParam + "} segment followed by a static suffix")
	}
	return hotRoute{pattern: pattern, prefix: prefix, suffix: suffix, handler: h}
}

// matchHot returns the hot route a request is for and its id, or nil. It
// takes only a GET of a path with a non-empty id and no other slash, which
// chi routes to the same route with the same id; the path is chi's: the
// escaped one when the URL has it, so pathParam unescapes the id alike.
func matchHot(routes []hotRoute, r *http.Request) (*hotRoute, string) {
	if r.Method != http.MethodGet {
		return nil, ""
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	for i := range routes {
		h := &routes[i]
		rest, ok := strings.CutPrefix(path, h.prefix)
		if !ok {
			continue
		}
		id, ok := strings.CutSuffix(rest, h.suffix)
		if ok && id != "" && !strings.Contains(id, "/") {
			return h, id
		}
	}
	return nil, ""
}

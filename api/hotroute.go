package api

import (
	"net/http"
	"strings"
)

// hotRoute is a route ServeHTTP matches itself, ahead of chi: a GET of one
// dataset's rule, exposure or facet, which is nearly all of a server's
// traffic. chi routes it the same way (TestHotRoutesAgreeWithChi), and
// answers everything else, HEAD included; what the hot path saves is chi's
// tree walk and the path-value map chi puts on every request it routes
// (ADR-0010 has the figures).
//
// The hot path fills chi's route context as chi would, so handlers read the
// id with pathParam (chi.URLParam); it does not set r.PathValue, and no
// handler in this package may read it (TestNoHandlerReadsPathValue).
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

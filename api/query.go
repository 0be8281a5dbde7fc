package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// A query string is read strictly. Go's parser gives up on a query of more
// than 10,000 parameters and skips a pair it cannot decode, and
// r.URL.Query() drops the error: a handler then sees no options at all, so
// `POST /validate?strict=true&…` with ten thousand more parameters answered
// `strict: false` and a CI gate passed a tree it should have failed. So every
// route declares the query parameters it accepts (openapi.yaml's, read at
// start-up: one place declares them), and a query that does not parse,
// holds a name the route does not accept, gives a single-valued parameter
// twice or holds more than maxQueryParams parameters is a 400 problem naming
// the reason, before the handler runs.

// maxQueryParams bounds the parameters of one query, repeated ones
// included: far more than any use of the repeatable ones (path, owners,
// tag) needs, far fewer than would cost anything to read.
const maxQueryParams = 1000

// queryParam is a query parameter a route accepts.
type queryParam struct {
	repeatable bool // an array: given once per value
}

// routeParams are the query parameters of each operation, by method and
// route pattern ("GET /datasets"), read when the first server's routes are
// made: the binary's other commands (validate, diff, …) never parse the
// OpenAPI document.
var routeParams = sync.OnceValue(func() map[string]map[string]queryParam { return mustRouteParams(OpenAPI) })

// mustRouteParams reads every operation's query parameters from the
// OpenAPI document, resolving references to its components. The document
// is compiled into the binary, so a failure is a programming error (and a
// test reads it).
func mustRouteParams(doc []byte) map[string]map[string]queryParam {
	out, err := readRouteParams(doc)
	if err != nil {
		panic("api: reading the query parameters of openapi.yaml: " + err.Error())
	}
	return out
}

func readRouteParams(doc []byte) (map[string]map[string]queryParam, error) {
	root, err := yaml11.Parse(doc)
	if err != nil {
		return nil, err
	}
	components := root.Get("components").Get("parameters")
	paths := root.Get("paths")
	if paths == nil || paths.Kind != yaml11.Map {
		return nil, fmt.Errorf("no paths")
	}
	out := map[string]map[string]queryParam{}
	for _, p := range paths.Pairs {
		for _, op := range p.Value.Pairs {
			method := strings.ToUpper(op.Key.Str)
			params := map[string]queryParam{}
			for _, lists := range []*yaml11.Node{p.Value.Get("parameters"), op.Value.Get("parameters")} {
				if lists == nil {
					continue
				}
				for _, prm := range lists.Items {
					if ref := prm.Get("$ref"); ref != nil {
						name, ok := strings.CutPrefix(ref.Str, "#/components/parameters/")
						if prm = components.Get(name); !ok || prm == nil {
							return nil, fmt.Errorf("%s %s: unknown parameter reference %q", method, p.Key.Str, ref.Str)
						}
					}
					if in := prm.Get("in"); in == nil || in.Str != "query" {
						continue
					}
					name := prm.Get("name")
					if name == nil || name.Str == "" {
						return nil, fmt.Errorf("%s %s: a query parameter without a name", method, p.Key.Str)
					}
					typ := prm.Get("schema").Get("type")
					params[name.Str] = queryParam{repeatable: typ != nil && typ.Str == "array"}
				}
			}
			out[method+" "+p.Key.Str] = params
		}
	}
	return out, nil
}

// strictQuery refuses, with a 400 problem, a request whose query the
// operation method+" "+pattern would not read exactly, then runs next.
// Requests without a query (most) cost a string comparison.
func strictQuery(method, pattern string, next http.HandlerFunc) http.HandlerFunc {
	accepted, ok := routeParams()[method+" "+pattern]
	if !ok {
		panic("api: " + method + " " + pattern + " is not in openapi.yaml")
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			if err := checkQuery(r.URL.RawQuery, pattern, accepted); err != nil {
				refuse(w, r, err)
				return
			}
		}
		next(w, r)
	}
}

// checkQuery reports why a raw query is not one the route reads exactly.
func checkQuery(raw, route string, accepted map[string]queryParam) error {
	// Counted before parsing, as Go's parser counts (its own limit would
	// otherwise answer first, with every parameter dropped).
	if n := strings.Count(raw, "&") + 1; n > maxQueryParams {
		return badRequest("the query has %d parameters, more than the %d a request may have", n, maxQueryParams)
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return badRequest("the query string does not parse (%v): no option was read", err)
	}
	var unknown []string
	for name, vs := range q {
		p, ok := accepted[name]
		switch {
		case !ok:
			unknown = append(unknown, name)
		case !p.repeatable && len(vs) > 1:
			return badRequest("query parameter %s is given %d times; it takes one value", name, len(vs))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(unknown))
		for i, n := range unknown {
			names[i] = fmt.Sprintf("%q", cut(n, 40))
		}
		if len(names) > 5 {
			names = append(names[:5], fmt.Sprintf("and %d more", len(unknown)-5))
		}
		return badRequest("unknown query parameter %s: %s", strings.Join(names, ", "), accepts(route, accepted))
	}
	return nil
}

// accepts says which parameters a route takes, for the refusal of one it
// does not.
func accepts(route string, accepted map[string]queryParam) string {
	if len(accepted) == 0 {
		return route + " takes no query parameters"
	}
	names := make([]string, 0, len(accepted))
	for n := range accepted {
		names = append(names, n)
	}
	slices.Sort(names)
	return route + " takes " + strings.Join(names, ", ")
}

// cut shortens a client's text quoted in an answer.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

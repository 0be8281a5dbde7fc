package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// hotRouter is the server's hot routes and chi router, as NewServer builds
// them, with no tree behind them: routing needs none.
func hotRouter(t testing.TB) *server {
	t.Helper()
	_, s := newServer(Deps{Registry: prometheus.NewRegistry()})
	if len(s.hot) == 0 {
		t.Fatal("the server has no hot routes")
	}
	return s
}

// checkHotAgreesWithChi fails when matchHot takes a request target that chi
// would route elsewhere or with another id. It reports whether matchHot took it.
func checkHotAgreesWithChi(t *testing.T, s *server, target string) (taken bool) {
	t.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return false // net/http answers 400 before any handler
	}
	r := &http.Request{Method: http.MethodGet, URL: u}
	h, id := matchHot(s.hot, r)
	if h == nil {
		return false
	}
	path := u.RawPath // what chi routes on
	if path == "" {
		path = u.Path
	}
	rctx := chi.NewRouteContext()
	if !s.mux.Match(rctx, http.MethodGet, path) {
		t.Fatalf("%q: matchHot took it for %s (id %q), chi routes it nowhere", target, h.pattern, id)
	}
	if got := rctx.RoutePattern(); got != h.pattern || rctx.URLParam(hotParam) != id {
		t.Fatalf("%q: matchHot says %s with id %q, chi says %s with id %q", target, h.pattern, id, got, rctx.URLParam(hotParam))
	}
	return true
}

func TestHotRoutesAgreeWithChi(t *testing.T) {
	s := hotRouter(t)
	tests := []struct {
		target string
		taken  bool // whether the hot path should take it rather than chi
	}{
		{"/datasets/datasets.ds_dev_gold.meters_data_15m/rule", true},
		{"/datasets/x/exposure", true},
		{"/datasets/x/facet?producer=p", true},
		{"/datasets/silver.%2A/rule", true},        // an encoded glob key
		{"/datasets/a%2Fb/rule", true},             // an encoded slash: chi routes the escaped path
		{"/datasets/%E2%82%AC.x/rule?app=a", true}, // UTF-8
		{"/datasets/a.b/rule/", false},
		{"/datasets//rule", false},
		{"/datasets/a/b/rule", false},
		{"/datasets/rule", false},
		{"/datasets/x/rules", false},
		{"/datasets/x/Rule", false},
		{"/datasets", false},
		{"/apps/a/datasets/x/rule", false},
		{"//datasets/x/rule", false},
	}
	for _, tt := range tests {
		if got := checkHotAgreesWithChi(t, s, tt.target); got != tt.taken {
			t.Errorf("%q: taken by the hot path = %v, want %v", tt.target, got, tt.taken)
		}
	}
	// Every route chi has, with each parameter filled in: a route added
	// later whose path the matcher would take (a static segment where {id}
	// is) fails here.
	err := chi.Walk(s.mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		var path strings.Builder
		for rest := route; rest != ""; {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				path.WriteString(rest)
				break
			}
			closing := strings.IndexByte(rest[open:], '}')
			path.WriteString(rest[:open] + "p")
			rest = rest[open+closing+1:]
		}
		checkHotAgreesWithChi(t, s, path.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{http.MethodHead, http.MethodPost, "PATCH"} {
		r, _ := http.NewRequest(m, "/datasets/x/rule", nil)
		if h, _ := matchHot(s.hot, r); h != nil {
			t.Errorf("%s taken by the hot path; only GET is", m)
		}
	}
}

// TestHotRoutesAnswerAsChi asks each hot route through ServeHTTP, and the
// same request through chi alone: the answers are the same.
func TestHotRoutesAnswerAsChi(t *testing.T) {
	h, _ := testServer(t)
	s := h.(*server)
	for _, target := range []string{
		"/datasets/datasets.ds_dev_gold.meters_data_15m/rule?explain=true",
		"/datasets/datasets.ds_dev_gold.meters_data_15m/exposure",
		"/datasets/datasets.ds_dev_gold.meters_data_15m/facet",
		"/datasets/no.such.dataset/rule",
		"/datasets/datasets.ds_dev_gold.meters_data_15m/rule?explain=maybe",
	} {
		// One request id for both, which problems carry.
		hot := do(t, h, "GET", target, nil, "X-Request-Id", "same")
		viaChi := do(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			saved := s.hot
			s.hot = nil
			defer func() { s.hot = saved }()
			s.ServeHTTP(w, r)
		}), "GET", target, nil, "X-Request-Id", "same")
		if hot.status != viaChi.status || string(hot.body) != string(viaChi.body) {
			t.Errorf("%s: hot path %d %s\nchi %d %s", target, hot.status, hot.body, viaChi.status, viaChi.body)
		}
		for _, k := range []string{"Content-Type", "Etag", "Governance-Revision", "Cache-Control"} {
			if hot.header.Get(k) != viaChi.header.Get(k) {
				t.Errorf("%s: %s %q on the hot path, %q through chi", target, k, hot.header.Get(k), viaChi.header.Get(k))
			}
		}
	}
}

func FuzzHotRoutes(f *testing.F) {
	for _, s := range []string{"/datasets/x/rule", "/datasets/a%2Fb/facet", "/datasets//rule", "/datasets/x/rule/", "/datasets/x%2/rule", "/datasets/%2e%2e/rule", "/datasets/x/exposure?a=b"} {
		f.Add(s)
	}
	s := hotRouter(f)
	f.Fuzz(func(t *testing.T, target string) {
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		checkHotAgreesWithChi(t, s, target)
	})
}

// The hot path skips chi's middleware stack: GetHead, which only lets HEAD
// through to GET routes, and the hot path takes no HEAD; and compress,
// which the dataset reads go without on purpose (their bodies are small,
// and their throughput is the service's). A middleware added to the stack
// would be skipped for the hot routes: this fails until ServeHTTP's hot
// path does what it does too, or says why it need not.
func TestHotRoutesSkipNoMiddleware(t *testing.T) {
	s := hotRouter(t)
	if n := len(s.mux.Middlewares()); n != 2 {
		t.Fatalf("chi has %d middlewares; the hot path in ServeHTTP knows of two (GetHead, compress), update it for the others", n)
	}
}

// TestNoHandlerReadsPathValue holds the hot path's one rule for handlers:
// it fills chi's route context, not the request's path values, so a handler
// reads its parameters with pathParam.
func TestNoHandlerReadsPathValue(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "PathValue" {
				t.Errorf("%s: reads PathValue, which the hot routes do not set; use pathParam", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}

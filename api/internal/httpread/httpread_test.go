package httpread

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestETagMatches(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{`"a"`, true},
		{`W/"a"`, true},
		{`"b", W/"a"`, true},
		{`*`, true},
		{`"b"`, false},
	} {
		if got := ETagMatches(c.header, `"a"`); got != c.want {
			t.Errorf("ETagMatches(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

func TestPathParam(t *testing.T) {
	for _, c := range []struct {
		path, want string
	}{
		{"/d/plain", "plain"},
		{"/d/a%2Fb", "a/b"},
		{"/d/x.%2A", "x.*"},
	} {
		var got string
		r := chi.NewRouter()
		r.Get("/d/{id}", func(_ http.ResponseWriter, r *http.Request) { got = PathParam(r, "id") })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, c.path, nil))
		if got != c.want {
			t.Errorf("%s: PathParam = %q, want %q", c.path, got, c.want)
		}
	}
}

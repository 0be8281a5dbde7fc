package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
)

const testTree = "testdata/tree"

// testServer serves testdata/tree with its owners registry.
func testServer(t testing.TB) (http.Handler, *snapshot.Store) {
	t.Helper()
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{testTree},
		Owners: []string{testTree + "/owners.yaml"},
	}})
	h, _ := newServer(Deps{Store: store})
	return h, store
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request to h in process. A stream (GET /events) is read for
// a second and then ended; any other request is answered in its own time,
// which two minutes bound only as a guard against a hang: on a loaded
// machine under the race detector a validation may take seconds, and a
// deadline would answer it 503 instead.
func do(t testing.TB, h http.Handler, method, target string, body io.Reader, header ...string) response {
	t.Helper()
	return doWithin(t, h, streamOrGuard(target), method, target, body, header...)
}

// streamOrGuard is how long do lets a request to target run: a second for
// the event stream, which never ends by itself; else a guard.
func streamOrGuard(target string) time.Duration {
	if strings.HasPrefix(target, "/events") {
		return time.Second
	}
	return 2 * time.Minute
}

// doWithin is do with the request's context ending after d.
func doWithin(t testing.TB, h http.Handler, d time.Duration, method, target string, body io.Reader, header ...string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), bytes.Clone(rec.Body.Bytes())}
}

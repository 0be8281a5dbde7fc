// Command barehttp is the load test's yardstick: a bare net/http server that
// answers every request with one fixed JSON body of a given size. governanced's
// rule endpoint is measured against it on the same machine in the same run.
// With -header (repeatable) it also sends the given response headers, so the
// load test can tell what governanced's own response headers cost from what
// its handler costs; with -timeouts the server has governanced serve's
// default timeouts, whose deadlines net/http sets on every request.
//
//	barehttp -addr 127.0.0.1:18081 -size 900
//	barehttp -addr 127.0.0.1:18082 -size 900 -timeouts -header 'Etag: "x"' -header 'Cache-Control: no-cache'
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address (loopback)")
	size := flag.Int("size", 900, "body size in bytes")
	var extra headerFlag
	flag.Var(&extra, "header", "a response header `Name: value` to send as well (repeatable)")
	timeouts := flag.Bool("timeouts", false, "serve with governanced serve's default timeouts (read and write deadlines on every request)")
	flag.Parse()
	body := fixedBody(*size)
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			for _, kv := range extra {
				h.Set(kv[0], kv[1])
			}
			h.Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write(body)
		}),
	}
	if *timeouts {
		// governanced serve: --read-header-timeout, --request-timeout as the
		// read timeout and, plus five seconds, the write timeout; idle 2 min.
		srv.ReadHeaderTimeout = 10 * time.Second
		srv.ReadTimeout = 30 * time.Second
		srv.WriteTimeout = 35 * time.Second
		srv.IdleTimeout = 2 * time.Minute
	}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "barehttp:", err)
		os.Exit(1)
	}
}

// headerFlag collects -header values as name and value.
type headerFlag [][2]string

func (f *headerFlag) String() string { return fmt.Sprint(*f) }

func (f *headerFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("%q is not a header; want Name: value", v)
	}
	*f = append(*f, [2]string{name, strings.TrimSpace(value)})
	return nil
}

// fixedBody is a JSON object padded to exactly size bytes.
func fixedBody(size int) []byte {
	const head, tail = `{"padding":"`, `"}`
	n := size - len(head) - len(tail)
	if n < 0 {
		n = 0
	}
	return []byte(head + strings.Repeat("x", n) + tail)
}

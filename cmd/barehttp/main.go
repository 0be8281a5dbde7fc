// Command barehttp is the load test's yardstick: a bare net/http server that
// answers every request with one fixed JSON body of a given size. governanced's
// rule endpoint is measured against it on the same machine in the same run.
//
//	barehttp -addr 127.0.0.1:18081 -size 900
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
	flag.Parse()
	body := fixedBody(*size)
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write(body)
		}),
	}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "barehttp:", err)
		os.Exit(1)
	}
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

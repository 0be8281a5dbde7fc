package client

import (
	"strings"
	"testing"
	"time"
)

// FuzzReadEvents: any stream a server (or something in its place) sends
// is read to its end without a panic, and the retry it sets is never
// negative.
func FuzzReadEvents(f *testing.F) {
	f.Add("retry: 3000\n\nid: 1\nevent: reload\ndata: {\"ok\": true, \"revision\": \"sha256:1\"}\n\n: keep-alive\n\n")
	f.Add("event: reload\ndata: {\ndata: }\r\n\r\n")
	f.Add("retry: -5\nretry: 99999999999999999999\n\n")
	f.Add(":\n\n\n\ndata\nevent\n")
	f.Fuzz(func(t *testing.T, stream string) {
		retry := time.Second
		events := 0
		err := readEvents(strings.NewReader(stream), func() {}, &retry, func(event, data string) { events++ })
		if err == nil {
			t.Fatal("a stream that ended returned no error")
		}
		if retry < 0 {
			t.Fatalf("retry %v", retry)
		}
		if events > strings.Count(stream, "\n") {
			t.Fatalf("%d events from %d lines", events, strings.Count(stream, "\n"))
		}
	})
}

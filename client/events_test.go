package client

import (
	"encoding/json"
	"testing"
)

// TestServedIsWhatTheServerServes: the revision served after a reload is
// the one the server says it serves (a held reload serves a new revision
// though it is not ok); from a server that does not say, the examined one
// when ok, else the previous.
func TestServedIsWhatTheServerServes(t *testing.T) {
	for _, tc := range []struct{ name, event, want string }{
		{"activated", `{"outcome":"activated","ok":true,"revision":"sha256:b","previous":"sha256:a","served":"sha256:b"}`, "sha256:b"},
		{"rejected", `{"outcome":"rejected","ok":false,"revision":"sha256:c","previous":"sha256:b","served":"sha256:b"}`, "sha256:b"},
		{"held, a new revision", `{"outcome":"held","ok":false,"revision":"sha256:d","previous":"sha256:b","served":"sha256:d","held":[{"app":"dwd","since":"2025-01-01T00:00:00Z"}]}`, "sha256:d"},
		{"nothing served yet", `{"outcome":"rejected","ok":false,"revision":"sha256:c","previous":null,"served":null}`, ""},
		{"an older server, ok", `{"outcome":"activated","ok":true,"revision":"sha256:b","previous":"sha256:a"}`, "sha256:b"},
		{"an older server, rejected", `{"outcome":"rejected","ok":false,"revision":"sha256:c","previous":"sha256:b"}`, "sha256:b"},
	} {
		var ev ReloadEvent
		if err := json.Unmarshal([]byte(tc.event), &ev); err != nil {
			t.Fatal(err)
		}
		if got := ev.Served(); got != tc.want {
			t.Errorf("%s: served %q, want %q", tc.name, got, tc.want)
		}
	}
}

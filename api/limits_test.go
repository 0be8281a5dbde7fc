package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestHugeIntegers: an integer of millions of digits is refused by counting
// its digits, before any conversion (whose cost is quadratic in them: 4
// million digits held a worker for most of a minute). On the stateless
// operations it is a 422 naming the line and the limit; in an uploaded tree
// a load-error finding on the file and line.
func TestHugeIntegers(t *testing.T) {
	h, _ := testServer(t)
	digits := strings.Repeat("7", 4_000_000)
	for _, tt := range []struct{ name, route, body string }{
		{"merge, a JSON number", "/merge", `{"base": {"retention_days": ` + digits + `}, "override": {}}`},
		{"merge, YAML text", "/merge", `{"base": "retention_days: ` + digits + `\n", "override": {}}`},
		{"merge, a list", "/merge", `{"base": {}, "override": {"tags": [1, ` + digits + `]}}`},
		{"resolve", "/resolve", `{"document": "defaults:\n  retention_days: ` + digits + `\nsources: {}\n", "dataset": "x"}`},
		{"policy", "/policy/evaluate", `{"policy": "version: 1\nrules: []\nx: ` + digits + `\n", "changeset": {"changeset_version": 1, "changes": []}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r response
			within(t, "POST "+tt.route, func() {
				r = do(t, h, "POST", tt.route, strings.NewReader(tt.body), "Content-Type", "application/json")
			})
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422:\n%.500s", r.status, r.body)
			}
			p := problemOf(t, r)
			if detail, _ := p["detail"].(string); !strings.Contains(detail, "an integer of 4000000 digits, more than the limit of 4300 digits") || p["line"] == nil {
				t.Errorf("the problem does not name the line and the limit:\n%.500s", r.body)
			}
		})
	}
	t.Run("upload", func(t *testing.T) {
		// Ten million digits gzip to about ten kilobytes.
		doc := "defaults:\n  retention_days: " + strings.Repeat("7", 10_000_000) + "\nsources:\n  ds.x: {expose: true}\n"
		body := gzipOf(uploadOf(t, map[string]string{"apps/a/governance.yaml": doc}))
		var r response
		within(t, "POST /validate", func() {
			r = do(t, h, "POST", "/validate", bytes.NewReader(body), "Content-Type", "application/gzip")
		})
		if r.status != http.StatusOK {
			t.Fatalf("status %d:\n%.500s", r.status, r.body)
		}
		var rep struct {
			OK       bool      `json:"ok"`
			Findings []finding `json:"findings"`
		}
		if err := json.Unmarshal(r.body, &rep); err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if !rep.OK && f.Severity == "error" && f.Code == "load-error" && f.File == "apps/a/governance.yaml" && f.Line == 2 &&
				strings.Contains(f.Message, "an integer of 10000000 digits, more than the limit of 4300 digits") {
				return
			}
		}
		t.Errorf("no load-error naming the file, line and limit:\n%.2000s", r.body)
	})
}

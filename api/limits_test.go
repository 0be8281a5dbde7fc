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

// TestStatelessDuplicateKeys: a key written twice is refused by POST
// /resolve and /merge as `validate` refuses it (duplicate-key, an error),
// with the member, line and column of the later key, instead of the later
// value kept silently.
func TestStatelessDuplicateKeys(t *testing.T) {
	h, _ := testServer(t)
	const dupDoc = "defaults: {}\nsources:\n  ds.x: {expose: true}\n  ds.x: {expose: false}\n"
	tests := []struct {
		name, route, body, file string
		line, column            int
	}{
		{"resolve document", "/resolve", `{"document": ` + jsonString(dupDoc) + `, "dataset": "ds.x"}`, "document", 4, 3},
		{"resolve overlay", "/resolve", `{"document": "defaults: {}\nsources: {}\n", "overlay": ` + jsonString("defaults:\n  title: a\n  title: b\n") + `, "dataset": "ds.x"}`, "overlay", 3, 3},
		{"resolve JSON document", "/resolve", `{"document": {"sources": {"ds.x": {"expose": true, "expose": false}}}, "dataset": "ds.x"}`, "document", 1, 39},
		{"merge base", "/merge", `{"base": "expose: true\nexpose: false\n", "override": {}}`, "base", 2, 1},
		{"merge override", "/merge", `{"base": {}, "override": "tags: [a]\naccess_level: open\ntags: [b]\n"}`, "override", 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, "POST", tt.route, strings.NewReader(tt.body), "Content-Type", "application/json")
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
			}
			p := problemOf(t, r)
			if p["code"] != "duplicate-key" || p["file"] != tt.file || p["line"] != float64(tt.line) || p["column"] != float64(tt.column) ||
				!strings.Contains(p["detail"].(string), "duplicate key") {
				t.Errorf("problem %v, want duplicate-key in %s at %d:%d", p, tt.file, tt.line, tt.column)
			}
			holdsToOpenAPI(t, tt.route, "post", r)
		})
	}
	// Overriding a merged key is what merge keys are for: no duplicate.
	r := do(t, h, "POST", "/resolve", strings.NewReader(`{"document": `+jsonString("defaults: &d {access_level: open}\nsources:\n  ds.x: {<<: *d, access_level: internal}\n")+`, "dataset": "ds.x"}`), "Content-Type", "application/json")
	if r.status != http.StatusOK {
		t.Errorf("a merge key overridden: status %d:\n%s", r.status, r.body)
	}
}

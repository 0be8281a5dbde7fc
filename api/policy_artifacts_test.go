package api

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

type multipartBody struct {
	body        []byte
	contentType string
}

// artifactBody encodes parts as multipart/form-data, in a fixed order.
func artifactBody(t testing.TB, parts map[string][]byte) multipartBody {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, name := range []string{"policy", "manifest", "base_manifest", "catalog", "base_catalog", "precision", "extra"} {
		data, ok := parts[name]
		if !ok {
			continue
		}
		fw, err := mw.CreateFormFile(name, name+".json")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return multipartBody{body: buf.Bytes(), contentType: mw.FormDataContentType()}
}

// realPairParts are the real dbt base/head pair's artifacts with a policy.
func realPairParts(t testing.TB, policyText string) map[string][]byte {
	t.Helper()
	pair := testcorpus.Path(t, "reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b")
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join(pair, rel))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return map[string][]byte{
		"policy":        []byte(policyText),
		"manifest":      read("head/manifest.json"),
		"catalog":       read("head/catalog.json"),
		"base_manifest": read("base/manifest.json"),
		"base_catalog":  read("base/catalog.json"),
	}
}

// TestPolicyEvaluateArtifacts posts the real pair's artifacts and example
// policy: the verdict is the one `policy check` gives on the same files at
// each precision.
func TestPolicyEvaluateArtifacts(t *testing.T) {
	h, _ := testServer(t)
	pair := testcorpus.Path(t, "reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b")
	policyText, err := os.ReadFile(filepath.Join(pair, "example-policy.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var level1 struct {
		PolicyVerdict map[string]any `json:"policy_verdict"`
	}
	raw, _ := os.ReadFile(filepath.Join(pair, "expected-verdict.json"))
	if err := json.Unmarshal(raw, &level1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		precision string
		hits      int
	}{
		{"", 16}, // level 2: 13 blocking hits, 2 rebuilds, 1 aggregate warning
		{"column", 16},
		{"model", len(level1.PolicyVerdict["hits"].([]any))},
	} {
		parts := realPairParts(t, string(policyText))
		if tc.precision != "" {
			parts["precision"] = []byte(tc.precision)
		}
		b := artifactBody(t, parts)
		r := do(t, h, "POST", "/policy/evaluate", bytes.NewReader(b.body), "Content-Type", b.contentType)
		if r.status != http.StatusOK {
			t.Fatalf("precision %q: %d %s", tc.precision, r.status, r.body)
		}
		var got struct {
			PolicyVerdict map[string]any `json:"policy_verdict"`
			Precision     string         `json:"precision"`
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		want := tc.precision
		if want == "" {
			want = "column"
		}
		if got.Precision != want || got.PolicyVerdict["decision"] != "block" || len(got.PolicyVerdict["hits"].([]any)) != tc.hits {
			t.Errorf("precision %q: precision %q, decision %v, %d hits (want %d)", tc.precision, got.Precision,
				got.PolicyVerdict["decision"], len(got.PolicyVerdict["hits"].([]any)), tc.hits)
		}
		if tc.precision == "model" {
			gotJSON, _ := json.Marshal(got.PolicyVerdict)
			wantJSON, _ := json.Marshal(level1.PolicyVerdict)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("model precision: verdict differs from the reference folder's:\n%s\n%s", gotJSON, wantJSON)
			}
		}
	}
}

func TestPolicyEvaluateArtifactsRefusals(t *testing.T) {
	h, _ := testServer(t)
	good := func() map[string][]byte { return realPairParts(t, "version: 1\nrules: []\n") }
	tests := []struct {
		name   string
		edit   func(map[string][]byte)
		status int
		detail string
	}{
		{"no policy", func(p map[string][]byte) { delete(p, "policy") }, 400, `the part "policy" is required`},
		{"no base manifest", func(p map[string][]byte) { delete(p, "base_manifest") }, 400, `the part "base_manifest" is required`},
		{"unknown part", func(p map[string][]byte) { p["extra"] = []byte("x") }, 400, `unknown part "extra"`},
		{"bad precision", func(p map[string][]byte) { p["precision"] = []byte("row") }, 400, `precision "row" is not column or model`},
		{"broken manifest", func(p map[string][]byte) { p["manifest"] = []byte(`{"metadata": `) }, 422, "manifest"},
		{"broken policy", func(p map[string][]byte) { p["policy"] = []byte("version: 99\nrules: []\n") }, 422, "version"},
	}
	for _, tc := range tests {
		parts := good()
		tc.edit(parts)
		b := artifactBody(t, parts)
		r := do(t, h, "POST", "/policy/evaluate", bytes.NewReader(b.body), "Content-Type", b.contentType)
		var p struct {
			Detail string `json:"detail"`
		}
		json.Unmarshal(r.body, &p)
		if r.status != tc.status || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, r.status, r.body, tc.status, tc.detail)
		}
	}
	// A repeated part, and a body over the limit.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i < 2; i++ {
		fw, _ := mw.CreateFormFile("policy", "p.yml")
		fw.Write([]byte("version: 1\nrules: []\n"))
	}
	mw.Close()
	r := do(t, h, "POST", "/policy/evaluate", bytes.NewReader(buf.Bytes()), "Content-Type", mw.FormDataContentType())
	if r.status != 400 || !strings.Contains(string(r.body), "appears twice") {
		t.Errorf("repeated part: %d %s", r.status, r.body)
	}
	_, store := testServer(t)
	small, _ := newServer(Deps{Store: store, Limits: Limits{MaxBodyBytes: 1024}})
	b := artifactBody(t, good())
	r = do(t, small, "POST", "/policy/evaluate", bytes.NewReader(b.body), "Content-Type", b.contentType)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("over the body limit: %d %s", r.status, r.body)
	}
}

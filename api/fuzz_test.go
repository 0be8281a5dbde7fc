package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// FuzzStateless sends arbitrary text as the document of POST /resolve, a
// block of POST /merge and the policy of POST /policy/evaluate: the answer is
// always 200 or a client-error problem, never a 5xx, and always JSON.
func FuzzStateless(f *testing.F) {
	paths := testcorpus.ReferenceApps(f)
	paths = append(paths, testcorpus.Path(f, "reference/dbt/dbt-bouncer/pair-a2094336-f5b6f07b/example-policy.yml"))
	for _, data := range testcorpus.ReadFiles(f, paths) {
		f.Add(string(data))
	}
	for _, s := range []string{"defaults: {}\nsources: {ds.x: {expose: true}}\n", "version: 1\nrules: []\n", "{tags: [a], expose: null}", "sources: [", ""} {
		f.Add(s)
	}
	h, _ := testServer(f)
	f.Fuzz(func(t *testing.T, doc string) {
		text, _ := json.Marshal(doc)
		for _, rq := range []struct{ route, body string }{
			{"/resolve", `{"document": ` + string(text) + `, "dataset": "ds.x"}`},
			{"/resolve", `{"document": "defaults: {}\nsources: {}\n", "overlay": ` + string(text) + `, "dataset": "datasets.gold.meters"}`},
			{"/merge", `{"base": ` + string(text) + `, "override": {"tags": ["b"]}}`},
			{"/policy/evaluate", `{"policy": ` + string(text) + `, "changeset": {"changeset_version": 1, "changes": []}}`},
		} {
			r := do(t, h, "POST", rq.route, strings.NewReader(rq.body), "Content-Type", "application/json")
			switch r.status {
			case http.StatusOK, http.StatusBadRequest, http.StatusUnprocessableEntity:
			default:
				t.Fatalf("%s: %d\n%s", rq.route, r.status, r.body)
			}
			if !json.Valid(r.body) {
				t.Fatalf("%s: %d body is not JSON:\n%s", rq.route, r.status, r.body)
			}
		}
	})
}

package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// matchesSchema holds body to the schema at pointer in openapi.yaml.
func matchesSchema(t *testing.T, pointer string, body []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := newSchemaSet(t).compile(t, pointer).Validate(inst); err != nil {
		t.Errorf("does not match openapi.yaml (%s):\n%v\n%s", pointer, err, body)
	}
}

// openEvents opens GET base/events with the header's name and value
// pairs; the caller closes the body. The deadline only guards against a
// hang.
func openEvents(t *testing.T, base string, header ...string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events", nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// firstEvent is the first reload event GET /events sends.
func firstEvent(t *testing.T, h http.Handler) []byte {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp := openEvents(t, srv.URL)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			return []byte(data)
		}
	}
	t.Fatalf("the stream ended before an event: %v", lines.Err())
	return nil
}

// TestHeldAppsAnswer: with an app held, every answer says so — /status
// lists it with its problems and what it serves, /readyz stays ready, the
// gauge counts it, the reload event names it and the revision served — and
// its datasets answer with their last good rules.
func TestHeldAppsAnswer(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/a/governance.yaml": "defaults: {row_filters: [], access_level: internal}\nsources:\n  ds.a: {expose: true}\n",
		"apps/b/governance.yaml": "defaults: {row_filters: [], access_level: internal}\nsources:\n  ds.b: {expose: true}\n",
	})
	store := snapshot.NewStoreWith(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}}, snapshot.StoreOptions{IsolateApps: true})
	store.Reload(context.Background(), true)
	testfs.Write(t, dir, map[string]string{
		"apps/a/governance.yaml": "sources: [\n",
		"apps/b/governance.yaml": "defaults: {row_filters: [], access_level: restricted}\nsources:\n  ds.b: {expose: true}\n",
	})
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Held {
		t.Fatalf("%v (%v)", st.Outcome, st.Err)
	}
	h, _ := newServer(Deps{Store: store})

	r := do(t, h, "GET", "/status", nil)
	matchesSchema(t, "/components/schemas/Status", r.body)
	var status struct {
		Revision string
		Held     []struct {
			App, File string
			Since     time.Time
			Problems  []string
			Served    []snapshot.InputFile
		}
		LastReload struct{ Outcome string } `json:"last_reload"`
	}
	if err := json.Unmarshal(r.body, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.Held) != 1 || status.Held[0].App != "a" || status.Held[0].File != "apps/a/governance.yaml" || status.Held[0].Since.IsZero() ||
		len(status.Held[0].Problems) != 1 || !strings.Contains(status.Held[0].Problems[0], "apps/a/governance.yaml:1:") ||
		len(status.Held[0].Served) != 1 || status.LastReload.Outcome != "held" {
		t.Errorf("/status: %s", r.body)
	}
	if r := do(t, h, "GET", "/readyz", nil); r.status != 200 {
		t.Errorf("/readyz %d with an app held", r.status)
	}
	if r := do(t, h, "GET", "/datasets/ds.a/rule", nil); r.status != 200 || !strings.Contains(string(r.body), `"access_level":"internal"`) {
		t.Errorf("the held app's dataset: %d %s", r.status, r.body)
	}
	if r := do(t, h, "GET", "/datasets/ds.b/rule", nil); !strings.Contains(string(r.body), `"access_level":"restricted"`) {
		t.Errorf("the other app's edit is not served: %s", r.body)
	}
	if r := do(t, h, "GET", "/metrics", nil); !strings.Contains(string(r.body), "\ngovernanced_apps_held 1\n") ||
		!strings.Contains(string(r.body), "\ngovernanced_serving_persisted 0\n") {
		t.Errorf("/metrics does not count the held app:\n%s", r.body)
	}
	ev := firstEvent(t, h)
	matchesSchema(t, "/components/schemas/ReloadEvent", ev)
	if !strings.Contains(string(ev), `"served":"`+status.Revision+`"`) || !strings.Contains(string(ev), `"held":[{"app":"a"`) {
		t.Errorf("the reload event does not say what is served and held: %s", ev)
	}
}

// TestPersistedAnswers: a store serving a state directory's revision says
// so in /status, the gauge and the event, with why the tree is not served.
func TestPersistedAnswers(t *testing.T) {
	store, good := snapshottest.Restored(t, time.Now())
	h, _ := newServer(Deps{Store: store})
	r := do(t, h, "GET", "/status", nil)
	matchesSchema(t, "/components/schemas/Status", r.body)
	if !strings.Contains(string(r.body), `"persisted":{"revision":"`+good.Revision+`"`) || !strings.Contains(string(r.body), `"outcome":"rejected"`) ||
		!strings.Contains(string(r.body), "apps/a/governance.yaml:1:") {
		t.Errorf("/status does not say it serves the persisted revision, and why: %s", r.body)
	}
	if r := do(t, h, "GET", "/readyz", nil); r.status != 200 {
		t.Errorf("/readyz %d serving a persisted revision", r.status)
	}
	if r := do(t, h, "GET", "/metrics", nil); !strings.Contains(string(r.body), "\ngovernanced_serving_persisted 1\n") {
		t.Error("/metrics does not say a persisted revision is served")
	}
	ev := firstEvent(t, h)
	matchesSchema(t, "/components/schemas/ReloadEvent", ev)
	if !strings.Contains(string(ev), `"persisted":{"revision":"`+good.Revision+`"`) {
		t.Errorf("the event does not say a persisted revision is served: %s", ev)
	}
}

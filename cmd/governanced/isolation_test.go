package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/state"
)

// reloadEvent is what these tests read of a GET /events event.
type reloadEvent struct {
	Outcome string  `json:"outcome"`
	Served  *string `json:"served"`
	Held    []struct {
		App string `json:"app"`
	} `json:"held"`
}

// awaitReload reads s's reload events (the last reload first, then each as
// it ends) until one satisfies cond; the stream's deadline only guards
// against a hang.
func awaitReload(t *testing.T, s *server, what string, cond func(ev reloadEvent) bool) reloadEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var ev reloadEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if cond(ev) {
			return ev
		}
	}
	t.Fatalf("gave up waiting for %s: %v\n%s", what, lines.Err(), s.stderr)
	return reloadEvent{}
}

// heldStatus is what these tests read of /status.
type heldStatus struct {
	Revision string `json:"revision"`
	Held     []struct {
		App      string   `json:"app"`
		Problems []string `json:"problems"`
	} `json:"held"`
	Persisted *struct {
		Revision string `json:"revision"`
	} `json:"persisted"`
	LastReload struct {
		Outcome  string   `json:"outcome"`
		Problems []string `json:"problems"`
	} `json:"last_reload"`
}

// TestIsolateAndPersistOnTheRealTree: on a copy of the real tree, served
// with --isolate-apps --state-dir, dwd's file broken and an access level of
// weather's edited at once: weather's edit is served, dwd's datasets answer
// with their last good rules, /status names dwd as held, /readyz stays
// ready. A new server on the still-broken tree, with the state directory
// and without --isolate-apps, serves the revision kept there, with the
// same ETags, and says so and why.
func TestIsolateAndPersistOnTheRealTree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	tree := realTree(t)
	stateDir := filepath.Join(t.TempDir(), "state")
	args := []string{"--tree", tree, "--owners", filepath.Join(tree, "owners.yaml"), "--state-dir", stateDir, "--reload-debounce", "20ms"}
	kept := func(s *server, rev string) {
		t.Helper()
		eventually(t, "revision "+rev+" to be kept", func() bool {
			for line := range strings.Lines(s.stderr.String()) {
				if strings.Contains(line, "revision kept in the state directory") && strings.Contains(line, rev) {
					return true
				}
			}
			return false
		})
	}
	const (
		dwdDataset     = "/datasets/datasets.ds_dev_gold.dwd_icon_d2_gusts/rule"
		weatherDataset = "/datasets/datasets.ds_dev_gold.weather_forecast_hourly/rule"
	)

	first := startServe(t, nil, append(args, "--isolate-apps")...)
	good := first.status(t).Revision
	kept(first, good)
	dwdGood, dwdGoodBody := first.fetch(t, dwdDataset)
	if dwdGood.StatusCode != 200 {
		t.Fatalf("dwd's dataset before: %d", dwdGood.StatusCode)
	}
	// A rule body names its revision first; the rest is the rule.
	rule := func(body []byte) string { _, r, _ := strings.Cut(string(body), `"dataset":`); return r }

	weather := filepath.Join(tree, "apps/weather/governance.yaml")
	b, err := os.ReadFile(weather)
	if err != nil {
		t.Fatal(err)
	}
	const before, after = "datasets.ds_dev_gold.weather_forecast_hourly:", "access_level: restricted"
	i := strings.Index(string(b), before)
	j := i + strings.Index(string(b[i:]), "access_level: open")
	if i < 0 || j < i {
		t.Fatal("the real tree's weather app changed: find another access level to edit")
	}
	edited := string(b[:j]) + after + string(b[j+len("access_level: open"):])
	// At once: one write each, between two reloads or in one.
	if err := os.WriteFile(filepath.Join(tree, "apps/dwd/governance.yaml"), []byte("sources:\n  datasets.x: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(weather, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := awaitReload(t, first, "weather's edit served with dwd held", func(ev reloadEvent) bool {
		return ev.Served != nil && *ev.Served != good && slices.ContainsFunc(ev.Held, func(h struct {
			App string `json:"app"`
		}) bool {
			return h.App == "dwd"
		})
	})
	if ev.Outcome != "held" {
		t.Errorf("the reload serving weather's edit: %s, want held", ev.Outcome)
	}
	var st heldStatus
	first.getJSON(t, "/status", &st)
	if len(st.Held) != 1 || st.Held[0].App != "dwd" || len(st.Held[0].Problems) == 0 ||
		!strings.HasPrefix(st.Held[0].Problems[0], "apps/dwd/governance.yaml:") || st.Revision != *ev.Served {
		t.Errorf("/status: %+v", st)
	}
	if code, _ := first.get(t, "/readyz"); code != 200 {
		t.Errorf("/readyz %d with dwd held", code)
	}
	if _, body := first.fetch(t, weatherDataset); !strings.Contains(string(body), `"access_level":"restricted"`) {
		t.Errorf("weather's edit is not served: %s", body)
	}
	dwdHeld, dwdBody := first.fetch(t, dwdDataset)
	if dwdHeld.StatusCode != 200 || rule(dwdBody) != rule(dwdGoodBody) || rule(dwdBody) == "" {
		t.Errorf("dwd's dataset while held: %d %s; want its last good rule %s", dwdHeld.StatusCode, dwdBody, dwdGoodBody)
	}
	held := st.Revision
	kept(first, held)
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}

	// A new pod on the still-broken tree.
	second := startServe(t, nil, args...)
	var restored heldStatus
	second.getJSON(t, "/status", &restored)
	if restored.Revision != held || restored.Persisted == nil || restored.Persisted.Revision != held {
		t.Errorf("the new server serves %s (persisted %+v), want the revision kept, %s", restored.Revision, restored.Persisted, held)
	}
	if restored.LastReload.Outcome != "rejected" || len(restored.LastReload.Problems) == 0 ||
		!strings.HasPrefix(restored.LastReload.Problems[0], "apps/dwd/governance.yaml:") {
		t.Errorf("/status does not say why the tree was rejected: %+v", restored.LastReload)
	}
	if code, _ := second.get(t, "/readyz"); code != 200 {
		t.Errorf("/readyz %d serving the persisted revision", code)
	}
	again, againBody := second.fetch(t, dwdDataset)
	if again.StatusCode != 200 || again.Header.Get("ETag") != dwdHeld.Header.Get("ETag") || string(againBody) != string(dwdBody) {
		t.Errorf("dwd's dataset from the persisted revision: %d %s %s; want %s %s", again.StatusCode, again.Header.Get("ETag"), againBody,
			dwdHeld.Header.Get("ETag"), dwdBody)
	}
	if !strings.Contains(second.stderr.String(), "serving the revision the state directory keeps") {
		t.Errorf("the log does not say a kept revision is served:\n%s", second.stderr)
	}
}

// TestStartsFromTheStateDirectory: a server starting on a tree it cannot
// serve serves the newest intact revision the state directory keeps for
// its configuration, and exits 1 as without one when there is none.
func TestStartsFromTheStateDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	const (
		v1     = "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"
		v2     = "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: false}\n"
		broken = "sources: [\n"
	)
	for _, tc := range []struct {
		name string
		// prepare lays out the state directory (kept: the revisions a
		// server kept, oldest first) and the tree the new server starts on.
		prepare func(t *testing.T, dir, tree string, kept []string)
		serves  int // the index of the revision served; -1: exits 1
		warns   string
	}{
		{"nothing kept", func(t *testing.T, dir, tree string, _ []string) {
			os.RemoveAll(dir)
			writeGov(t, tree, broken)
		}, -1, ""},
		{"the newest kept", func(t *testing.T, dir, tree string, _ []string) { writeGov(t, tree, broken) }, 1, ""},
		{"the tree not there yet", func(t *testing.T, dir, tree string, _ []string) { os.RemoveAll(tree) }, 1, ""},
		{"the newest altered", func(t *testing.T, dir, tree string, kept []string) {
			writeGov(t, tree, broken)
			objects, _ := filepath.Glob(filepath.Join(dir, "objects", "*", "*"))
			for _, o := range objects {
				if b, _ := os.ReadFile(o); string(b) == v2 {
					os.WriteFile(o, []byte(v1+"# altered\n"), 0o644)
				}
			}
		}, 0, "a revision the state directory keeps is passed over"},
		{"another configuration's", func(t *testing.T, dir, tree string, _ []string) {
			writeGov(t, tree, broken)
			manifests, _ := filepath.Glob(filepath.Join(dir, "revisions", "*.json"))
			for _, m := range manifests {
				os.Rename(m, filepath.Join(filepath.Dir(m), "0000000000000000"+filepath.Base(m)[16:]))
			}
		}, -1, ""},
		{"a directory of someone else's", func(t *testing.T, dir, tree string, _ []string) {
			writeGov(t, tree, broken)
			os.RemoveAll(dir)
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
		}, -1, "the state directory is ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tree, dir := filepath.Join(root, "tree"), filepath.Join(root, "state")
			args := []string{"--tree", tree, "--state-dir", dir, "--rescan-interval", "0"}
			var kept []string
			for _, v := range []string{v1, v2} {
				writeGov(t, tree, v)
				s := startServe(t, nil, args...)
				rev := s.status(t).Revision
				kept = append(kept, rev)
				if err := s.stop(); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(s.stderr.String(), "revision kept in the state directory") {
					t.Fatalf("%s was not kept:\n%s", rev, s.stderr)
				}
			}
			tc.prepare(t, dir, tree, kept)
			if tc.serves < 0 {
				var stderr strings.Builder
				err := runE(context.Background(), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), mapEnv(nil), io.Discard, &stderr)
				var ee *cli.ExitError
				if !errors.As(err, &ee) || ee.Code != 1 {
					t.Fatalf("err = %v, want exit 1\n%s", err, stderr.String())
				}
				if !strings.Contains(stderr.String(), tc.warns) {
					t.Errorf("the log does not say %q:\n%s", tc.warns, stderr.String())
				}
				if notes, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err == nil && string(notes) != "mine" {
					t.Error("the foreign directory was written to")
				}
				return
			}
			s := startServe(t, nil, args...)
			var st heldStatus
			s.getJSON(t, "/status", &st)
			if st.Revision != kept[tc.serves] || st.Persisted == nil || st.Persisted.Revision != kept[tc.serves] {
				t.Errorf("serves %s (persisted %+v), want %s", st.Revision, st.Persisted, kept[tc.serves])
			}
			if !strings.Contains(s.stderr.String(), tc.warns) {
				t.Errorf("the log does not say %q:\n%s", tc.warns, s.stderr)
			}
		})
	}
}

func writeGov(t *testing.T, tree, content string) {
	t.Helper()
	p := filepath.Join(tree, "apps", "a", "governance.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// keptRevisions are the revisions a server's log says it kept in its
// state directory, in order.
func keptRevisions(log string) []string {
	var revs []string
	for text := range strings.Lines(log) {
		var line struct {
			Message  string `json:"message"`
			Revision string `json:"revision"`
		}
		if json.Unmarshal([]byte(text), &line) == nil && line.Message == "revision kept in the state directory" {
			revs = append(revs, line.Revision)
		}
	}
	return revs
}

// TestStateDirectorySharedWithConcurrentServers: two replicas of one
// deployment (one tree, one state directory) and a server of another
// deployment keep their revisions in one directory at once, each edit
// saved by both replicas and the oldest pruned by both; a server then
// started on either tree broken serves its own deployment's newest
// revision, and passes nothing over.
func TestStateDirectorySharedWithConcurrentServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts five servers")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	ours, theirs := filepath.Join(root, "ours"), filepath.Join(root, "theirs")
	version := func(tree string, i int) {
		writeGov(t, tree, fmt.Sprintf("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true, title: %s-%d}\n", filepath.Base(tree), i))
	}
	argsOf := func(tree string) []string {
		return []string{"--tree", tree, "--state-dir", dir, "--reload-debounce", "20ms", "--rescan-interval", "0"}
	}
	version(ours, 0)
	version(theirs, 0)

	// Nothing else serves meanwhile: these servers are found by their
	// logs, not by the address onListen would report.
	serving.Lock()
	locked := true
	type running struct {
		stderr *syncBuffer
		stop   func() error
	}
	var servers []running
	for _, tree := range []string{ours, ours, theirs} {
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			done <- runE(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, argsOf(tree)...), mapEnv(nil), io.Discard, stderr)
		}()
		servers = append(servers, running{stderr, sync.OnceValue(func() error { cancel(); return <-done })})
	}
	t.Cleanup(func() {
		for _, s := range servers {
			if s.stop() != nil || t.Failed() {
				t.Logf("a server's log:\n%s", s.stderr)
			}
		}
		if locked {
			serving.Unlock()
		}
	})
	stopAll := func() {
		for _, s := range servers {
			if err := s.stop(); err != nil {
				t.Errorf("%v\n%s", err, s.stderr)
			}
		}
	}
	// Each edit is kept by every server watching its tree before the
	// next: more edits than a directory keeps, so each prunes while the
	// others save.
	const edits = state.Keep + 2
	for i := range edits + 1 {
		if i > 0 {
			version(ours, i)
			version(theirs, i)
		}
		eventually(t, fmt.Sprintf("edit %d to be kept by every server", i), func() bool {
			return !slices.ContainsFunc(servers, func(s running) bool { return len(keptRevisions(s.stderr.String())) <= i })
		})
	}
	stopAll()
	serving.Unlock()
	locked = false
	for _, s := range servers {
		if log := s.stderr.String(); strings.Contains(log, "not kept") || strings.Contains(log, "passed over") || strings.Contains(log, "is ignored") {
			t.Errorf("a server could not use the shared directory:\n%s", log)
		}
	}
	if a, b := keptRevisions(servers[0].stderr.String()), keptRevisions(servers[1].stderr.String()); !slices.Equal(a, b) {
		t.Fatalf("the replicas kept %v and %v, want the same revisions", a, b)
	}

	for i, tree := range []string{ours, theirs} {
		writeGov(t, tree, "sources: [\n")
		s := startServe(t, nil, argsOf(tree)...)
		kept := keptRevisions(servers[2*i].stderr.String())
		var st heldStatus
		s.getJSON(t, "/status", &st)
		if newest := kept[len(kept)-1]; st.Persisted == nil || st.Revision != newest {
			t.Errorf("%s broken: serves %s (persisted %+v), want its newest kept revision %s", filepath.Base(tree), st.Revision, st.Persisted, newest)
		}
		if strings.Contains(s.stderr.String(), "passed over") {
			t.Errorf("%s broken: a kept revision was passed over:\n%s", filepath.Base(tree), s.stderr)
		}
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
	}
}

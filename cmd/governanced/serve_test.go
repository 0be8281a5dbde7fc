package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines to write while
// a test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a governanced started through run(), as main starts it.
type server struct {
	base   string
	stderr *syncBuffer
	stop   func() error
}

// serving is held while a server runs: onListen is one hook for the package.
var serving sync.Mutex

// startServe runs `governanced serve args...` on a loopback port and waits
// until it is ready.
func startServe(t *testing.T, env map[string]string, args ...string) *server {
	t.Helper()
	s := startServeWaiting(t, env, args...)
	eventually(t, "the server to be ready", func() bool {
		resp, err := http.Get(s.base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return s
}

// startServeWaiting is startServe for a server that is not ready at once
// (its tree does not exist yet): it waits for the listener only.
func startServeWaiting(t *testing.T, env map[string]string, args ...string) *server {
	t.Helper()
	serving.Lock()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	onListen = func(a net.Addr) { addrs <- a }
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- runE(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), mapEnv(env), io.Discard, stderr)
	}()
	stopped := false
	var result error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-done
			onListen = nil
			serving.Unlock()
		}
		return result
	}
	t.Cleanup(func() { stop() })
	select {
	case addr := <-addrs:
		return &server{base: "http://" + addr.String(), stderr: stderr, stop: stop}
	case err := <-done:
		done <- err
		t.Fatalf("serve ended before listening: %v\n%s", err, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not listen\n%s", stderr)
	}
	return nil
}

// logged reports whether the server has logged a line with message that
// holds (nil: any such line).
func (s *server) logged(message string, holds func(line map[string]any) bool) bool {
	for _, text := range strings.Split(s.stderr.String(), "\n") {
		var line map[string]any
		if json.Unmarshal([]byte(text), &line) == nil && line["message"] == message && (holds == nil || holds(line)) {
			return true
		}
	}
	return false
}

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// eventually polls cond until it holds; the deadline only guards against a
// hang, it asserts nothing about timing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, b := s.fetch(t, path)
	return resp.StatusCode, b
}

// fetch is a GET of path: the response (its body read and closed) and the
// body.
func (s *server) fetch(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func (s *server) getJSON(t *testing.T, path string, v any) int {
	t.Helper()
	code, b := s.get(t, path)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, b)
	}
	return code
}

type status struct {
	Revision   string `json:"revision"`
	LastReload struct {
		OK       bool     `json:"ok"`
		Outcome  string   `json:"outcome"`
		Error    *string  `json:"error"`
		Problems []string `json:"problems"`
	} `json:"last_reload"`
}

func (s *server) status(t *testing.T) status {
	t.Helper()
	var st status
	s.getJSON(t, "/status", &st)
	return st
}

// realTree copies the 17 reference apps and dataset-api's owners.yaml into a
// temporary tree.
func realTree(t *testing.T) string {
	t.Helper()
	paths := testcorpus.ReferenceApps(t)
	dir := t.TempDir()
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths {
		copyFile(p, filepath.Join(dir, "apps", filepath.Base(filepath.Dir(p)), "governance.yaml"))
	}
	copyFile(testcorpus.Path(t, "reference/dataset-api/owners.yaml"), filepath.Join(dir, "owners.yaml"))
	return dir
}

type confCase struct {
	ID        string          `json:"id"`
	Operation string          `json:"operation"`
	Args      map[string]any  `json:"args"`
	Expected  json.RawMessage `json:"expected"`
}

// realCases are the conformance cases of the real files, with their app.
func realCases(t *testing.T) map[string][]confCase {
	t.Helper()
	paths := testcorpus.Glob(t, testcorpus.Path(t, "conformance"), "real-*.json", 18)
	out := map[string][]confCase{}
	for _, p := range paths {
		app := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "real-"), ".json")
		if app == "owners" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Cases []confCase `json:"cases"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		out[app] = f.Cases
	}
	if len(out) != 17 {
		t.Skipf("want the conformance cases of 17 apps, found %d", len(out))
	}
	return out
}

// servedOwnership is what the service makes of a rule's ownership: names
// resolved against the registry (dso → example_dso), duplicates collapsed
// (owners.md §6.3). The conformance cases hold the names as written.
func servedOwnership(reg *owners.Registry, rule map[string]any) {
	list, ok := rule["ownership"].([]any)
	if !ok {
		return
	}
	out := []any{}
	seen := map[string]bool{}
	for _, item := range list {
		o := item.(map[string]any)
		name, _ := owners.ResolveName(o["name"].(string), reg, nil)
		key := name + "\x00" + o["type"].(string)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, map[string]any{"name": name, "type": o["type"]})
	}
	rule["ownership"] = out
}

func pathEscape(id string) string { return url.PathEscape(id) }

func TestServeRealTree(t *testing.T) {
	dir := realTree(t)
	cases := realCases(t)
	reg, err := owners.LoadAll(filepath.Join(dir, "owners.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, nil, "--tree", dir, "--owners", filepath.Join(dir, "owners.yaml"),
		"--reload-debounce", "50ms", "--rescan-interval", "2s", "--log-level", "warn")
	listed := listedKeys(t, s)
	t.Run("conformance", func(t *testing.T) { servesAsTheLibrary(t, s, cases, listed, reg) })

	rev1 := s.status(t).Revision
	grid := filepath.Join(dir, "apps", "grid", "governance.yaml")
	orig, err := os.ReadFile(grid)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("an edit is served under a new revision", func(t *testing.T) { servesAnEdit(t, s, grid, orig, rev1) })
	t.Run("a broken edit keeps the last good revision", func(t *testing.T) { keepsTheLastGood(t, s, grid, orig, rev1) })
	t.Run("POST /validate of the same tree", func(t *testing.T) { validatesTheSameTree(t, s, dir) })
	if err := s.stop(); err != nil {
		t.Errorf("serve ended with %v after its context was cancelled", err)
	}
}

// listedKeys is every key /datasets lists, once, with its app.
func listedKeys(t *testing.T, s *server) map[string]string {
	t.Helper()
	var list struct {
		Items []struct {
			ID, App string
		} `json:"items"`
		Next *string `json:"next"`
	}
	s.getJSON(t, "/datasets", &list)
	if len(list.Items) != 174 || list.Next != nil {
		t.Fatalf("/datasets lists %d keys (next %v), want 174 on one page", len(list.Items), list.Next)
	}
	listed := map[string]string{}
	for _, it := range list.Items {
		listed[it.ID] = it.App
	}
	return listed
}

// servesAsTheLibrary holds every rule, exposure and facet the server
// answers to the library's, case by case; the resolve cases cover every
// key.
func servesAsTheLibrary(t *testing.T, s *server, cases map[string][]confCase, listed map[string]string, reg *owners.Registry) {
	keys := 0
	for app, cs := range cases {
		for _, c := range cs {
			switch c.Operation {
			case "resolve":
				if servesResolve(t, s, c, app, listed, reg) {
					keys++
				}
			case "exposure":
				if c.Args["document"] != nil {
					servesExposure(t, s, c, app)
				}
			case "facet":
				if c.Args["document"] != nil {
					servesFacet(t, s, c, app, reg)
				}
			}
		}
	}
	if keys != 174 {
		t.Errorf("the conformance cases cover %d keys, want 174", keys)
	}
}

// servesResolve holds GET /datasets/{id}/rule to a resolve case, and
// reports whether the case's name is a key.
func servesResolve(t *testing.T, s *server, c confCase, app string, listed map[string]string, reg *owners.Registry) (key bool) {
	name, _ := c.Args["dataset"].(string)
	var want struct {
		Rule  map[string]any `json:"rule"`
		Match map[string]any `json:"match"`
	}
	json.Unmarshal(c.Expected, &want)
	path := "/datasets/" + pathEscape(name) + "/rule"
	if key = want.Match["kind"] == "exact"; key {
		if listed[name] != app {
			t.Errorf("%s: /datasets lists it under %q, want %q", c.ID, listed[name], app)
		}
	} else {
		path += "?app=" + app // a name no key matches: the app's defaults
	}
	var got struct {
		App   string         `json:"app"`
		Rule  map[string]any `json:"rule"`
		Match map[string]any `json:"match"`
	}
	if code := s.getJSON(t, path, &got); code != 200 {
		t.Errorf("%s: GET %s = %d", c.ID, path, code)
		return key
	}
	servedOwnership(reg, want.Rule)
	if diff := cmp.Diff(want.Rule, got.Rule); diff != "" {
		t.Errorf("%s: rule (-want +got):\n%s", c.ID, diff)
	}
	if diff := cmp.Diff(want.Match, got.Match); diff != "" || got.App != app {
		t.Errorf("%s: app %s, match (-want +got):\n%s", c.ID, got.App, diff)
	}
	return key
}

// servesExposure holds GET /datasets/{id}/exposure to an exposure case.
func servesExposure(t *testing.T, s *server, c confCase, app string) {
	name, _ := c.Args["dataset"].(string)
	var want struct {
		Expose, DataspaceExpose, Conflict bool
	}
	json.Unmarshal(c.Expected, &want)
	var got struct {
		Expose          bool    `json:"expose"`
		DataspaceExpose bool    `json:"dataspace_expose"`
		Conflict        *string `json:"conflict"`
	}
	s.getJSON(t, "/datasets/"+pathEscape(name)+"/exposure?app="+app, &got)
	if got.Expose != want.Expose || got.DataspaceExpose != want.DataspaceExpose || (got.Conflict != nil) != want.Conflict {
		t.Errorf("%s: exposure %+v, want %+v", c.ID, got, want)
	}
}

// servesFacet holds GET /datasets/{id}/facet to a facet case, its owner
// names resolved as the server serves them.
func servesFacet(t *testing.T, s *server, c confCase, app string, reg *owners.Registry) {
	name, _ := c.Args["dataset"].(string)
	q := url.Values{"app": {app}, "include_dataspace": {fmt.Sprint(c.Args["include_dataspace"])}, "producer": {fmt.Sprint(c.Args["producer"])}}
	var got, want map[string]any
	s.getJSON(t, "/datasets/"+pathEscape(name)+"/facet?"+q.Encode(), &got)
	json.Unmarshal(c.Expected, &want)
	if names, ok := want["owners"].([]any); ok {
		var resolved []any
		for _, n := range names {
			id, _ := owners.ResolveName(n.(string), reg, nil)
			if !slices.Contains(resolved, any(id)) {
				resolved = append(resolved, id)
			}
		}
		want["owners"] = resolved
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: facet (-want +got):\n%s", c.ID, diff)
	}
}

// gridRule is the rule of a dataset of the grid app, which the edits
// below change.
const gridRule = "/datasets/datasets.ds_dev_gold.grid_wind_risks/rule"

// servesAnEdit edits the grid app (orig is its file) and waits for the
// edit to be served under a revision other than rev1.
func servesAnEdit(t *testing.T, s *server, grid string, orig []byte, rev1 string) {
	edited := bytes.Replace(orig, []byte("retention_days: 365"), []byte("retention_days: 400"), 1)
	if bytes.Equal(edited, orig) {
		t.Fatal("the edit changed nothing")
	}
	replaceFile(t, grid, edited)
	eventually(t, "the edit to be served", func() bool { return s.status(t).Revision != rev1 })
	var got struct {
		Revision string         `json:"revision"`
		Rule     map[string]any `json:"rule"`
	}
	s.getJSON(t, gridRule, &got)
	if got.Rule["retention_days"] != float64(400) || got.Revision == rev1 {
		t.Errorf("after the edit: revision %s, retention_days %v", got.Revision, got.Rule["retention_days"])
	}
}

// replaceFile gives a served file new contents in one step, as
// deployments' tools do (a rename over it): a reload never reads it half
// written.
func replaceFile(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// keepsTheLastGood breaks the grid app: the reload is rejected, named in
// /status, the log and the metrics, and the last good revision serves until
// the file is put back (orig), when rev1 is served again.
func keepsTheLastGood(t *testing.T, s *server, grid string, orig []byte, rev1 string) {
	good := s.status(t).Revision
	broken := bytes.Replace(orig, []byte("access_level: internal"), []byte("access_level: publik"), 1)
	replaceFile(t, grid, broken)
	// A reload under way when the file is replaced (the edit's own, or the
	// rescan's) fails, "an input changed while it was being read", and the
	// replacement's event reloads again: the test waits for the rejection,
	// not for the first reload that is not OK.
	var st status
	eventually(t, "the broken edit to be rejected", func() bool {
		st = s.status(t)
		return st.LastReload.Outcome == "rejected"
	})
	if st.Revision != good || st.LastReload.Error == nil {
		t.Fatalf("status after a broken edit: %+v", st)
	}
	if !strings.Contains(strings.Join(st.LastReload.Problems, "\n"), "apps/grid/governance.yaml") {
		t.Errorf("the problems do not name the file: %v", st.LastReload.Problems)
	}
	if code, body := s.get(t, gridRule); code != 200 || !bytes.Contains(body, []byte(good)) {
		t.Errorf("the last good revision is not served: %d %s", code, body)
	}
	if !strings.Contains(s.stderr.String(), "apps/grid/governance.yaml") {
		t.Errorf("the log does not name the file:\n%s", s.stderr)
	}
	_, metrics := s.get(t, "/metrics")
	const failed = `governanced_reloads_total{result="failed"} `
	if !bytes.Contains(metrics, []byte(failed)) || bytes.Contains(metrics, []byte(failed+"0\n")) {
		t.Errorf("the failure counter did not rise")
	}
	replaceFile(t, grid, orig)
	eventually(t, "the fix to be served", func() bool { st := s.status(t); return st.LastReload.OK && st.Revision == rev1 })
}

// validatesTheSameTree posts the served tree (dir) to /validate: the report
// is the served tree's, strict or not.
func validatesTheSameTree(t *testing.T, s *server, dir string) {
	body := tarGz(t, dir)
	for _, tc := range []struct {
		query string
		ok    bool
		exit  int
	}{{"owners=owners.yaml", true, 0}, {"owners=owners.yaml&strict=true", false, 1}} {
		resp, err := http.Post(s.base+"/validate?"+tc.query, "application/gzip", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			OK       bool `json:"ok"`
			ExitCode int  `json:"exit_code"`
			Summary  map[string]int
			Findings []struct{ Code string }
		}
		json.NewDecoder(resp.Body).Decode(&rep)
		resp.Body.Close()
		want := map[string]int{"errors": 0, "warnings": 42, "infos": 0, "bases": 17, "overlays": 0, "owners_files": 1, "datasets": 174}
		if resp.StatusCode != 200 || rep.OK != tc.ok || rep.ExitCode != tc.exit {
			t.Errorf("%s: status %d, ok %v, exit %d", tc.query, resp.StatusCode, rep.OK, rep.ExitCode)
		}
		if diff := cmp.Diff(want, rep.Summary); diff != "" {
			t.Errorf("%s: summary (-want +got):\n%s", tc.query, diff)
		}
		for _, f := range rep.Findings {
			if f.Code != "row-policy-undeclared" {
				t.Errorf("%s: unexpected finding %s", tc.query, f.Code)
			}
		}
	}
}

// tarGz packs dir's apps and owners.yaml the way the CI recipe does.
func tarGz(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
		return nil
	})
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestServeDemoTree(t *testing.T) {
	s := startServe(t, map[string]string{"GOVERNANCED_LOG_LEVEL": "warn"})
	var apps struct {
		Items []struct{ Name string } `json:"items"`
	}
	s.getJSON(t, "/apps", &apps)
	if len(apps.Items) != 3 {
		t.Fatalf("demo apps %+v, want 3", apps.Items)
	}
	var report struct {
		OK      bool           `json:"ok"`
		Summary map[string]int `json:"summary"`
	}
	s.getJSON(t, "/report", &report)
	if !report.OK || report.Summary["errors"]+report.Summary["warnings"] != 0 {
		t.Errorf("the demo tree does not check clean: %+v", report)
	}
	var rule struct {
		App   string            `json:"app"`
		Match map[string]string `json:"match"`
	}
	s.getJSON(t, "/datasets/datasets.demo_gold.weather_wind_gusts/rule", &rule)
	if rule.App != "weather" || rule.Match["kind"] != "glob" {
		t.Errorf("a glob in the demo tree: %+v", rule)
	}
}

func TestServeSIGHUPReloads(t *testing.T) {
	dir := t.TempDir()
	gov := filepath.Join(dir, "apps", "a", "governance.yaml")
	os.MkdirAll(filepath.Dir(gov), 0o755)
	os.WriteFile(gov, []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"), 0o644)
	// No file events within the test (a very long debounce) and no rescan:
	// only the signal can reload.
	s := startServe(t, nil, "--tree", dir, "--reload-debounce", "1h", "--rescan-interval", "0", "--log-level", "warn")
	rev := s.status(t).Revision
	os.WriteFile(gov, []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: false}\n"), 0o644)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "SIGHUP to reload", func() bool { return s.status(t).Revision != rev })
}

func TestServeStartupFailure(t *testing.T) {
	dir := t.TempDir()
	gov := filepath.Join(dir, "apps", "a", "governance.yaml")
	os.MkdirAll(filepath.Dir(gov), 0o755)
	os.WriteFile(gov, []byte("defaults:\n  retention_days: a year\nsources: {}\n"), 0o644)
	var stderr bytes.Buffer
	err := runE(context.Background(), []string{"serve", "--tree", dir, "--addr", "127.0.0.1:0"}, mapEnv(nil), io.Discard, &stderr)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 {
		t.Fatalf("err = %v, want exit 1", err)
	}
	if !strings.Contains(stderr.String(), "apps/a/governance.yaml:2:") || !strings.Contains(stderr.String(), "schema-violation") {
		t.Errorf("the report is not on stderr:\n%s", stderr.String())
	}
}

func TestServeFlagsAndEnvironment(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c *serveConfig)
		usage bool
	}{
		{name: "defaults", check: func(t *testing.T, c *serveConfig) {
			if c.addr != "localhost:8080" || c.logFormat != "json" || len(c.inputs.Trees) != 0 {
				t.Errorf("%+v", c)
			}
		}},
		{name: "environment", env: map[string]string{"GOVERNANCED_ADDR": "127.0.0.1:9", "GOVERNANCED_TREE": "a" + string(filepath.ListSeparator) + "b", "GOVERNANCED_MAX_BODY_BYTES": "2MiB", "GOVERNANCED_REQUEST_TIMEOUT": "5s"},
			check: func(t *testing.T, c *serveConfig) {
				if c.addr != "127.0.0.1:9" || !slices.Equal(c.inputs.Trees, []string{"a", "b"}) || c.limits.MaxBodyBytes != 2<<20 || c.limits.RequestTimeout != 5*time.Second {
					t.Errorf("%+v", c)
				}
			}},
		{name: "a flag wins over the environment", args: []string{"--addr", "127.0.0.1:1", "--tree", "c"}, env: map[string]string{"GOVERNANCED_ADDR": "127.0.0.1:9", "GOVERNANCED_TREE": "a"},
			check: func(t *testing.T, c *serveConfig) {
				if c.addr != "127.0.0.1:1" || !slices.Equal(c.inputs.Trees, []string{"c"}) {
					t.Errorf("%+v", c)
				}
			}},
		{name: "repeatable flags", args: []string{"--tree", "a", "--tree", "b", "--owners", "o1", "--owners", "o2"},
			check: func(t *testing.T, c *serveConfig) {
				if !slices.Equal(c.inputs.Trees, []string{"a", "b"}) || !slices.Equal(c.inputs.Owners, []string{"o1", "o2"}) {
					t.Errorf("%+v", c.inputs)
				}
			}},
		{name: "the library's overlay variable", env: map[string]string{"GOVERNANCE_OVERLAY_NAME": "prod"},
			check: func(t *testing.T, c *serveConfig) {
				if c.inputs.OverlayName != "prod" {
					t.Errorf("overlay name %q", c.inputs.OverlayName)
				}
			}},
		{name: "governanced's own overlay variable wins", env: map[string]string{"GOVERNANCE_OVERLAY_NAME": "prod", "GOVERNANCED_OVERLAY_NAME": "staging"},
			check: func(t *testing.T, c *serveConfig) {
				if c.inputs.OverlayName != "staging" {
					t.Errorf("overlay name %q", c.inputs.OverlayName)
				}
			}},
		{name: "kept rule parts: the default", check: func(t *testing.T, c *serveConfig) {
			if c.limits.MaxKeptRuleBytes != api.DefaultLimits.MaxKeptRuleBytes {
				t.Errorf("default %d", c.limits.MaxKeptRuleBytes)
			}
		}},
		{name: "kept rule parts: a size", args: []string{"--max-kept-rule-bytes", "16MiB"}, check: func(t *testing.T, c *serveConfig) {
			if c.limits.MaxKeptRuleBytes != 16<<20 {
				t.Errorf("%d", c.limits.MaxKeptRuleBytes)
			}
		}},
		{name: "kept rule parts: none", env: map[string]string{"GOVERNANCED_MAX_KEPT_RULE_BYTES": "0"}, check: func(t *testing.T, c *serveConfig) {
			if c.limits.MaxKeptRuleBytes != api.NoKeptRuleParts {
				t.Errorf("%d", c.limits.MaxKeptRuleBytes)
			}
		}},
		{name: "kept rule parts: negative", args: []string{"--max-kept-rule-bytes", "-1"}, usage: true},
		{name: "bad log format", args: []string{"--log-format", "xml"}, usage: true},
		{name: "bad environment duration", env: map[string]string{"GOVERNANCED_RELOAD_DEBOUNCE": "soon"}, usage: true},
		{name: "bad size", args: []string{"--max-body-bytes", "lots"}, usage: true},
		{name: "stray argument", args: []string{"apps"}, usage: true},
		{name: "unknown flag", args: []string{"--nope"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseServeArgs(tt.args, mapEnv(tt.env), io.Discard)
			var ue *cli.UsageError
			if tt.usage {
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// TestServeWaitsForTheTree: started before git-sync's first clone, the
// server is live but not ready, says why in /status, and serves the tree as
// soon as it appears, instead of exiting and restarting until it lands.
func TestServeWaitsForTheTree(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "current")
	s := startServeWaiting(t, nil, "--tree", root, "--reload-debounce", "20ms")
	if code, _ := s.get(t, "/healthz"); code != 200 {
		t.Fatalf("/healthz %d", code)
	}
	if code, body := s.get(t, "/readyz"); code != 503 {
		t.Fatalf("/readyz %d before the tree exists: %s", code, body)
	}
	// The first reload's status is recorded once it ends.
	eventually(t, "/status to say why it is not ready", func() bool {
		st := s.status(t)
		return st.LastReload.Error != nil && strings.Contains(*st.LastReload.Error, "does not exist")
	})
	// Its log says nothing is served (there is no previous revision), where
	// the tree is, and how long the reload took, in milliseconds.
	eventually(t, "the log of the first reload", func() bool { return strings.Contains(s.stderr.String(), "waiting for the tree") })
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if !strings.Contains(line, `"trigger":"start-up"`) {
			continue
		}
		if !strings.Contains(line, "reload failed; nothing is served yet") || strings.Contains(line, "keeps serving") || !strings.Contains(line, `"duration_ms":`) {
			t.Errorf("the start-up reload's log line: %s", line)
		}
	}
	if !strings.Contains(s.stderr.String(), `"tree":"`+root+`"`) {
		t.Errorf("the log does not name the missing tree for the operator:\n%s", s.stderr.String())
	}
	// git-sync clones elsewhere and swaps a link in.
	clone := filepath.Join(parent, ".worktrees", "abc")
	testfs.Write(t, clone, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	if err := os.Symlink(clone, root); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the tree to be served", func() bool {
		code, _ := s.get(t, "/readyz")
		return code == 200
	})
}

// TestWatcherIgnoresOtherFiles: a log file beside the tree, written to on
// every reload at debug level, causes no reload; an edit to a base does.
func TestWatcherIgnoresOtherFiles(t *testing.T) {
	parent := t.TempDir()
	tree := filepath.Join(parent, "tree")
	testfs.Write(t, tree, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	logPath := filepath.Join(parent, "governanced.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	s := startServe(t, nil, "--tree", tree, "--log-level", "debug", "--reload-debounce", "20ms", "--rescan-interval", "0")
	eventually(t, "the watcher to watch", func() bool { return s.logged("watching the inputs", nil) })
	// When the last reload ran, whatever it found: a reload that finds
	// the inputs unchanged is counted in no metric.
	lastReload := func() string {
		var st struct {
			LastReload struct {
				At string `json:"at"`
			} `json:"last_reload"`
		}
		s.getJSON(t, "/status", &st)
		return st.LastReload.At
	}
	before := lastReload()
	for i := range 20 {
		fmt.Fprintf(logFile, `{"level":"debug","message":"line %d"}`+"\n", i)
	}
	// The watcher says, at debug, that it judged the log file's events and
	// asked for no reload: an event it took for an input would not be said
	// so, and would reload.
	eventually(t, "the log file's events to be ignored", func() bool {
		return s.logged("file event ignored: not an input", func(line map[string]any) bool { return line["path"] == logPath })
	})
	if after := lastReload(); after != before {
		t.Fatalf("writing a log file beside the tree reloaded (last reload %s, was %s)", after, before)
	}
	testfs.Append(t, tree, "apps/a/governance.yaml", "  ds.y: {expose: false}\n")
	eventually(t, "the edit to be served", func() bool { return lastReload() != before })
}

// TestWaitReleasedByFileEdit: a client waiting on the served revision
// (If-None-Match and ?wait) is answered with the new revision once an edit
// to a file is reloaded: the server counts it among its waiters
// (governanced_waiters) until then, and the edit is made only once it does.
// The test logs how long after the edit it was answered.
func TestWaitReleasedByFileEdit(t *testing.T) {
	tree := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	s := startServe(t, nil, "--tree", tree, "--reload-debounce", "50ms")
	resp, err := http.Get(s.base + "/datasets/ds.x/rule")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("Etag")
	type answer struct {
		status int
		etag   string
		at     time.Time
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", s.base+"/datasets/ds.x/rule?wait=60s", nil)
		req.Header.Set("If-None-Match", etag)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		resp.Body.Close()
		got <- answer{resp.StatusCode, resp.Header.Get("Etag"), time.Now(), nil}
	}()
	eventually(t, "the request to wait", func() bool { return s.metric(t, "governanced_waiters") == 1 || len(got) > 0 })
	select {
	case a := <-got:
		t.Fatalf("answered before the edit, without waiting: %d with ETag %q (%v)", a.status, a.etag, a.err)
	default:
	}
	edited := time.Now()
	testfs.Replace(t, tree, "apps/a/governance.yaml", "expose: true", "expose: false")
	select {
	case a := <-got:
		if a.err != nil || a.status != http.StatusOK || a.etag == etag || a.etag == "" {
			t.Fatalf("answer %d with ETag %q (was %q): %v", a.status, a.etag, etag, a.err)
		}
		t.Logf("released %v after the edit (debounce 50ms)", a.at.Sub(edited))
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting request was never released")
	}
	if n := s.metric(t, "governanced_waiters"); n != 0 {
		t.Errorf("%v waiters after the answer, want 0", n)
	}
}

// TestServeAnswersUnreadableRequests: a request net/http refuses before any
// handler (a bad escape in the path) gets net/http's own 400 from the
// running server, which serves the next request as usual.
func TestServeAnswersUnreadableRequests(t *testing.T) {
	s := startServe(t, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /datasets/%zz/rule HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	reply, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(reply), "HTTP/1.1 400") || !strings.Contains(string(reply), "text/plain") {
		t.Errorf("reply:\n%s", reply)
	}
	if resp, err := http.Get(s.base + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the next request: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

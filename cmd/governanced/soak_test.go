package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/snapshot"
)

// The soak: many clients over loopback for a fixed time while the tree is
// rewritten over and over (by rename, and now and then broken in place).
// It fails on any 5xx, on any answer whose body and revision disagree, on any
// snapshot missing a dataset, and on memory that keeps growing. Bounded:
// GOVERNANCED_SOAK sets the duration (default 20s); skipped under -short.

const (
	soakApps       = 6
	soakSources    = 15 // per app, plus one glob key
	soakMarkerID   = "datasets.soak_a.marker"
	soakWriteEvery = 40 * time.Millisecond
)

// soakApp is one app's governance.yaml; app a carries the marker in a rule.
func soakApp(app string, marker int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "defaults:\n  access_level: internal\n  ownership: [{name: rec, type: DATA_OWNER}]\n  row_filters: []\nsources:\n")
	for i := range soakSources {
		fmt.Fprintf(&b, "  datasets.soak_%s.t%02d: {expose: true, tags: [t%d]}\n", app, i, i)
	}
	fmt.Fprintf(&b, "  datasets.soak_%s.*: {expose: false}\n", app)
	if app == "a" {
		fmt.Fprintf(&b, "  %s: {expose: true, tags: [m-%d]}\n", soakMarkerID, marker)
	}
	return b.String()
}

func soakDuration(t *testing.T) time.Duration {
	if testing.Short() {
		t.Skip("the soak runs without -short")
	}
	d := 20 * time.Second
	if v := os.Getenv("GOVERNANCED_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("GOVERNANCED_SOAK=%q: %v", v, err)
		}
	}
	return d
}

// soakStats are what the clients saw.
type soakStats struct {
	requests, validations, busy atomic.Int64
	mu                          sync.Mutex
	failures                    []string
	markers                     map[string]int // revision → the marker served with it
}

func (s *soakStats) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) < 20 {
		s.failures = append(s.failures, fmt.Sprintf(format, args...))
	}
}

// saw records that revision was served with marker; one revision with two
// markers is a mix of snapshots.
func (s *soakStats) saw(rev string, marker int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.markers[rev]; ok && m != marker {
		if len(s.failures) < 20 {
			s.failures = append(s.failures, fmt.Sprintf("revision %s served with marker %d and with marker %d", rev, m, marker))
		}
		return
	}
	s.markers[rev] = marker
}

func TestSoak(t *testing.T) {
	duration := soakDuration(t)
	clients := 32
	if raceEnabled {
		clients = 8 // the race detector multiplies every cost; the interleavings still vary
	}
	tree := newSoakTree(t)
	totalSources := soakApps*(soakSources+1) + 1
	s := startServe(t, map[string]string{"GOVERNANCED_LOG_LEVEL": "error"},
		"--tree", tree.dir, "--owners", tree.owners, "--reload-debounce", "20ms", "--rescan-interval", "1s", "--max-validations", "2")

	stats := &soakStats{markers: map[string]int{}}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	upload := soakUpload(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				soakRequest(client, s.base, rng, stats, totalSources, upload)
			}
		})
	}
	var heap []uint64 // HeapInuse after a GC, sampled through the run
	sample := func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap = append(heap, m.HeapInuse)
	}
	sample()
	written, broken := tree.write(duration, sample)
	// Quiet: the last version must be served.
	eventually(t, "the last version to be served", func() bool { return servesMarker(client, s.base, tree.marker) })
	close(stop)
	wg.Wait()
	sample()
	okReloads, failedReloads := soakReloads(t, s)
	s.stop()

	matched := tree.matchRevisions(t, stats)
	t.Logf("soak: %s, %d clients: %d requests (%d validations, %d refused 429), %d versions written (%d broken first), "+
		"%d reloads activated, %d refused, %d revisions served (%d matched to a rebuilt fingerprint), failures: %d",
		duration, clients, stats.requests.Load(), stats.validations.Load(), stats.busy.Load(), written, broken,
		okReloads, failedReloads, len(stats.markers), matched, len(stats.failures))
	t.Logf("soak: HeapInuse after GC (MiB): %s", mib(heap))
	for _, f := range stats.failures {
		t.Error(f)
	}
	if okReloads < 10 {
		t.Errorf("only %d reloads were activated: the soak did not exercise reloading", okReloads)
	}
	if growing(heap) {
		t.Errorf("memory keeps growing: HeapInuse after GC (MiB) %s", mib(heap))
	}
}

// soakTree is the soak's tree, and every state its inputs pass through with
// the marker it serves: a revision seen by a client must be the
// fingerprint of one of them.
type soakTree struct {
	dir, owners string
	apps        []string
	current     map[string]string // app → governance.yaml
	states      []soakState
	marker      int
}

type soakState struct {
	files  map[string]string // app → governance.yaml
	marker int
}

func newSoakTree(t *testing.T) *soakTree {
	dir := t.TempDir()
	tree := &soakTree{dir: dir, owners: filepath.Join(dir, "owners.yaml"), apps: []string{"a", "b", "c", "d", "e", "f"}[:soakApps], current: map[string]string{}}
	os.WriteFile(tree.owners, []byte("owners:\n  - id: rec\n    type: schema:NGO\n    name: REC\n"), 0o644)
	for _, app := range tree.apps {
		os.MkdirAll(filepath.Dir(tree.gov(app)), 0o755)
		tree.current[app] = soakApp(app, 0)
		os.WriteFile(tree.gov(app), []byte(tree.current[app]), 0o644)
	}
	tree.record()
	return tree
}

func (tree *soakTree) gov(app string) string {
	return filepath.Join(tree.dir, "apps", app, "governance.yaml")
}

func (tree *soakTree) record() {
	tree.states = append(tree.states, soakState{maps.Clone(tree.current), tree.marker})
}

// write writes a new marker every soakWriteEvery for duration, by rename;
// every 25th version is first written broken in place (no prefix of it is
// a valid tree, and it must never be served); every 7th also changes
// another app. sample is called every tenth of the run. It returns the
// versions written, and how many were broken first.
//
// Valid versions are written by rename because the invariant the soak
// checks is exact: every served revision is a state the writer recorded.
// An in-place write can be read half done, and a half that ends on a line
// boundary is a valid, shorter tree no loader can tell from an edit
// (docs/reliability.md), which this test would report as an unrecorded
// revision. Rewrites in place during reloads are TestRewritesDuringReloads'
// subject.
func (tree *soakTree) write(duration time.Duration, sample func()) (written, broken int) {
	deadline := time.Now().Add(duration)
	nextSample := time.Now().Add(duration / 10)
	for time.Now().Before(deadline) {
		tree.marker++
		if tree.marker%25 == 0 {
			os.WriteFile(tree.gov("a"), []byte("defaults: {access_level: internal}\nsources:\n  "+soakMarkerID+": {expose: tr"), 0o644)
			broken++
			time.Sleep(soakWriteEvery)
		}
		if tree.marker%7 == 0 {
			app := tree.apps[1+tree.marker%(soakApps-1)]
			tree.current[app] = soakApp(app, 0) + "  # " + strconv.Itoa(tree.marker) + "\n"
			writeByRename(tree.gov(app), tree.current[app])
			tree.marker-- // app a still holds the previous marker
			tree.record()
			tree.marker++
		}
		tree.current["a"] = soakApp("a", tree.marker)
		writeByRename(tree.gov("a"), tree.current["a"])
		tree.record()
		written++
		time.Sleep(soakWriteEvery)
		if time.Now().After(nextSample) {
			sample()
			nextSample = time.Now().Add(duration / 10)
		}
	}
	return written, broken
}

// servesMarker reports whether the server serves the marker dataset with
// marker's tag.
func servesMarker(client *http.Client, base string, marker int) bool {
	resp, err := client.Get(base + "/datasets/" + soakMarkerID + "/rule")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body struct {
		Rule struct {
			Tags []string `json:"tags"`
		} `json:"rule"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	return slices.Equal(body.Rule.Tags, []string{"m-" + strconv.Itoa(marker)})
}

// matchRevisions holds every revision a client saw to the fingerprint of a
// state the inputs passed through, served with that state's marker: each
// state is rebuilt on disk and hashed as the server does. It returns how
// many matched, and records the others as failures.
func (tree *soakTree) matchRevisions(t *testing.T, stats *soakStats) (matched int) {
	inputs := snapshot.Inputs{Trees: []string{tree.dir}, Owners: []string{tree.owners}}
	revs := map[string]int{}
	for _, st := range tree.states {
		for app, content := range st.files {
			os.WriteFile(tree.gov(app), []byte(content), 0o644)
		}
		rev, _, err := (&snapshot.Loader{Inputs: inputs}).Revision(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		revs[rev] = st.marker
	}
	for rev, m := range stats.markers {
		want, ok := revs[rev]
		switch {
		case !ok:
			stats.failures = append(stats.failures, fmt.Sprintf("revision %s (served with marker %d) is no state the inputs passed through", rev, m))
		case want != m:
			stats.failures = append(stats.failures, fmt.Sprintf("revision %s is marker %d's, served with marker %d", rev, want, m))
		default:
			matched++
		}
	}
	return matched
}

// soakRequest sends one request of the mix and checks the answer.
func soakRequest(c *http.Client, base string, rng *rand.Rand, st *soakStats, totalSources int, upload []byte) {
	var req *http.Request
	kind := rng.IntN(20)
	switch {
	case kind < 8:
		req, _ = http.NewRequest("GET", base+"/datasets/"+soakMarkerID+"/rule", nil)
	case kind < 11:
		req, _ = http.NewRequest("GET", base+"/datasets", nil)
	case kind < 13:
		req, _ = http.NewRequest("GET", base+"/apps", nil)
	case kind < 17:
		app := string(rune('a' + rng.IntN(soakApps)))
		req, _ = http.NewRequest("GET", fmt.Sprintf("%s/datasets/datasets.soak_%s.t%02d/rule?explain=true", base, app, rng.IntN(soakSources)), nil)
	case kind < 18:
		req, _ = http.NewRequest("GET", base+"/status", nil)
	case kind < 19:
		req, _ = http.NewRequest("GET", base+"/datasets/datasets.soak_b.other/rule", nil) // the glob
	default:
		req, _ = http.NewRequest("POST", base+"/validate", bytes.NewReader(upload))
		req.Header.Set("Content-Type", "application/x-tar")
	}
	resp, err := c.Do(req)
	if err != nil {
		st.fail("%s %s: %v", req.Method, req.URL.Path, err)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	st.requests.Add(1)
	if err != nil {
		st.fail("%s %s: reading the body: %v", req.Method, req.URL.Path, err)
		return
	}
	if req.Method == "POST" {
		st.validations.Add(1)
		if resp.StatusCode == http.StatusTooManyRequests {
			st.busy.Add(1)
			if resp.Header.Get("Retry-After") == "" {
				st.fail("429 without Retry-After")
			}
			return
		}
	}
	if resp.StatusCode != http.StatusOK {
		st.fail("%s %s: %d %.300s", req.Method, req.URL, resp.StatusCode, body)
		return
	}
	var doc struct {
		Revision string `json:"revision"`
		Rule     struct {
			Tags []string `json:"tags"`
		} `json:"rule"`
		Items []json.RawMessage `json:"items"`
		OK    *bool             `json:"ok"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		st.fail("%s: not JSON: %v", req.URL, err)
		return
	}
	if req.Method == "POST" {
		if doc.OK == nil || !*doc.OK {
			st.fail("the validation of a good tree did not pass: %.300s", body)
		}
		return
	}
	if h := resp.Header.Get("Governance-Revision"); h != doc.Revision {
		st.fail("%s: header revision %s, body revision %s", req.URL, h, doc.Revision)
	}
	switch {
	case strings.HasSuffix(req.URL.Path, soakMarkerID+"/rule"):
		if len(doc.Rule.Tags) != 1 || !strings.HasPrefix(doc.Rule.Tags[0], "m-") {
			st.fail("the marker rule has tags %v", doc.Rule.Tags)
			return
		}
		m, _ := strconv.Atoi(strings.TrimPrefix(doc.Rule.Tags[0], "m-"))
		st.saw(doc.Revision, m)
	case req.URL.Path == "/datasets":
		if len(doc.Items) != totalSources {
			st.fail("revision %s lists %d datasets, want %d", doc.Revision, len(doc.Items), totalSources)
		}
	case req.URL.Path == "/apps":
		if len(doc.Items) != soakApps {
			st.fail("revision %s lists %d apps, want %d", doc.Revision, len(doc.Items), soakApps)
		}
	}
}

// soakUpload is a small good tree for POST /validate.
func soakUpload(t *testing.T) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := []byte(soakApp("z", 0))
	owners := []byte("owners:\n  - id: rec\n    type: schema:NGO\n    name: REC\n")
	for _, f := range []struct {
		name string
		data []byte
	}{{"apps/z/governance.yaml", body}, {"owners.yaml", owners}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	tw.Close()
	return buf.Bytes()
}

// soakReloads reads the reload counters from /metrics.
func soakReloads(t *testing.T, s *server) (ok, failed int) {
	_, b := s.get(t, "/metrics")
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		var n float64
		if _, err := fmt.Sscanf(line, `governanced_reloads_total{result="ok"} %g`, &n); err == nil {
			ok = int(n)
		}
		if _, err := fmt.Sscanf(line, `governanced_reloads_total{result="failed"} %g`, &n); err == nil {
			failed = int(n)
		}
	}
	return ok, failed
}

// growing reports clear, sustained growth: the samples of the last third all
// above twice the largest of the first third, plus 64 MiB. Noise, a warm-up
// and a plateau pass; a leak proportional to the requests does not.
func growing(heap []uint64) bool {
	if len(heap) < 6 {
		return false
	}
	third := len(heap) / 3
	early := slices.Max(heap[:third])
	return slices.Min(heap[len(heap)-third:]) > 2*early+64<<20
}

func mib(heap []uint64) string {
	parts := make([]string, len(heap))
	for i, h := range heap {
		parts[i] = strconv.FormatFloat(float64(h)/(1<<20), 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

// writeByRename replaces a file the way editors and git-sync do, so a reader
// sees the old content or the new, never part of one.
func writeByRename(path, content string) {
	tmp := path + ".tmp"
	os.WriteFile(tmp, []byte(content), 0o644)
	os.Rename(tmp, path)
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// Faults on disk while the server runs: whatever happens to the inputs, the
// last good snapshot keeps serving until inputs that pass the check are back,
// /status says what happened, and no snapshot is ever activated that lost a
// dataset the inputs still declare.
//
// The tests run as root in CI, where permission bits stop nothing: a read is
// made to fail by putting something unreadable where a file is declared — a
// directory, a dangling symbolic link, a loop of links. The chmod case runs
// only when the tests do not run as root.

// faultTree is a tree of two apps, one with an overlay that tightens its
// access level, and an owners registry.
var faultTree = map[string]string{
	"apps/a/governance.yaml": "defaults:\n  access_level: internal\n  ownership: [{name: rec, type: DATA_OWNER}]\n  row_filters: []\n" +
		"sources:\n  ds.a.one: {expose: true, tags: [marker-0]}\n  ds.a.two: {expose: true}\n  ds.a.*: {expose: false}\n",
	"apps/a/governance.a.yaml": "defaults:\n  access_level: restricted\n",
	"apps/b/governance.yaml":   "defaults: {access_level: internal, row_filters: []}\nsources:\n  ds.b.one: {expose: true}\n",
	"owners.yaml":              "owners:\n  - id: rec\n    type: schema:NGO\n    name: REC\n",
}

// faultDatasets are the sources keys faultTree declares.
var faultDatasets = []string{"ds.a.*", "ds.a.one", "ds.a.two", "ds.b.one"}

func faultStore(t testing.TB, dir string) *snapshot.Store {
	t.Helper()
	testfs.Write(t, dir, faultTree)
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{dir},
		Owners: []string{filepath.Join(dir, "owners.yaml")},
	}})
}

// servedDatasets lists the sources keys a snapshot serves.
func servedDatasets(s *snapshot.Snapshot) []string {
	var ids []string
	for _, d := range s.Datasets() {
		ids = append(ids, d.ID())
	}
	slices.Sort(ids)
	return ids
}

// assertIntact fails unless snap serves every dataset of faultTree with the
// overlay's access level.
func assertIntact(t testing.TB, snap *snapshot.Snapshot) {
	t.Helper()
	if diff := cmp.Diff(faultDatasets, servedDatasets(snap)); diff != "" {
		t.Fatalf("revision %s serves other datasets (-declared +served):\n%s", snap.Revision, diff)
	}
	d, err := snap.Resolve("ds.a.one")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	appendRuleBody(&buf, snap, "ds.a.one", d, false, nil)
	if !bytes.Contains(buf.Bytes(), []byte(`"access_level":"restricted"`)) {
		t.Fatalf("revision %s lost the overlay: %s", snap.Revision, buf.Bytes())
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

func replaceWithDir(t *testing.T, p string) {
	t.Helper()
	os.RemoveAll(p)
	if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// faultCase is a way of breaking the tree under a running server: the
// outcome of the reload that reads it, and what /status says of it.
type faultCase struct {
	name    string
	break_  func(t *testing.T, dir string)
	outcome snapshot.Outcome
	says    []string // substrings of /status last_reload.error
}

func TestFaultsKeepTheLastGoodSnapshot(t *testing.T) {
	for _, c := range faultCases() {
		t.Run(c.name, func(t *testing.T) { checkFault(t, c) })
	}
}

// faultCases are the half-written files, the links to nothing, the files
// turned directories and the registries broken that a served tree meets.
func faultCases() []faultCase {
	gov := "apps/a/governance.yaml"
	return []faultCase{
		{name: "half-written: cut in the middle of a value",
			break_: func(t *testing.T, dir string) {
				testfs.Write(t, dir, map[string]string{gov: faultTree[gov][:len(faultTree[gov])-30]})
			},
			outcome: snapshot.Rejected, says: []string{"apps/a/governance.yaml:6:1: error: load-error: not a loadable YAML document"}},
		{name: "half-written: the defaults only",
			break_: func(t *testing.T, dir string) {
				testfs.Write(t, dir, map[string]string{gov: faultTree[gov][:strings.Index(faultTree[gov], "sources:")]})
			},
			outcome: snapshot.Rejected, says: []string{"apps/a/governance.yaml:1:1", "'sources' is a required property"}},
		{name: "truncated, not yet rewritten",
			break_:  func(t *testing.T, dir string) { testfs.Write(t, dir, map[string]string{gov: ""}) },
			outcome: snapshot.Rejected, says: []string{"apps/a/governance.yaml:1:1", "schema-violation"}},
		{name: "governance.yaml replaced by a directory",
			break_:  func(t *testing.T, dir string) { replaceWithDir(t, filepath.Join(dir, gov)) },
			outcome: snapshot.Failed, says: []string{"apps/a/governance.yaml cannot be read (it is a directory, not a file)"}},
		{name: "governance.yaml a dangling symbolic link",
			break_: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(dir, "nowhere.yaml"), filepath.Join(dir, gov))
			},
			outcome: snapshot.Failed, says: []string{"apps/a/governance.yaml cannot be read (a symbolic link to nothing)"}},
		{name: "governance.yaml a loop of symbolic links",
			break_:  func(t *testing.T, dir string) { symlink(t, "governance.yaml", filepath.Join(dir, gov)) },
			outcome: snapshot.Failed, says: []string{"apps/a/governance.yaml cannot be read (a loop of symbolic links)"}},
		{name: "the overlay a dangling symbolic link",
			break_: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(dir, "nowhere.yaml"), filepath.Join(dir, "apps/a/governance.a.yaml"))
			},
			outcome: snapshot.Failed, says: []string{"apps/a/governance.a.yaml cannot be read (a symbolic link to nothing)"}},
		{name: "the overlay replaced by a directory",
			break_:  func(t *testing.T, dir string) { replaceWithDir(t, filepath.Join(dir, "apps/a/governance.a.yaml")) },
			outcome: snapshot.Failed, says: []string{"apps/a/governance.a.yaml cannot be read (it is a directory, not a file)"}},
		{name: "an app directory a dangling symbolic link (a broken checkout)",
			break_:  func(t *testing.T, dir string) { symlink(t, filepath.Join(dir, "gone"), filepath.Join(dir, "apps/a")) },
			outcome: snapshot.Failed, says: []string{"apps/a cannot be read (a symbolic link to nothing)"}},
		{name: "the apps directory replaced by a file",
			break_: func(t *testing.T, dir string) {
				os.RemoveAll(filepath.Join(dir, "apps"))
				os.WriteFile(filepath.Join(dir, "apps"), []byte("x"), 0o644)
			},
			outcome: snapshot.Rejected, says: []string{"path-no-match"}},
		{name: "the tree deleted",
			break_:  func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "apps")) },
			outcome: snapshot.Rejected, says: []string{"path-no-match", "matches no governance file"}},
		{name: "the owners file broken",
			break_: func(t *testing.T, dir string) {
				testfs.Write(t, dir, map[string]string{"owners.yaml": "owners:\n  - id: rec\n    type: [\n"})
			},
			outcome: snapshot.Rejected, says: []string{"owners.yaml:", "load-error"}},
		{name: "the owners file without its required fields",
			break_: func(t *testing.T, dir string) {
				testfs.Write(t, dir, map[string]string{"owners.yaml": "owners:\n  - id: rec\n"})
			},
			outcome: snapshot.Rejected, says: []string{"owners.yaml:2:", "owners-schema-violation"}},
		{name: "the owners file deleted",
			break_:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "owners.yaml")) },
			outcome: snapshot.Rejected, says: []string{"owners-file-not-found"}},
		{name: "the owners file a dangling symbolic link",
			break_: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(dir, "nowhere.yaml"), filepath.Join(dir, "owners.yaml"))
			},
			outcome: snapshot.Rejected, says: []string{"owners-file-not-found"}},
		{name: "the owners file replaced by a directory",
			break_:  func(t *testing.T, dir string) { replaceWithDir(t, filepath.Join(dir, "owners.yaml")) },
			outcome: snapshot.Rejected, says: []string{"owners-file-not-found"}},
		{name: "an app directory made unreadable (chmod 000; not as root)",
			break_: func(t *testing.T, dir string) {
				if os.Geteuid() == 0 {
					t.Skip("root reads through permission bits; the link and directory cases cover unreadable inputs")
				}
				p := filepath.Join(dir, "apps/a")
				os.Chmod(p, 0)
				t.Cleanup(func() { os.Chmod(p, 0o755) })
			},
			outcome: snapshot.Failed, says: []string{"apps/a cannot be read (permission denied)"}},
	}
}

// checkFault breaks a served tree as c does: the reload is refused, the
// last good revision keeps serving every dataset, /status says why, and the
// repair serves the same revision again, reusing every app.
func checkFault(t *testing.T, c faultCase) {
	dir := t.TempDir()
	store := faultStore(t, dir)
	good := store.Current()
	h, _ := newServer(Deps{Store: store})

	c.break_(t, dir)
	st := store.Reload(context.Background(), false)
	if st.Outcome != c.outcome {
		t.Fatalf("outcome %v (%v), want %v", st.Outcome, st.Err, c.outcome)
	}
	if store.Current() != good {
		t.Fatal("a failed reload replaced the snapshot")
	}
	// A rescan of the same broken inputs changes nothing either.
	if st := store.Reload(context.Background(), false); st.OK() || store.Current() != good {
		t.Fatalf("a second look at the broken inputs: %v", st.Outcome)
	}

	var status struct {
		Revision   string `json:"revision"`
		LastReload struct {
			OK      bool   `json:"ok"`
			Outcome string `json:"outcome"`
			Error   string `json:"error"`
		} `json:"last_reload"`
	}
	r := do(t, h, "GET", "/status", nil)
	if err := json.Unmarshal(r.body, &status); err != nil {
		t.Fatal(err)
	}
	if status.Revision != good.Revision || status.LastReload.OK || status.LastReload.Outcome != c.outcome.String() {
		t.Errorf("/status: %s", r.body)
	}
	for _, s := range c.says {
		if !strings.Contains(status.LastReload.Error, s) {
			t.Errorf("/status last_reload.error does not say %q:\n%s", s, status.LastReload.Error)
		}
	}
	assertIntact(t, store.Current())
	for _, id := range faultDatasets {
		if r := do(t, h, "GET", "/datasets/"+strings.ReplaceAll(id, "*", "%2A")+"/rule", nil); r.status != 200 || r.header.Get(revisionHeader) != good.Revision {
			t.Errorf("GET %s: %d from %s", id, r.status, r.header.Get(revisionHeader))
		}
	}

	// Put the good inputs back: the same bytes, the same revision.
	os.RemoveAll(filepath.Join(dir, "apps"))
	os.RemoveAll(filepath.Join(dir, "owners.yaml"))
	testfs.Write(t, dir, faultTree)
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated || store.Current().Revision != good.Revision {
		t.Fatalf("after the repair: %v (%v), revision %s", st.Outcome, st.Err, store.Current().Revision)
	}
	// The broken inputs were never served, so the repair finds every
	// app as the last activated reload built it.
	var repaired struct {
		LastReload struct {
			Reused int `json:"units_reused"`
			Built  int `json:"units_built"`
		} `json:"last_reload"`
	}
	if err := json.Unmarshal(do(t, h, "GET", "/status", nil).body, &repaired); err != nil {
		t.Fatal(err)
	}
	if got := repaired.LastReload; got.Reused != 2 || got.Built != 0 {
		t.Errorf("after the repair /status says %d apps reused, %d built; want 2, 0", got.Reused, got.Built)
	}
}

// TestDeletedAppIsAChange: removing an app's directory is the inputs no
// longer declaring it — that reload is activated. The guard above refuses
// only what it cannot read.
func TestDeletedAppIsAChange(t *testing.T) {
	dir := t.TempDir()
	store := faultStore(t, dir)
	os.RemoveAll(filepath.Join(dir, "apps", "b"))
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Activated {
		t.Fatalf("outcome %v: %v", st.Outcome, st.Err)
	}
	if diff := cmp.Diff([]string{"ds.a.*", "ds.a.one", "ds.a.two"}, servedDatasets(store.Current())); diff != "" {
		t.Error(diff)
	}
}

// markerTree is faultTree with marker n in a rule: every version differs in
// that one value.
func markerTree(n int) string {
	return strings.Replace(faultTree["apps/a/governance.yaml"], "marker-0", fmt.Sprintf("marker-%d", n), 1)
}

// TestRewritesDuringReloads rewrites a governance file over and over — in
// place in two writes with a moment in between (so a reload can meet it
// half-written), and by rename — while reloads run back to back and readers
// read. Every snapshot ever current must declare every dataset and carry the
// marker of the very bytes its revision names.
func TestRewritesDuringReloads(t *testing.T) {
	for _, mode := range []string{"in place", "by rename"} {
		t.Run(mode, func(t *testing.T) { rewriteDuringReloads(t, mode) })
	}
}

func rewriteDuringReloads(t *testing.T, mode string) {
	dir := t.TempDir()
	store := faultStore(t, dir)
	gov := filepath.Join(dir, "apps", "a", "governance.yaml")
	const versions, rewrites = 4, 60
	revs := versionRevisions(t, dir, gov, versions)
	var stop atomic.Bool
	var reloads, activated atomic.Int64
	// settle lets the reloader run twice on the complete file, so that
	// rewrites and activations interleave.
	settle := func() {
		for n := reloads.Load(); reloads.Load() < n+2 && !stop.Load(); {
			time.Sleep(100 * time.Microsecond)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Add(2)
	go func() { // the writer
		defer wg.Done()
		defer stop.Store(true)
		for i := 1; i <= rewrites; i++ {
			if err := rewrite(mode, gov, []byte(markerTree(i%versions)), store); err != nil {
				errs <- err
				return
			}
			if mode != "by rename" || i%2 == 0 {
				settle()
			}
		}
	}()
	go func() { // the reloader
		defer wg.Done()
		for !stop.Load() {
			if st := store.Reload(context.Background(), false); st.Outcome == snapshot.Activated {
				activated.Add(1)
			}
			reloads.Add(1)
		}
	}()
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for !stop.Load() {
				if err := servesItsVersion(store.Current(), revs); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Quiet now: the last version is served.
	store.Reload(context.Background(), false)
	if err := servesItsVersion(store.Current(), revs); err != nil {
		t.Error(err)
	}
	if v := revs[store.Current().Revision]; v != rewrites%versions {
		t.Errorf("after the last rewrite version %d is served, want %d", v, rewrites%versions)
	}
	t.Logf("%d reloads, %d activated", reloads.Load(), activated.Load())
}

// versionRevisions is the revision of each version of the tree, by
// version, worked out before anything runs; the tree is left at version 0.
func versionRevisions(t *testing.T, dir, gov string, versions int) map[string]int {
	t.Helper()
	revs := map[string]int{}
	loader := &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}}}
	for v := range versions {
		os.WriteFile(gov, []byte(markerTree(v)), 0o644)
		rev, _, err := loader.Revision(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		revs[rev] = v
	}
	os.WriteFile(gov, []byte(markerTree(0)), 0o644)
	return revs
}

// rewrite writes content to gov: by rename, or in place in two writes with
// reloads meeting the half-written file in between.
func rewrite(mode, gov string, content []byte, store *snapshot.Store) error {
	if mode == "by rename" {
		tmp := gov + ".tmp"
		if err := os.WriteFile(tmp, content, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, gov)
	}
	// Cut inside the first source's flow mapping: the first half alone is
	// not YAML.
	cut := bytes.Index(content, []byte("marker-"))
	f, err := os.OpenFile(gov, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	f.Write(content[:cut])
	for range 3 {
		store.Reload(context.Background(), false) // a reload meets the half-written file
	}
	f.Write(content[cut:])
	return f.Close()
}

// servesItsVersion checks that snap declares every dataset and carries the
// marker of the very bytes its revision names.
func servesItsVersion(snap *snapshot.Snapshot, revs map[string]int) error {
	v, ok := revs[snap.Revision]
	if !ok {
		return fmt.Errorf("revision %s names no version that was written", snap.Revision)
	}
	if got := servedDatasets(snap); !slices.Equal(got, faultDatasets) {
		return fmt.Errorf("revision %s serves %v", snap.Revision, got)
	}
	d, err := snap.Resolve("ds.a.one")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	appendRuleBody(&buf, snap, "ds.a.one", d, false, nil)
	if want := fmt.Sprintf(`"marker-%d"`, v); !bytes.Contains(buf.Bytes(), []byte(want)) {
		return fmt.Errorf("revision %s (version %d) serves %s", snap.Revision, v, buf.Bytes())
	}
	return nil
}

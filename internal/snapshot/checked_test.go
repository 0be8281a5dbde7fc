package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// writeTree writes files under dir.
func writeTree(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// upload is files as an upload reads them: in memory.
func upload(t testing.TB, files map[string][]byte) *memfs.FS {
	t.Helper()
	var m memfs.FS
	for name, data := range files {
		if err := m.Add(name, data); err != nil {
			t.Fatal(err)
		}
	}
	return &m
}

// editOne changes one app's defaults: every dataset of it inheriting the
// retention changes, nothing else does.
func editOne(t testing.TB, files map[string][]byte, app string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	name := "apps/" + app + "/governance.yaml"
	s := string(files[name])
	i := strings.Index(s, "  retention_days: ")
	if i < 0 {
		t.Fatalf("%s states no retention_days", name)
	}
	j := i + strings.IndexByte(s[i:], '\n')
	out[name] = []byte(s[:i] + "  retention_days: 9999" + s[j:])
	return out
}

// servedStore serves gen's tree from a directory, with its owners registry
// outside the tree root, as a deployment lays it out.
func servedStore(t *testing.T, files map[string][]byte, overlayName string) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	tree := map[string][]byte{}
	for k, v := range files {
		if k != "owners.yaml" {
			tree[k] = v
		}
	}
	writeTree(t, filepath.Join(dir, "governance"), tree)
	writeTree(t, filepath.Join(dir, "etc"), map[string][]byte{"owners.yaml": files["owners.yaml"]})
	l := &Loader{Inputs: Inputs{Trees: []string{filepath.Join(dir, "governance")}, Owners: []string{filepath.Join(dir, "etc", "owners.yaml")}, OverlayName: overlayName}}
	store := NewStore(l)
	if rs := store.Reload(context.Background(), false); rs.Outcome != Activated {
		t.Fatalf("the first load: %v (%v)", rs.Outcome, rs.Err)
	}
	return store, dir
}

// treeFiles is gen's tree without its owners registry: what an upload of
// the tree root holds.
func treeFiles(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range files {
		if k != "owners.yaml" {
			out[k] = v
		}
	}
	return out
}

// TestCheckUploadReusesTheServedUnits: an upload standing in for the served
// root is checked with the served options, its files named as the served
// ones, so every app but the changed one is the served app, the owners
// registry outside the root is the server's, and a diff against the served
// tree lists exactly the changed app's inheriting datasets.
func TestCheckUploadReusesTheServedUnits(t *testing.T) {
	gen := treegen.Generate(treegen.Options{Apps: 6, Sources: 120, Seed: 7})
	store, _ := servedStore(t, gen.Files, "deploy")
	served := store.Current()

	// The same tree: the same revision, every unit reused, no change.
	snap, same, err := store.CheckUpload(context.Background(), upload(t, treeFiles(gen.Files)), check.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if snap != served || same.Revision != served.Revision || same.Built != 0 || same.Reused != 6 {
		t.Errorf("the served tree uploaded: revision %s (served %s), %d built, %d reused; want the served revision, 0 built, 6 reused",
			same.Revision, served.Revision, same.Built, same.Reused)
	}
	rep, err := diff.Compare(context.Background(), served.Tree(), same.Tree(""))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Empty() {
		t.Errorf("the served tree against itself: %+v", rep.Datasets)
	}

	// One app edited: one unit checked, the diff that app's datasets.
	edited := editOne(t, treeFiles(gen.Files), "app_002")
	_, head, err := store.CheckUpload(context.Background(), upload(t, edited), check.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if head.Built != 1 || head.Reused != 5 {
		t.Errorf("one app edited: %d built, %d reused; want 1 and 5", head.Built, head.Reused)
	}
	rep, err = diff.Compare(context.Background(), served.Tree(), head.Tree(""))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, d := range served.App("app_002").Datasets() {
		if !served.App("app_002").Config.Sources[d.pos].Rule.Set.Has(governance.FieldRetentionDays) {
			want++
		}
	}
	if len(rep.Datasets) != want || want == 0 {
		t.Errorf("%d datasets changed, want the %d of app_002", len(rep.Datasets), want)
	}
	for _, d := range rep.Datasets {
		if d.App != "app_002" || len(d.Fields) != 1 || d.Fields[0].Field != "retention_days" || d.Fields[0].Origin.File != "apps/app_002/governance.yaml" {
			t.Errorf("%s %s: %+v; want retention_days stated in app_002's defaults, named as served (from the tree's root)", d.App, d.Dataset, d.Fields)
		}
	}
	if len(rep.Findings.Added)+len(rep.Findings.Resolved) != 0 {
		t.Errorf("findings added %v, resolved %v: the two trees' findings do not match", rep.Findings.Added, rep.Findings.Resolved)
	}
	if store.Current() != served {
		t.Error("checking an upload swapped it in")
	}

	// A file the upload lacks is gone, whatever the served root holds.
	without := treeFiles(gen.Files)
	delete(without, "apps/app_005/governance.yaml")
	_, gone, err := store.CheckUpload(context.Background(), upload(t, without), check.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range gone.Apps {
		if a.Name == "app_005" {
			t.Error("an app the upload lacks is read from the served root")
		}
	}
}

// TestCheckUploadInAFileSystem: a store serving from a file system (the
// demo tree) mounts the upload over its tree root.
func TestCheckUploadInAFileSystem(t *testing.T) {
	base := fstest.MapFS{
		"tree/apps/a/governance.yaml": {Data: []byte("defaults: {row_filters: []}\nsources: {x: {title: X}}\n")},
		"tree/apps/b/governance.yaml": {Data: []byte("defaults: {row_filters: []}\nsources: {y: {title: Y}}\n")},
	}
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{"tree"}}, FS: base})
	if rs := store.Reload(context.Background(), false); rs.Outcome != Activated {
		t.Fatalf("%v (%v)", rs.Outcome, rs.Err)
	}
	up := upload(t, map[string][]byte{
		"apps/a/governance.yaml": base["tree/apps/a/governance.yaml"].Data,
		"apps/b/governance.yaml": []byte("defaults: {row_filters: []}\nsources: {y: {title: Why}}\n"),
	})
	snap, head, err := store.CheckUpload(context.Background(), up, check.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if head.Reused != 1 || head.Built != 1 {
		t.Errorf("%d reused, %d built; want 1 and 1", head.Reused, head.Built)
	}
	rep, err := diff.Compare(context.Background(), snap.Tree(), head.Tree(""))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Datasets {
		got = append(got, d.App+" "+d.Dataset+" "+d.Fields[0].Field+" "+d.Fields[0].Origin.File)
	}
	if d := cmp.Diff([]string{"b y title apps/b/governance.yaml"}, got); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
}

func TestCheckUploadRefuses(t *testing.T) {
	l := &Loader{Inputs: Inputs{Trees: []string{"a", "b"}}, FS: fstest.MapFS{
		"a/governance.yaml": {Data: []byte("defaults: {}\nsources: {}\n")},
		"b/governance.yaml": {Data: []byte("defaults: {}\nsources: {}\n")},
	}}
	store := NewStore(l)
	if _, _, err := store.CheckUpload(context.Background(), upload(t, nil), check.Budget{}); !errors.Is(err, ErrNotServing) {
		t.Errorf("before the first load: %v, want ErrNotServing", err)
	}
	if rs := store.Reload(context.Background(), false); rs.Outcome != Activated {
		t.Fatalf("%v (%v)", rs.Outcome, rs.Err)
	}
	if _, _, err := store.CheckUpload(context.Background(), upload(t, nil), check.Budget{}); !errors.Is(err, ErrSeveralTrees) {
		t.Errorf("two roots: %v, want ErrSeveralTrees", err)
	}
}

// TestCheckKeepsAFailingTree: a tree whose check fails is still checked and
// materialised where it can be, its unmaterialised units listed; a head in
// another directory reuses the base's unchanged units.
func TestCheckKeepsAFailingTree(t *testing.T) {
	gen := treegen.Generate(treegen.Options{Apps: 4, Sources: 40, Seed: 3, OverlayShare: -1})
	baseDir, headDir := t.TempDir(), t.TempDir()
	writeTree(t, baseDir, gen.Files)
	headFiles := editOne(t, gen.Files, "app_001")
	headFiles["apps/app_003/governance.yaml"] = []byte("defaults: {access_level: everyone}\nsources: {}\n")
	writeTree(t, headDir, headFiles)
	loader := func(dir string) *Loader {
		return &Loader{Inputs: Inputs{Trees: []string{"."}, Owners: []string{"owners.yaml"}, Dir: dir}}
	}
	base, err := loader(baseDir).Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head, err := loader(headDir).Check(context.Background(), base)
	if err != nil {
		t.Fatalf("a failing head: %v; want it checked, not rejected", err)
	}
	if !head.Report.HasErrors() || len(head.Unserved) != 1 || head.Unserved[0].App != "app_003" || len(head.Apps) != 3 {
		t.Errorf("head: errors %d, unserved %+v, %d apps; want app_003 unserved and 3 apps", head.Report.Summary.Errors, head.Unserved, len(head.Apps))
	}
	if head.Reused != 2 || head.Built != 2 {
		t.Errorf("%d reused, %d built; want the 2 unchanged apps reused from the base in another directory", head.Reused, head.Built)
	}
	if head.Apps[0].File != "apps/app_000/governance.yaml" {
		t.Errorf("display path %q, want it relative to the tree's directory", head.Apps[0].File)
	}
}

func TestMountFS(t *testing.T) {
	base := fstest.MapFS{
		"etc/owners.yaml":      {Data: []byte("owners")},
		"srv/gov/a.yaml":       {Data: []byte("served a")},
		"srv/gov/only-on-disk": {Data: []byte("x")},
		"srv/other":            {Data: []byte("other")},
	}
	up := fstest.MapFS{"a.yaml": {Data: []byte("uploaded a")}, "sub/b.yaml": {Data: []byte("b")}}
	m := &mountFS{base: base, at: "srv/gov", upper: up}
	for name, want := range map[string]string{
		"etc/owners.yaml": "owners", "srv/other": "other", "srv/gov/a.yaml": "uploaded a", "srv/gov/sub/b.yaml": "b",
	} {
		if got, err := fs.ReadFile(m, name); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := fs.Stat(m, "srv/gov/only-on-disk"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file below the mount that the upload lacks: %v, want not found", err)
	}
	if es, err := fs.ReadDir(m, "srv/gov"); err != nil || len(es) != 2 {
		t.Errorf("the mount point lists %v (%v), want the upload's two entries", es, err)
	}
	if _, err := m.Open("/abs"); err == nil {
		t.Error("an invalid name opens")
	}
	all := &mountFS{base: base, at: ".", upper: up}
	if _, err := fs.Stat(all, "etc/owners.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("mounted over everything, base shows through: %v", err)
	}
}

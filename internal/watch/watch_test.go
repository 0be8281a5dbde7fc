package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestDebouncer(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	tests := []struct {
		name   string
		events []int // event times, ms
		due    int   // when the burst fires, ms
	}{
		{name: "one event", events: []int{0}, due: 100},
		{name: "a burst settles after its last event", events: []int{0, 10, 50, 90}, due: 190},
		{name: "a stream never settling fires at the cap", events: []int{0, 90, 180, 270, 360, 450, 540}, due: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := debouncer{quiet: 100 * time.Millisecond, max: 500 * time.Millisecond}
			if d.pending() {
				t.Fatal("pending before any event")
			}
			for _, e := range tt.events {
				d.event(ms(e))
			}
			if got := d.due(); !got.Equal(ms(tt.due)) {
				t.Errorf("due at %v, want %dms", got.Sub(t0), tt.due)
			}
			d.fire()
			if d.pending() {
				t.Error("pending after fire")
			}
		})
	}
}

// watched is a watcher a test runs: the triggers it asks for, and the
// paths of the events it judged not to be inputs.
type watched struct {
	triggers <-chan Trigger
	ignored  <-chan string
}

// start runs the watcher until the test ends, and returns once every
// target is watched.
func start(t *testing.T, cfg Config) watched {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	triggers := make(chan Trigger, 64)
	ignored := make(chan string, 256)
	ready := make(chan struct{})
	cfg.Watching = func() { close(ready) }
	cfg.Ignored = func(path string) {
		select {
		case ignored <- path:
		default: // a test that does not read them
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := Run(ctx, cfg, func(tr Trigger) { triggers <- tr }); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-done:
		t.Fatal("the watcher ended before it watched anything")
	}
	return watched{triggers, ignored}
}

// guard bounds every wait of these tests: a watcher that never answers
// fails instead of hanging. It asserts nothing about timing.
const guard = 30 * time.Second

// next waits for a trigger.
func next(t *testing.T, triggers <-chan Trigger) Trigger {
	t.Helper()
	select {
	case tr := <-triggers:
		return tr
	case <-time.After(guard):
		t.Fatal("no reload was requested")
		return Trigger{}
	}
}

// nextFor waits for a trigger naming path among its paths, passing over
// those of earlier changes (a burst of events may make two).
func nextFor(t *testing.T, triggers <-chan Trigger, path string) Trigger {
	t.Helper()
	for {
		if tr := next(t, triggers); slices.Contains(tr.Paths, path) {
			return tr
		}
	}
}

// ignoredFor waits until the watcher has judged an event naming path not
// to be an input: then it has asked for no reload for it. An event taken
// for an input is never reported so, and the wait fails.
func ignoredFor(t *testing.T, w watched, path string) {
	t.Helper()
	deadline := time.After(guard)
	for {
		select {
		case p := <-w.ignored:
			if p == path {
				return
			}
		case tr := <-w.triggers:
			if slices.Contains(tr.Paths, path) {
				t.Fatalf("%s asked for a reload: %+v", path, tr)
			}
		case <-deadline:
			t.Fatalf("no event on %s was ignored", path)
		}
	}
}

func TestFileChangesAskForReload(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "apps", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := start(t, Config{Targets: []Target{{Path: root, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	base := filepath.Join(root, "apps", "a", "governance.yaml")
	os.WriteFile(base, []byte("defaults: {}\n"), 0o644)
	if tr := nextFor(t, w.triggers, base); tr.Reason != "files changed" || tr.Force || !tr.Has("tree") {
		t.Errorf("trigger %+v", tr)
	}
	// A directory created after start is watched too (a new app): its
	// creation asks for a reload once it is watched.
	newApp := filepath.Join(root, "apps", "b")
	if err := os.Mkdir(newApp, 0o755); err != nil {
		t.Fatal(err)
	}
	nextFor(t, w.triggers, newApp)
	newBase := filepath.Join(newApp, "governance.yaml")
	os.WriteFile(newBase, []byte("defaults: {}\n"), 0o644)
	nextFor(t, w.triggers, newBase)
}

func TestSignalForcesReload(t *testing.T) {
	sig := make(chan os.Signal, 1)
	w := start(t, Config{Signals: sig})
	sig <- syscall.SIGHUP
	tr := next(t, w.triggers)
	if !tr.Force || tr.Reason != syscall.SIGHUP.String() {
		t.Errorf("trigger %+v, want a forced reload named after SIGHUP", tr)
	}
}

func TestRescanAsksPeriodically(t *testing.T) {
	w := start(t, Config{Rescan: 10 * time.Millisecond})
	for range 2 {
		if tr := next(t, w.triggers); tr.Reason != "rescan" || tr.Force || !tr.Rescan {
			t.Errorf("trigger %+v", tr)
		}
	}
}

func TestUnwatchableDirectoryIsReported(t *testing.T) {
	errs := make(chan error, 4)
	start(t, Config{Targets: []Target{{Path: filepath.Join(t.TempDir(), "missing"), Kind: Dir}}, OnError: func(err error) { errs <- err }})
	select {
	case <-errs:
	case <-time.After(guard):
		t.Fatal("a missing directory was not reported")
	}
}

func TestSymlinkedRootSwapAsksForReload(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		os.MkdirAll(filepath.Join(dir, v, "apps", "a"), 0o755)
	}
	link := filepath.Join(dir, "current")
	if err := os.Symlink(filepath.Join(dir, "v1"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	w := start(t, Config{Targets: []Target{{Path: link, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	tmp := filepath.Join(dir, "current.tmp")
	if err := os.Symlink(filepath.Join(dir, "v2"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	nextFor(t, w.triggers, link)
}

// TestConfigMapTreeSwapAsksForReload: a ConfigMap mounted as the tree root
// holds governance.yaml as a link through ..data, and the kubelet updates it
// by swapping ..data to a new directory: that is a change of the tree.
func TestConfigMapTreeSwapAsksForReload(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"..v1", "..v2"} {
		if err := os.MkdirAll(filepath.Join(root, v), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, v, "governance.yaml"), []byte("defaults: {}\n# "+v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("..v1", filepath.Join(root, "..data")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("..data/governance.yaml", filepath.Join(root, "governance.yaml")); err != nil {
		t.Fatal(err)
	}
	w := start(t, Config{Targets: []Target{{Path: root, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	tmp := filepath.Join(root, "..data_tmp")
	if err := os.Symlink("..v2", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "..data")); err != nil {
		t.Fatal(err)
	}
	if tr := nextFor(t, w.triggers, filepath.Join(root, "..data")); !tr.Has("tree") {
		t.Fatalf("trigger %+v", tr)
	}
}

func isGovernance(name string) bool {
	return name == "governance.yaml" || strings.HasPrefix(name, "governance.") && strings.HasSuffix(name, ".yaml")
}

// TestOnlyInputsAskForReload: files beside the inputs that are not inputs
// (a log file next to the tree, an editor's temporary file, a README in an
// app directory) ask for no reload; an owners file, a file of the overlay
// directory and a tree root appearing do, each with its target's tag.
func TestOnlyInputsAskForReload(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"overlays", "etc", "apps/a"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	owners := filepath.Join(dir, "etc", "owners.yaml")
	os.WriteFile(owners, []byte("owners: []\n"), 0o644)
	tree := filepath.Join(dir, "tree") // appears later, as git-sync's first clone does
	w := start(t, Config{Debounce: 20 * time.Millisecond, Targets: []Target{
		{Path: tree, Kind: Tree, Match: isGovernance, Tag: "tree"},
		{Path: filepath.Join(dir, "overlays"), Kind: Dir, Match: isGovernance, Tag: "tree"},
		{Path: owners, Kind: File, Tag: "owners"},
		{Path: filepath.Join(dir, "etc", "token"), Kind: File, Tag: "auth"},
	}})
	// quiet changes a file that is not an input: the watcher judges its
	// event and asks for nothing.
	quiet := func(path string) {
		t.Helper()
		appendTo(t, path, "x\n")
		ignoredFor(t, w, path)
	}
	// loud changes an input: a reload is asked for, naming it and its tag.
	loud := func(what, tag, path string, change func()) {
		t.Helper()
		change()
		if tr := nextFor(t, w.triggers, path); !tr.Has(tag) {
			t.Errorf("%s: trigger %+v, want tag %s", what, tr, tag)
		}
	}
	appendLine := func(path string) func() { return func() { appendTo(t, path, "# edit\n") } }
	quiet(filepath.Join(dir, "governanced.log"))         // a log file beside the tree
	quiet(filepath.Join(dir, "etc", ".owners.yaml.swp")) // an editor's file beside the owners file
	quiet(filepath.Join(dir, "overlays", "README.md"))   // a README in the overlay directory
	loud("the tree appearing", "tree", tree, func() {
		os.MkdirAll(filepath.Join(tree, "apps", "a"), 0o755)
		os.WriteFile(filepath.Join(tree, "apps", "a", "governance.yaml"), []byte("defaults: {}\n"), 0o644)
	})
	quiet(filepath.Join(tree, "apps", "a", "README.md")) // a README in an app directory
	base := filepath.Join(tree, "apps", "a", "governance.yaml")
	loud("a base edited", "tree", base, appendLine(base))
	overlay := filepath.Join(dir, "overlays", "governance.a.yaml")
	loud("an overlay added", "tree", overlay, appendLine(overlay))
	loud("the owners file", "owners", owners, appendLine(owners))
	token := filepath.Join(dir, "etc", "token")
	loud("the token file", "auth", token, appendLine(token))
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestFilesInsideATreeAskForTheirOwnReload: the owners registry usually sits
// in the tree it describes (celine-pipelines/owners.yaml). The tree's matcher
// does not take it, so its own target must, whether it is written in place or
// replaced by a rename as `sed -i` and most editors do.
func TestFilesInsideATreeAskForTheirOwnReload(t *testing.T) {
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "apps", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	owners := filepath.Join(tree, "owners.yaml")
	if err := os.WriteFile(owners, []byte("owners: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		name   string
		change func()
	}{
		{"written in place", func() { appendTo(t, owners, "# edit\n") }},
		{"replaced by a rename", func() {
			tmp := filepath.Join(tree, "sedAb12Cd")
			if err := os.WriteFile(tmp, []byte("owners: []\n# renamed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, owners); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			// A watcher of its own: the triggers of one change are not
			// taken for the other's.
			w := start(t, Config{Debounce: 20 * time.Millisecond, Targets: []Target{
				{Path: tree, Kind: Tree, Match: isGovernance, Tag: "tree"},
				{Path: owners, Kind: File, Tag: "owners"},
			}})
			c.change()
			if tr := nextFor(t, w.triggers, owners); !tr.Has("owners") {
				t.Errorf("owners file %s: trigger %+v, want tag owners", c.name, tr)
			}
		})
	}
}

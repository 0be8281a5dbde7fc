package watch

import (
	"context"
	"os"
	"path/filepath"
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

// start runs the watcher and returns its triggers; the test ends it.
func start(t *testing.T, cfg Config) <-chan Trigger {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	triggers := make(chan Trigger, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := Run(ctx, cfg, func(tr Trigger) { triggers <- tr }); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return triggers
}

// next waits for a trigger; the deadline is only a guard against hanging.
func next(t *testing.T, triggers <-chan Trigger) Trigger {
	t.Helper()
	select {
	case tr := <-triggers:
		return tr
	case <-time.After(30 * time.Second):
		t.Fatal("no reload was requested")
		return Trigger{}
	}
}

func TestFileChangesAskForReload(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "apps", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	triggers := start(t, Config{Targets: []Target{{Path: root, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	// The watches are set up asynchronously; keep touching until one lands.
	var tr Trigger
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(root, "apps", "a", "governance.yaml"), []byte("defaults: {}\n"), 0o644)
		select {
		case tr = <-triggers:
		case <-time.After(200 * time.Millisecond):
			if i > 100 {
				t.Fatal("no reload was requested")
			}
			continue
		}
		break
	}
	if tr.Reason != "files changed" || tr.Force || len(tr.Paths) == 0 || !tr.Has("tree") {
		t.Errorf("trigger %+v", tr)
	}
	// A directory created after start is watched too (a new app).
	newApp := filepath.Join(root, "apps", "b")
	if err := os.Mkdir(newApp, 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, triggers) // the directory's creation
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(newApp, "governance.yaml"), []byte("defaults: {}\n"), 0o644)
		select {
		case tr = <-triggers:
		case <-time.After(200 * time.Millisecond):
			if i > 100 {
				t.Fatal("a change in a new directory asked for no reload")
			}
			continue
		}
		break
	}
}

func TestSignalForcesReload(t *testing.T) {
	sig := make(chan os.Signal, 1)
	triggers := start(t, Config{Signals: sig})
	sig <- syscall.SIGHUP
	tr := next(t, triggers)
	if !tr.Force || tr.Reason != syscall.SIGHUP.String() {
		t.Errorf("trigger %+v, want a forced reload named after SIGHUP", tr)
	}
}

func TestRescanAsksPeriodically(t *testing.T) {
	triggers := start(t, Config{Rescan: 10 * time.Millisecond})
	for range 2 {
		if tr := next(t, triggers); tr.Reason != "rescan" || tr.Force || !tr.Rescan {
			t.Errorf("trigger %+v", tr)
		}
	}
}

func TestUnwatchableDirectoryIsReported(t *testing.T) {
	errs := make(chan error, 4)
	start(t, Config{Targets: []Target{{Path: filepath.Join(t.TempDir(), "missing"), Kind: Dir}}, OnError: func(err error) { errs <- err }})
	select {
	case <-errs:
	case <-time.After(30 * time.Second):
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
	triggers := start(t, Config{Targets: []Target{{Path: link, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, "current.tmp")
		os.Remove(tmp)
		os.Symlink(filepath.Join(dir, []string{"v2", "v1"}[i%2]), tmp)
		os.Rename(tmp, link)
		select {
		case <-triggers:
			return
		case <-time.After(200 * time.Millisecond):
			if i > 100 {
				t.Fatal("swapping the root asked for no reload")
			}
		}
	}
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
	triggers := start(t, Config{Targets: []Target{{Path: root, Kind: Tree, Match: isGovernance, Tag: "tree"}}, Debounce: 20 * time.Millisecond})
	for i := 0; ; i++ {
		tmp := filepath.Join(root, "..data_tmp")
		os.Remove(tmp)
		os.Symlink([]string{"..v2", "..v1"}[i%2], tmp)
		os.Rename(tmp, filepath.Join(root, "..data"))
		select {
		case tr := <-triggers:
			if !tr.Has("tree") {
				t.Fatalf("trigger %+v", tr)
			}
			return
		case <-time.After(200 * time.Millisecond):
			if i > 100 {
				t.Fatal("swapping ..data in the tree root asked for no reload")
			}
		}
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
	triggers := start(t, Config{Debounce: 20 * time.Millisecond, Targets: []Target{
		{Path: tree, Kind: Tree, Match: isGovernance, Tag: "tree"},
		{Path: filepath.Join(dir, "overlays"), Kind: Dir, Match: isGovernance, Tag: "tree"},
		{Path: owners, Kind: File, Tag: "owners"},
		{Path: filepath.Join(dir, "etc", "token"), Kind: File, Tag: "auth"},
	}})
	quiet := func(what string, change func()) {
		t.Helper()
		change()
		select {
		case tr := <-triggers:
			t.Errorf("%s asked for a reload: %+v", what, tr)
		case <-time.After(300 * time.Millisecond):
		}
	}
	loud := func(what, tag string, change func()) {
		t.Helper()
		for i := 0; ; i++ {
			change()
			select {
			case tr := <-triggers:
				if !tr.Has(tag) {
					t.Errorf("%s: trigger %+v, want tag %s", what, tr, tag)
				}
				// Let the burst settle so the next step starts clean.
				time.Sleep(100 * time.Millisecond)
				for len(triggers) > 0 {
					<-triggers
				}
				return
			case <-time.After(200 * time.Millisecond):
				if i > 50 {
					t.Fatalf("%s asked for no reload", what)
				}
			}
		}
	}
	quiet("a log file beside the tree", func() { appendTo(t, filepath.Join(dir, "governanced.log"), "a line\n") })
	quiet("an editor's file beside the owners file", func() { appendTo(t, filepath.Join(dir, "etc", ".owners.yaml.swp"), "x") })
	quiet("a README in the overlay directory", func() { appendTo(t, filepath.Join(dir, "overlays", "README.md"), "x") })
	loud("the tree appearing", "tree", func() {
		os.MkdirAll(filepath.Join(tree, "apps", "a"), 0o755)
		os.WriteFile(filepath.Join(tree, "apps", "a", "governance.yaml"), []byte("defaults: {}\n"), 0o644)
	})
	quiet("a README in an app directory", func() { appendTo(t, filepath.Join(tree, "apps", "a", "README.md"), "x") })
	loud("a base edited", "tree", func() { appendTo(t, filepath.Join(tree, "apps", "a", "governance.yaml"), "# edit\n") })
	loud("an overlay added", "tree", func() { appendTo(t, filepath.Join(dir, "overlays", "governance.a.yaml"), "defaults: {}\n") })
	loud("the owners file", "owners", func() { appendTo(t, owners, "# edit\n") })
	loud("the token file", "auth", func() { appendTo(t, filepath.Join(dir, "etc", "token"), "x\n") })
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
	triggers := start(t, Config{Debounce: 20 * time.Millisecond, Targets: []Target{
		{Path: tree, Kind: Tree, Match: isGovernance, Tag: "tree"},
		{Path: owners, Kind: File, Tag: "owners"},
	}})
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
		// Run adds its watches while the first change may already be made:
		// change again until a trigger comes.
		for i := 0; ; i++ {
			c.change()
			select {
			case tr := <-triggers:
				if !tr.Has("owners") {
					t.Errorf("owners file %s: trigger %+v, want tag owners", c.name, tr)
				}
			case <-time.After(200 * time.Millisecond):
				if i > 25 {
					t.Fatalf("owners file %s: no reload asked for", c.name)
				}
				continue
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
		for len(triggers) > 0 {
			<-triggers
		}
	}
}

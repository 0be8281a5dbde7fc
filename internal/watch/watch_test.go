package watch

import (
	"context"
	"os"
	"path/filepath"
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
	triggers := start(t, Config{Recursive: []string{root}, Debounce: 20 * time.Millisecond})
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
	if tr.Reason != "files changed" || tr.Force || len(tr.Paths) == 0 {
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
		if tr := next(t, triggers); tr.Reason != "rescan" || tr.Force {
			t.Errorf("trigger %+v", tr)
		}
	}
}

func TestUnwatchableDirectoryIsReported(t *testing.T) {
	errs := make(chan error, 4)
	start(t, Config{Flat: []string{filepath.Join(t.TempDir(), "missing")}, OnError: func(err error) { errs <- err }})
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
	triggers := start(t, Config{Recursive: []string{link}, Flat: []string{dir}, Debounce: 20 * time.Millisecond})
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

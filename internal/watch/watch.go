package watch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Trigger is one reload request.
type Trigger struct {
	Reason string   // "files changed", "SIGHUP" or "rescan"
	Paths  []string // a few of the paths that changed, for the log
	Force  bool     // rebuild even if the inputs hash as before (an operator asked)
}

// Config says what to watch and how.
type Config struct {
	Recursive []string // directories watched with every subdirectory (tree roots)
	Flat      []string // directories watched alone
	// Debounce is the quiet period after the last event before a reload is
	// asked for; default 250ms. MaxDelay caps the wait after the first event;
	// default 20 × Debounce.
	Debounce, MaxDelay time.Duration
	// Rescan asks for a reload this often regardless of events; 0 disables.
	Rescan time.Duration
	// Signals delivers SIGHUP (the caller wires signal.Notify); nil for none.
	Signals <-chan os.Signal
	// OnError hears about directories that cannot be watched and watcher
	// errors; watching goes on (the rescan still covers them). nil ignores.
	OnError func(error)
}

// maxReportedPaths bounds Trigger.Paths: a git checkout can touch thousands.
const maxReportedPaths = 8

// Run watches until ctx ends, calling reload for each request, one at a time.
func Run(ctx context.Context, cfg Config, reload func(Trigger)) error {
	if cfg.Debounce <= 0 {
		cfg.Debounce = 250 * time.Millisecond
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 20 * cfg.Debounce
	}
	onError := cfg.OnError
	if onError == nil {
		onError = func(error) {}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()

	roots := make([]string, len(cfg.Recursive))
	for i, r := range cfg.Recursive {
		roots[i] = filepath.Clean(r)
		addTree(w, roots[i], onError)
	}
	// Events name the directories as they were added: a symlinked root is
	// walked, and so reported, where it points.
	under := slices.Clone(roots)
	for _, r := range roots {
		if resolved, err := filepath.EvalSymlinks(r); err == nil && resolved != r {
			under = append(under, resolved)
		}
	}
	for _, d := range cfg.Flat {
		if err := w.Add(d); err != nil {
			onError(err)
		}
	}

	var rescan <-chan time.Time
	if cfg.Rescan > 0 {
		t := time.NewTicker(cfg.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	db := debouncer{quiet: cfg.Debounce, max: cfg.MaxDelay}
	var changed []string
	arm := func() {
		timer.Reset(time.Until(db.due()))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Op == fsnotify.Chmod {
				continue // touch and editors' attribute writes change no byte
			}
			if ev.Has(fsnotify.Create) && (underAny(ev.Name, under) || slices.Contains(roots, filepath.Clean(ev.Name))) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					// A new app directory, a checkout's, or a root swapped in
					// by renaming a symlink over it.
					addTree(w, ev.Name, onError)
					if resolved, err := filepath.EvalSymlinks(ev.Name); err == nil && !slices.Contains(under, resolved) {
						under = append(under, resolved)
					}
				}
			}
			if len(changed) < maxReportedPaths && !slices.Contains(changed, ev.Name) {
				changed = append(changed, ev.Name)
			}
			db.event(time.Now())
			arm()
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			onError(err)
		case <-timer.C:
			if !db.pending() {
				continue
			}
			db.fire()
			paths := changed
			changed = nil
			reload(Trigger{Reason: "files changed", Paths: paths})
		case <-rescan:
			reload(Trigger{Reason: "rescan"})
		case sig, ok := <-cfg.Signals:
			if !ok {
				cfg.Signals = nil
				continue
			}
			// An operator's explicit request covers whatever was pending.
			db.fire()
			timer.Stop()
			changed = nil
			reload(Trigger{Reason: sig.String(), Force: true})
		}
	}
}

// addTree watches dir (where it points, when it is a symlink) and every
// directory below it, except hidden ones (.git churns on every git command; a
// Kubernetes volume's ..data swap shows up as events in the root, which is
// watched).
func addTree(w *fsnotify.Watcher, dir string, onError func(error)) {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			onError(err)
			if d == nil || d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.Add(p); err != nil {
			onError(err)
		}
		return nil
	})
	if err != nil {
		onError(err)
	}
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

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

// Kind is how a target is watched.
type Kind int

const (
	// Tree is a directory watched with every non-hidden directory below it:
	// a file whose name Match accepts changing, and a directory appearing or
	// going, are changes. The root may not exist yet, and may be a symbolic
	// link that is swapped (git-sync, a Kubernetes volume): its parent is
	// watched for it.
	Tree Kind = iota
	// Dir is a directory watched alone: a file in it whose name Match
	// accepts changing is a change.
	Dir
	// File is one file: it, or a Kubernetes-style ..data link beside it,
	// changing is a change.
	File
)

// Target is one thing watched for changes.
type Target struct {
	Path string
	Kind Kind
	// Match says which file names under a Tree or Dir are inputs; nil takes
	// every name.
	Match func(name string) bool
	// Tag names the target in the triggers it causes (Trigger.Tags), so a
	// caller can tell which of its inputs changed.
	Tag string
}

// Trigger is one reload request.
type Trigger struct {
	Reason string   // "files changed", "rescan" or the signal's name
	Paths  []string // a few of the paths that changed, for the log
	Tags   []string // the tags of the targets that changed, each once
	Force  bool     // rebuild even if the inputs hash as before (an operator asked)
	Rescan bool     // the periodic rescan: read every input again, trusting no cache
}

// Has reports whether tag is among the trigger's tags.
func (t Trigger) Has(tag string) bool { return slices.Contains(t.Tags, tag) }

// Config says what to watch and how.
type Config struct {
	Targets []Target
	// Debounce is the quiet period after the last event before a reload is
	// asked for; default 250ms. MaxDelay caps the wait after the first event;
	// default 20 × Debounce.
	Debounce, MaxDelay time.Duration
	// Rescan asks for a reload this often regardless of events; 0 disables.
	Rescan time.Duration
	// Signals delivers SIGHUP (the caller wires signal.Notify); nil for none.
	Signals <-chan os.Signal
	// Retry, when set, is asked after each reload whether it should be
	// tried again after the debounce (a file caught half-written); the
	// retry is a trigger of its own, reason "retry".
	Retry func() bool
	// OnError hears about directories that cannot be watched and watcher
	// errors; watching goes on (the rescan still covers them). nil ignores.
	OnError func(error)
	// Watching, when set, is called once every target is watched: a
	// change made after it is seen.
	Watching func()
	// Ignored, when set, hears of each file event that asks for no reload
	// (a file beside the inputs that is not one), with the path it names,
	// once the event is judged.
	Ignored func(path string)
}

// maxReportedPaths bounds Trigger.Paths: a git checkout can touch thousands.
const maxReportedPaths = 8

// kubernetesData is the link a Kubernetes ConfigMap or Secret volume swaps to
// update its files at once: the files themselves never change.
const kubernetesData = "..data"

// Run watches until ctx ends, calling reload for each request, one at a time.
// Events on files that are not inputs (a log file beside a tree, an editor's
// swap file) are ignored.
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
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	w := &watcher{fw: fw, onError: onError, dirs: map[string]bool{}}
	for _, t := range cfg.Targets {
		w.add(t)
	}
	if cfg.Watching != nil {
		cfg.Watching()
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
	var paths, tags []string
	retry := false
	fire := func(t Trigger) {
		reload(t)
		if cfg.Retry != nil && cfg.Retry() {
			// Caught mid-write: try again once things are quiet.
			retry = true
			db.event(time.Now())
			timer.Reset(time.Until(db.due()))
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			tag, relevant := w.event(ev)
			if !relevant {
				if cfg.Ignored != nil {
					cfg.Ignored(ev.Name)
				}
				continue
			}
			if len(paths) < maxReportedPaths && !slices.Contains(paths, ev.Name) {
				paths = append(paths, ev.Name)
			}
			if !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
			db.event(time.Now())
			timer.Reset(time.Until(db.due()))
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			onError(err)
		case <-timer.C:
			if !db.pending() {
				continue
			}
			db.fire()
			t := Trigger{Reason: "files changed", Paths: paths, Tags: tags}
			if len(paths) == 0 && retry {
				t.Reason = "retry"
			}
			paths, tags, retry = nil, nil, false
			fire(t)
		case <-rescan:
			fire(Trigger{Reason: "rescan", Rescan: true, Tags: w.allTags()})
		case sig, ok := <-cfg.Signals:
			if !ok {
				cfg.Signals = nil
				continue
			}
			// An operator's explicit request covers whatever was pending.
			db.fire()
			timer.Stop()
			paths, tags, retry = nil, nil, false
			fire(Trigger{Reason: sig.String(), Force: true, Tags: w.allTags()})
		}
	}
}

// watcher knows what every watched directory stands for.
type watcher struct {
	fw      *fsnotify.Watcher
	onError func(error)
	targets []Target
	dirs    map[string]bool // directories watched under a Tree, by path
	// roots are the Tree roots as given and as they resolve now: events
	// name directories as they were added, and a symlinked root is walked
	// where it points.
	roots []treeRoot
}

type treeRoot struct {
	target   *Target
	path     string // as given, cleaned
	resolved string // where it pointed when last walked
}

func (w *watcher) add(t Target) {
	t.Path = filepath.Clean(t.Path)
	w.targets = append(w.targets, t)
	tp := &w.targets[len(w.targets)-1]
	switch t.Kind {
	case Tree:
		// The parent sees the root appear (before git-sync's first clone
		// it does not exist) and a symlinked root swapped.
		w.watch(filepath.Dir(t.Path))
		r := treeRoot{target: tp, path: t.Path}
		r.resolved = w.addTree(t.Path)
		w.roots = append(w.roots, r)
	case Dir:
		w.watch(t.Path)
	case File:
		w.watch(filepath.Dir(t.Path))
	}
}

func (w *watcher) watch(dir string) {
	if err := w.fw.Add(dir); err != nil {
		w.onError(err)
	}
}

// addTree watches dir (where it points, when it is a symlink) and every
// directory below it, except hidden ones (.git churns on every git command),
// and returns where it points.
func (w *watcher) addTree(dir string) string {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if !os.IsNotExist(err) {
				w.onError(err)
			}
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
		if err := w.fw.Add(p); err != nil {
			w.onError(err)
			return nil
		}
		w.dirs[p] = true
		return nil
	})
	if err != nil {
		w.onError(err)
	}
	return dir
}

// event says whether an event changes an input, and which target's.
func (w *watcher) event(ev fsnotify.Event) (tag string, relevant bool) {
	if ev.Op == fsnotify.Chmod {
		return "", false // touch and editors' attribute writes change no byte
	}
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	// A tree root itself, in its parent: it appeared, or was swapped.
	for i := range w.roots {
		r := &w.roots[i]
		if name == r.path || (base == kubernetesData && dir == filepath.Dir(r.path)) {
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Rename) {
				r.resolved = w.addTree(r.path)
			}
			return r.target.Tag, true
		}
	}
	// Under a tree root. What the tree does not take may still be another
	// target's: the owners registry usually sits in the tree it describes.
	for i := range w.roots {
		r := &w.roots[i]
		if !under(name, r.path) && !under(name, r.resolved) {
			continue
		}
		if base == kubernetesData && (dir == r.path || dir == r.resolved) {
			// A ConfigMap mounted as the tree root: its files are links
			// through ..data, which the kubelet swaps to update them.
			return r.target.Tag, true
		}
		if strings.HasPrefix(base, ".") {
			break
		}
		if ev.Has(fsnotify.Create) {
			if info, err := os.Stat(name); err == nil && info.IsDir() {
				w.addTree(name) // a new app directory, or a checkout's
				return r.target.Tag, true
			}
		}
		if w.dirs[name] && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
			delete(w.dirs, name) // an app directory gone
			return r.target.Tag, true
		}
		if match(r.target.Match, base) {
			return r.target.Tag, true
		}
		break
	}
	for _, t := range w.targets {
		switch t.Kind {
		case Dir:
			if dir == t.Path && (match(t.Match, base) || base == kubernetesData) {
				return t.Tag, true
			}
		case File:
			if name == t.Path || (dir == filepath.Dir(t.Path) && base == kubernetesData) {
				return t.Tag, true
			}
		}
	}
	return "", false
}

func match(m func(string) bool, name string) bool { return m == nil || m(name) }

// allTags are the tags of every target: what a rescan or a signal covers.
func (w *watcher) allTags() []string {
	var out []string
	for _, t := range w.targets {
		if !slices.Contains(out, t.Tag) {
			out = append(out, t.Tag)
		}
	}
	return out
}

func under(p, root string) bool {
	return root != "" && strings.HasPrefix(p, root+string(filepath.Separator))
}

package snapshot

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
)

// gcPercent reads the collector's GOGC setting, which only writing one can.
func gcPercent() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

func TestCollectOften(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name          string
		before, while int
		panics        bool
	}{
		{"default", 100, 50, false},
		{"operator's", 300, 150, false},
		{"low", 1, 1, false},
		{"off stays off", -1, -1, false},
		{"restored after a panic", 100, 50, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(tt.before)
			var during int
			func() {
				defer func() {
					if r := recover(); (r != nil) != tt.panics {
						t.Errorf("recovered %v, want a panic: %v", r, tt.panics)
					}
				}()
				done := collectOften()
				defer done()
				defer done() // a second call changes nothing
				during = gcPercent()
				if tt.panics {
					panic("build failed")
				}
			}()
			if during != tt.while {
				t.Errorf("GOGC during: %d, want %d", during, tt.while)
			}
			if after := gcPercent(); after != tt.before {
				t.Errorf("GOGC after: %d, want it back at %d", after, tt.before)
			}
		})
	}
}

// TestCollectOftenOverlapping: builds that overlap halve the setting once
// and leave it as it was when the last one ends, though the first to start
// ends first.
func TestCollectOftenOverlapping(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.SetGCPercent(200)
	firstIn, firstOut, firstDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	secondIn, secondOut, secondDone := make(chan int), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(firstDone)
		defer collectOften()()
		close(firstIn)
		<-firstOut
	}()
	<-firstIn
	go func() {
		defer close(secondDone)
		defer collectOften()()
		secondIn <- gcPercent()
		<-secondOut
		secondIn <- gcPercent()
	}()
	if got := <-secondIn; got != 100 {
		t.Errorf("GOGC with two builds running: %d, want 100, halved once", got)
	}
	close(firstOut)
	<-firstDone
	secondOut <- struct{}{}
	if got := <-secondIn; got != 100 {
		t.Errorf("GOGC once the first build ended: %d, want 100 while the second runs", got)
	}
	<-secondDone
	if got := gcPercent(); got != 200 {
		t.Errorf("GOGC after both: %d, want 200", got)
	}
}

// TestReloadCollectsOften: a reload's build runs with GOGC halved, the first
// load (nothing served, so one snapshot live) with it as it was; a reload
// leaves it as it found it, rejected or not, and has collected the snapshot
// it replaced. The loader's clock is
// read around the build and, when it passes, inside it: that is where the
// test looks.
func TestReloadCollectsOften(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	dir := testfs.Tree(t, map[string]string{"apps/meters/governance.yaml": baseYAML})
	var seen []int
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}}, Now: func() time.Time {
		seen = append(seen, gcPercent())
		return time.Now()
	}}
	store := NewStore(loader)
	gov := filepath.Join(dir, "apps", "meters", "governance.yaml")
	steps := []struct {
		name    string
		content string
		want    Outcome
		lowest  int // the lowest GOGC the clock saw; 0: not asked (a rejected build reads no clock)
	}{
		{"first load", baseYAML, Activated, 100},
		{"an edit", strings.Replace(baseYAML, "access_level: internal", "access_level: open", 1), Activated, 50},
		{"a broken edit", "defaults: {access_level: publik}\nsources: {}\n", Rejected, 0},
	}
	for _, s := range steps {
		if err := os.WriteFile(gov, []byte(s.content), 0o644); err != nil {
			t.Fatal(err)
		}
		seen = seen[:0]
		var collected atomic.Bool
		if old := store.Current(); old != nil {
			runtime.AddCleanup(old, func(b *atomic.Bool) { b.Store(true) }, &collected)
		}
		if st := store.Reload(true); st.Outcome != s.want {
			t.Fatalf("%s: outcome %v (%v), want %v", s.name, st.Outcome, st.Err, s.want)
		}
		if s.lowest != 0 && (len(seen) == 0 || slices.Min(seen) != s.lowest) {
			t.Errorf("%s: GOGC seen by the clock %v, want %d at the lowest", s.name, seen, s.lowest)
		}
		if got := gcPercent(); got != 100 {
			t.Errorf("%s: GOGC after the reload %d, want 100", s.name, got)
		}
		// Cleanups run on a goroutine of their own after the collection
		// that found the object dead; Reload's own collection is that one.
		if s.name != "first load" && s.want == Activated {
			for i := 0; i < 200 && !collected.Load(); i++ {
				time.Sleep(time.Millisecond)
			}
			if !collected.Load() {
				t.Errorf("%s: the replaced snapshot was not collected by the reload", s.name)
			}
		}
	}
}

// TestReloadCollectsAfterLargeRebuilds: a reload that rebuilt a quarter of
// the units or more forces a collection; one that rebuilt one app of five,
// or nothing, leaves its small garbage to the collector's own pace.
func TestReloadCollectsAfterLargeRebuilds(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 5, Sources: 100, Seed: 3})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}, Owners: []string{filepath.Join(dir, "owners.yaml")}, OverlayName: "deploy"}})
	forced := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumForcedGC
	}
	edit := func(app string) func() {
		return func() { testfs.Replace(t, dir, "apps/"+app+"/governance.yaml", "sources:", "# edited\nsources:") }
	}
	steps := []struct {
		name    string
		change  func()
		built   int
		collect bool
	}{
		{"first load", func() {}, 5, false}, // nothing served: no old snapshot
		{"nothing changed", func() {}, 0, false},
		{"one app of five", edit("app_001"), 1, false},
		{"two apps of five", func() { edit("app_002")(); edit("app_003")() }, 2, true},
		{"every owner edited", func() {
			testfs.ReplaceAll(t, dir, "owners.yaml", "name: Organisation ", "name: Organization ")
		}, 5, true},
	}
	for _, s := range steps {
		s.change()
		before := forced()
		st := store.Reload(true)
		if st.Outcome != Activated || st.UnitsBuilt != s.built {
			t.Fatalf("%s: outcome %v (%v), %d units built, want activated and %d", s.name, st.Outcome, st.Err, st.UnitsBuilt, s.built)
		}
		if got := forced() > before; got != s.collect {
			t.Errorf("%s: forced a collection: %v, want %v", s.name, got, s.collect)
		}
	}
}

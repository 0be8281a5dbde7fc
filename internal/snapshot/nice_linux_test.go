package snapshot

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// niceness is the calling thread's nice value (the raw getpriority system call
// answers 20 - nice).
func niceness() int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		return -100
	}
	return 20 - p
}

// TestRunNicedLowersOnlyTheBuildThread: a reload's build runs niced, and the
// priority does not leak to the thread that asked for it (a reader's, later).
func TestRunNicedLowersOnlyTheBuildThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := niceness()
	if before == -100 {
		t.Skip("getpriority is not available")
	}
	var inside int
	runNiced(time.Minute, func() { inside = niceness() })
	if inside < reloadNice {
		t.Errorf("build thread nice %d, want at least %d", inside, reloadNice)
	}
	if after := niceness(); after != before {
		t.Errorf("caller's nice %d after the build, was %d", after, before)
	}
}

// TestRunNicedLendsAProcessor: the build runs with one P more than the
// readers have, and the readers' count is back once it ends.
func TestRunNicedLendsAProcessor(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var inside int
	runNiced(time.Minute, func() { inside = runtime.GOMAXPROCS(0) })
	if inside != before+1 {
		t.Errorf("GOMAXPROCS during the build %d, want %d", inside, before+1)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after the build %d, was %d", after, before)
	}
}

// TestRunNicedTakesTheProcessorBack: a build that outlasts lendFor gives the
// lent P back while it still runs, so that a build starved by a busy machine
// still finishes.
func TestRunNicedTakesTheProcessorBack(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var late int
	runNiced(10*time.Millisecond, func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.GOMAXPROCS(0) != before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		late = runtime.GOMAXPROCS(0)
	})
	if late != before {
		t.Errorf("GOMAXPROCS still %d after lendFor, want %d", late, before)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after the build %d, was %d", after, before)
	}
}

// TestRunNicedLendsNothingForZero: a build too short to matter to the
// readers gets no processor of its own.
func TestRunNicedLendsNothingForZero(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var inside int
	runNiced(0, func() { inside = runtime.GOMAXPROCS(0) })
	if inside != before {
		t.Errorf("GOMAXPROCS during a build lent nothing %d, want %d", inside, before)
	}
}

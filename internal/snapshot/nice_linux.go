package snapshot

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// reloadNice is the scheduling niceness of a reload's build thread. On a small
// machine a build that competes with the readers as an equal took half their
// processor time and quintupled their p99; niced, it takes what they leave.
const reloadNice = 10

// runNiced runs f on an OS thread of its own at a lower priority. Linux sets
// niceness per thread; the thread is never unlocked, so it exits with the
// goroutine and its priority never leaks to other goroutines.
//
// The build also gets a processor (a P) of its own, for up to lendFor (none
// when lendFor is 0). A
// goroutine running Go code holds one of GOMAXPROCS Ps whatever its thread's
// priority: on a two-core machine the readers were left one P for the whole
// build and served half their requests a second (docs/performance.md). With
// one P more they keep all of theirs, and the kernel's priorities decide who
// runs. Under a load that takes every core, that starves the niced build, so
// the lent P is taken back after lendFor: from then on the build holds one of
// the readers' Ps as before, and a reload always finishes.
func runNiced(lendFor time.Duration, f func()) {
	if lendFor > 0 {
		restore := sync.OnceFunc(lendProcessor())
		defer restore()
		timer := time.AfterFunc(lendFor, restore)
		defer timer.Stop()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), reloadNice)
		f()
	}()
	<-done
}

// lendProcessor raises GOMAXPROCS by one and returns what restores it: the
// runtime's own default (which follows the container's CPU limit) unless the
// GOMAXPROCS variable fixed it. Reloads run one at a time (Store.mu).
func lendProcessor() (restore func()) {
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n + 1)
	return func() {
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.SetDefaultGOMAXPROCS()
		} else {
			runtime.GOMAXPROCS(n)
		}
	}
}

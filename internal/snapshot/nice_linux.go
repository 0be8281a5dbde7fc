package snapshot

import (
	"runtime"
	"syscall"
)

// reloadNice is the scheduling niceness of a reload's build thread. On a small
// machine a build that competes with the readers as an equal took half their
// processor time and quintupled their p99; niced, it takes what they leave.
const reloadNice = 10

// runNiced runs f on an OS thread of its own at a lower priority. Linux sets
// niceness per thread; the thread is never unlocked, so it exits with the
// goroutine and its priority never leaks to other goroutines.
func runNiced(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), reloadNice)
		f()
	}()
	<-done
}

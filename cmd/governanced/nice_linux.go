package main

import (
	"runtime"
	"syscall"
)

// reloadNice is the scheduling niceness of a reload's build thread: readers
// are served at the normal priority, and a build takes what they leave.
const reloadNice = 10

// runNiced runs a reload's build on an OS thread of its own at a lower
// priority. Linux sets niceness per thread; the thread is never unlocked,
// so it exits with the goroutine and its priority never reaches another.
func runNiced(build func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), reloadNice)
		build()
	}()
	<-done
}

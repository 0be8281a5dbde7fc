//go:build unix

package testfs

import (
	"syscall"
	"testing"
)

// NeedFiles raises the process's soft limit on open files to n when it is
// lower, for the test's duration, or skips the test when the hard limit
// does not allow n: a test holding thousands of connections holds both
// ends of each.
func NeedFiles(t testing.TB, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("reading the open-file limit: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Skipf("the test needs %d open files; the hard limit is %d", n, lim.Max)
	}
	old := lim.Cur
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("raising the open-file limit to %d: %v", n, err)
	}
	t.Cleanup(func() {
		lim.Cur = old
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	})
}

//go:build !unix

package testfs

import "testing"

// NeedFiles skips the test: only Unix has an open-file limit to read.
func NeedFiles(t testing.TB, n uint64) {
	t.Helper()
	t.Skipf("the test needs %d open files, and only Unix says how many there may be", n)
}

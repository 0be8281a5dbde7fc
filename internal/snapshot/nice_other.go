//go:build !linux

package snapshot

// runNiced runs f; thread priorities are set on Linux only.
func runNiced(f func()) { f() }

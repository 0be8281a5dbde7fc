//go:build unix

package main

import "syscall"

// openFileLimit is the process's limit on open files (the soft limit, which
// Go raises to the hard one at start), or 0 when it cannot be read.
func openFileLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return lim.Cur
}

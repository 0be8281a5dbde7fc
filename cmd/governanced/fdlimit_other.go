//go:build !unix

package main

// openFileLimit is 0, unknown: only Unix has one to read.
func openFileLimit() uint64 { return 0 }

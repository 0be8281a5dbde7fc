//go:build !linux

package main

// runNiced runs a reload's build as it is: lowering one thread's priority is
// Linux's.
func runNiced(build func()) { build() }

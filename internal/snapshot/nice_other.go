//go:build !linux

package snapshot

import "time"

// runNiced runs f; thread priorities are set on Linux only.
func runNiced(_ time.Duration, f func()) { f() }

package snapshot

import (
	"runtime/debug"
	"sync"
)

// collectOften halves the collector's GOGC until the returned function is
// called, which puts back what it was (the operator's GOGC, or the default).
//
// A reload holds the snapshot being served and the one being built at once,
// and the collector lets the heap grow to twice what it last found live
// before it collects again: so a full rebuild's peak came to 1.85–1.98 times
// the steady RSS, against a target of at most twice. Collecting twice as
// often while a reload builds, and once more after the swap before the pace
// goes back when the reload rebuilt much (Store.Reload), keeps the peak
// lower, at the cost of more
// collections during the build, which since the rules' origins lost their
// pointers cost half what they did (BenchmarkCollectGenerated). A collector
// the operator switched off (GOGC=off, with a memory limit) is left off.
func collectOften() (done func()) {
	pace.Lock()
	if pace.builds == 0 {
		// SetGCPercent is the only way to read the setting, and it writes
		// one: the default stands in for the instant between the calls.
		pace.was = debug.SetGCPercent(100)
		if pace.was > 0 {
			debug.SetGCPercent(max(pace.was/2, 1))
		} else {
			debug.SetGCPercent(pace.was)
		}
	}
	pace.builds++
	pace.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			pace.Lock()
			if pace.builds--; pace.builds == 0 {
				debug.SetGCPercent(pace.was)
			}
			pace.Unlock()
		})
	}
}

// pace: the setting is process-wide, and so is what collectOften keeps:
// builds that overlap (two stores) halve it once, and the last to finish
// puts it back.
var pace struct {
	sync.Mutex
	builds int // reloads between collectOften and its done
	was    int // the setting before the first of them
}

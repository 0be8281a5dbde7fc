// Package testmem measures the memory a piece of work holds, for tests
// that bound it: a budget is held when the peak stays under it, whatever
// the work allocates and frees on the way.
package testmem

import (
	"runtime"
	"sync/atomic"
	"time"
)

// PeakHeap runs f and returns the most heap in use while it ran, above
// what was in use before. It samples every few milliseconds: a peak
// shorter than that may go unseen.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

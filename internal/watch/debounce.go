package watch

import "time"

// debouncer decides when a burst of events has settled: quiet after the last
// event, but never later than max after the first, so a directory that never
// stops changing still gets reloaded.
type debouncer struct {
	quiet, max  time.Duration
	first, last time.Time // zero when nothing is pending
}

// event records an event at now.
func (d *debouncer) event(now time.Time) {
	if d.first.IsZero() {
		d.first = now
	}
	d.last = now
}

// pending reports whether events wait for a reload.
func (d *debouncer) pending() bool { return !d.first.IsZero() }

// due is when the pending events should fire.
func (d *debouncer) due() time.Time {
	t := d.last.Add(d.quiet)
	if limit := d.first.Add(d.max); t.After(limit) {
		return limit
	}
	return t
}

// fire clears the pending events.
func (d *debouncer) fire() { d.first, d.last = time.Time{}, time.Time{} }

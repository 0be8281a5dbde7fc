// Package snapshot is the served tree: everything a request needs, computed once
// per revision of the inputs and then never changed.
//
// A Snapshot holds the materialised units the tree check produced (each app's base
// merged with its overlay, ownership names resolved against the merged owners
// registry), the check report, the indexes for global resolution and listing,
// per-field provenance, the pipeline dependency graph (graph.go), and response
// bodies, each encoded once and kept (rule bodies when first asked for). A Store
// publishes one Snapshot at a time through an atomic pointer: a reload builds a
// complete new Snapshot to the side and swaps it in, so a reader sees one
// revision or the next, never a mix; a reload whose check fails leaves the last
// good Snapshot serving and records why. The graph's findings never fail a
// reload: they are warnings, counted for /status and /metrics.
//
// The check the service runs is the tree check of `governanced validate`
// (check.NewPlan and check.CheckUnit, the steps of check.Run), so what is
// served is what was checked.
//
// It is domain-side: no HTTP, no logging, no metrics. It returns values and
// errors, and keeps counters a caller may export; the edges (api/, cmd/) decide
// how to log, count and present them.
package snapshot

// Package check is the tree check behind `governanced validate` (check.md): it
// takes the governance files, overlays and owners registries a deployment names,
// checks each file alone, merges every base with its overlay exactly as the
// service will serve it, and reports every problem it finds as a located
// finding with a code and a severity.
//
// Before this gate every failure was quiet — a file that did not load was
// skipped, a path matching nothing checked fewer files, a misspelled row-filter
// handler read as no filter, a dataset with no row policy was served whole
// (ADR-0005). The check therefore never stops at the first problem and never
// returns an error for anything found in the files: an error from
// CheckGovernance is only a usage error.
//
// The report also carries, unserialised, the materialised units (base merged
// with its overlay, ownership names resolved) and the merged owners registry,
// so that a server builds what it serves from exactly what was checked.
//
// A server checks the same tree on every reload; with Options.Memo a check
// takes every unit whose inputs did not change from the previous one
// (ADR-0004), so a reload costs what changed.
//
// The package needs nothing beyond the YAML reader, the governance model, the
// owners registry and the schemas (ADR-0005's thin-core constraint): no HTTP,
// logging or metrics.
package check

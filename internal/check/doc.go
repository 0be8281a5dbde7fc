// Package check is the tree check behind `governanced validate` (check.md): it
// takes the governance files, overlays and owners registries a deployment
// names, checks each file alone, merges every base with its overlay exactly as
// the service will serve it, and reports every problem it finds as a located
// finding with a code and a severity.
//
// Without such a gate every failure is quiet — a file that does not load is
// skipped, a path matching nothing checks fewer files, a misspelled row-filter
// handler reads as no filter, a dataset with no row policy is served whole
// (seed ADR-0005). The check therefore never stops at the first problem and
// never returns an error for anything found in the files: an error from Run is
// only a usage error (or the caller's context ending).
//
// A check has three steps, each a function:
//
//   - NewPlan reads the inputs from a file system (io/fs: the operating
//     system's files, an upload in memory, the embedded demo) and sorts them
//     into units: a base, the overlays that apply to it, and the shared
//     inputs (the owners registry, the placeholder map, --dataspace).
//   - CheckUnit checks one unit from those inputs alone and returns its
//     findings and its materialised configuration (base merged with its
//     overlay, owner names resolved). It reads nothing but the unit, so equal
//     units give equal results: a server that keeps the results of unchanged
//     units (internal/snapshot) reuses them by comparing inputs.
//   - Plan.Report puts the plan's and the units' findings into the report.
//
// Run is the three in a row, the units in parallel: what `governanced
// validate` and POST /validate run.
//
// A new rule about one document goes in document.go (documentRules); a rule
// about what a unit serves in rules.go (unitChecker.unitRules). Both see only
// the unit's files and Env.
//
// The package needs nothing beyond the YAML reader, the governance model, the
// owners registry and the schemas: no HTTP, logging or metrics.
package check

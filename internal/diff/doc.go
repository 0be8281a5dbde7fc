// Package diff answers the question a reviewer of a governance pull request
// has: what changes for the data once it merges? It compares two trees as
// they would be served — every base merged with its overlay, ownership
// names resolved against the owners registry — and lists, per app and
// dataset key, what was added, removed or resolves differently, the derived
// changes a reviewer must not miss (a dataset newly offered into the
// dataspace, a row policy dropped, an access level lowered, …), and the
// findings the head tree's check gains or loses.
//
// The input is two materialised trees (Tree): the apps a tree check built
// (check.CheckUnit's Config per unit), the units it could not build, and its
// report. The package does not build them: internal/snapshot does, for the
// server (the served snapshot is one side, an upload checked beside it the
// other, reusing the served units) and for the CLI (the head checked reusing
// the base's units). Keeping the construction out lets the comparison be a
// pure function of two values, tested on trees a test builds with the check
// alone.
//
// # What is compared
//
// Datasets are keyed by app and sources key: two apps declaring the same
// key are two datasets, and a key moved from one app to another is removed
// from the first and added to the second. For each key of either side, the
// name is resolved inside its app on both sides as the library resolves it
// (the exact key, else the longest glob): a key present on one side only
// may still resolve on the other through a glob, and then it is compared
// with that glob's rule. A name whose resolved rule is the same on both
// sides is no change, whichever key it resolves through: renaming a glob
// that keeps its rule changes nothing for the data. A glob key stands for
// the names it matches through its own text.
//
// Rules are compared field by field over their served JSON (the set-field
// view of governance-format.md §13), descending into dcat, dcat.temporal,
// ontology, dataspace and extra — the paths the service's provenance names
// — so that every change carries the file and line of the head tree that
// states the new value. Values are compared as JSON values: key order in a
// mapping is no change, list order is. The field changes of a dataset are
// complete: applying them to the base's resolved rule gives the head's
// (FuzzCompare holds the package to it).
//
// Two apps holding the same *governance.Config are equal without being
// looked at: a build that reuses unchanged units hands the same one, which
// is what makes a diff of two large trees differing in one app cost about
// that app.
//
// The package is domain-side: no HTTP, logging or metrics.
package diff

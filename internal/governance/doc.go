// Package governance is the governance.yaml format: the rule model that knows
// which fields a file stated and where (provenance, down to nested paths and
// extra keys, through every merge), parsing with the reference's coercions,
// merging (blocks and whole documents, deployer overlays), resolution of a
// dataset name by exact key or longest fnmatch glob, the two exposure gates,
// level normalisation, the OpenLineage facet projection, and loading from
// files.
//
// It is the one definition of what a governance file means. It imports nothing
// but the standard library and the project's YAML reader (the thin-core
// contract, ADR-0001): no HTTP, no logging, no metrics. Problems are returned as
// values and errors for the caller to present.
package governance

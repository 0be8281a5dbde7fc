// Package owners is the owner registry (owners.yaml): loading one registry or
// materialising several, the lookups the catalogue and the tree check use (by
// id with alias fallback, by DID or URL, the canonical URI), the precedence
// rules between ids and aliases, and resolving the ownership names of
// governance rules to owner ids (owners.md).
//
// It returns values, warnings and errors; it does not log, count or serve
// anything. Warnings (a duplicate id, an alias that shadows an id, an alias two
// owners claim) come back as structured Warning values naming file and line, for
// the caller to present.
//
// It is not the JSON Schema (see schemas and internal/schema) and it does not
// decide which datasets' owners must resolve — that is the tree check's rule.
package owners

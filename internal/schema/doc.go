// Package schema checks YAML documents against governanced's JSON Schemas
// (package schemas) the way the reference library does (validation.md):
// every violation, never just the first, each with the file, line and column
// of the offending value, its path from the root (keys and indices), and the
// reference's message — "'x' is not one of ['open', …]" — ordered by path
// component as the reference orders them.
//
// It validates the YAML tree itself, not a JSON re-encoding of it, so values
// keep the types PyYAML gave them: an unquoted 2024-01-01 is a timestamp and
// fails "type: string"; 30.0 is an integer; yes is a boolean; non-string keys
// are left out where Python's validator cannot take them. Formats are never
// asserted. The library underneath is santhosh-tekuri/jsonschema/v6 (ADR 0002).
//
// CheckDocument adds the unknown-key step for governance documents: schema
// violations fail, unknown keys warn (returned as values) or fail under strict.
//
// It is not the tree check: pairing bases with overlays, owners rules and the
// report formats live in internal/check, which builds on Violations and the
// nested-block check of Schema.ViolationsAt.
package schema

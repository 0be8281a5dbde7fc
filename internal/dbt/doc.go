// Package dbt reads dbt artifacts — manifest.json (schema v10–v12) and
// catalog.json (catalog/v1) — and builds from a pull request's base and head
// artifacts the level-1 changeset the policy engine evaluates
// (shared/spec/policy-gate.md §8): change kinds from catalog column sets and
// normalised compiled SQL, model-granular reach from the manifest graph and
// exposures, provable test breaks from base tests that survive into head, and
// each node's merged meta (plus its governance rule, given a
// policy.GovernanceLookup).
//
// It has no SQL parser: it never claims a column-level mechanism or an
// "equivalent" semantic, and leaves both unknown so the engine treats them
// fail-safe. Level 2 (column lineage) is out of its scope.
package dbt

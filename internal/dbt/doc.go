// Package dbt reads dbt artifacts — manifest.json (schema v10–v12) and
// catalog.json (catalog/v1) — and builds from a pull request's base and head
// artifacts the changeset the policy engine evaluates (policy-gate.md §8),
// with each node's merged meta (plus its governance rule, given a
// policy.GovernanceLookup) and provable test breaks from base tests that
// survive into head.
//
// Build is level 1 (§8.4–§8.7): change kinds from catalog column sets and
// normalised compiled SQL, model-granular reach from the manifest graph; it
// never claims a mechanism or an "equivalent" semantic. BuildLevel2 is level
// 2 (§8.8): it reads every relevant model's compiled SQL with package
// lineage, so that only the columns whose derivation or row set changed are
// subjects, each classified, and reach follows column edges with a mechanism
// each. Graph answers the same lineage questions for one project (the
// `governanced lineage` command). Models whose SQL cannot be read, or whose
// lineage is over its budget (lineage.Budget), fall back to level 1,
// visibly; a changeset's reach is bounded too (Inputs.ReachBudget). Both
// builders stop with the context's error when their context ends.
package dbt

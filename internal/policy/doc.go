// Package policy is the dbt pull-request policy gate: it loads a policy file
// (predicate → action rules over dbt meta, change kinds, the breaking signal and
// lineage reach), reads the changeset a pull request produced, and evaluates one
// against the other into a verdict — block, warn or allow, a selective build and
// test set, and notification intents — rendered as JSON or as a Markdown section.
//
// The behaviour is specified in policy-gate.md; section numbers in comments
// (§5.3, D-21, …) refer to it.
//
// The engine is a pure function of (policy, changeset): no clock, no network, no
// environment, no logging; it only stops early, with the context's error, when
// the context it is given ends. Everything that can be decided from the policy text
// is rejected at load time with a stable error code (*Error), so a broken policy
// fails loudly instead of turning into a fail-closed block at run time.
//
// It is not the changeset builder (package dbt turns dbt artifacts into a
// Changeset), not an HTTP handler, and not a governance resolver: governance
// rules reach the engine only through the GovernanceLookup interface.
package policy

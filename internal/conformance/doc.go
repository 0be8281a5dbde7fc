// Package conformance runs the language-neutral conformance cases of
// testdata/conformance (or GOVERNANCE_CONFORMANCE_DIR) against governanced's domain
// packages. It has no non-test code beyond this comment: the cases are the spec,
// and the test is the only consumer.
package conformance

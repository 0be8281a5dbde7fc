// Package arch holds tests about the shape of the code rather than its
// behaviour, such as the thin-core contract: the domain packages import only
// the standard library, the YAML reader and the JSON Schema validator. It has
// no non-test code.
package arch

// Package api is governanced's HTTP layer: NewServer turns a snapshot Store
// into an http.Handler serving the contract of http-api.md, described by the
// embedded OpenAPI document (openapi.yaml).
//
// Every route is registered in routes.go, and chi routes every request;
// each resource has its own file, and each handler is a few lines over the
// domain: read the current snapshot, look something up, and return the
// answer (a result) or an error, which respond (answer.go) writes, the one
// place an answer is. The bodies of the tree's answers are encoded here
// (bodies.go), once where they are the same for every request. Responses
// that depend on the tree carry the revision (in the body where the body is
// governanced's own envelope, and always in the Governance-Revision header)
// and an ETag; errors are RFC 9457 problem details. Middleware gives every
// request an id, a structured log line and its metrics.
//
// It is not where governance semantics live: resolution, merging, exposure,
// the facet and the tree check are the domain packages', and a handler never
// re-implements them.
package api

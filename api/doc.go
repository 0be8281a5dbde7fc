// Package api is governanced's HTTP layer: NewServer turns a snapshot Store
// into an http.Handler serving the contract of http-api.md, described by the
// embedded OpenAPI document (openapi.yaml).
//
// Every route is registered in routes.go; each resource has its own file,
// and each handler is a few lines over the domain: read the current
// snapshot, look something up, write bytes the snapshot encoded once.
// Responses that depend on the tree carry the revision (in the body where the
// body is governanced's own envelope, and always in the Governance-Revision
// header) and an ETag; errors are RFC 9457 problem details. Middleware gives
// every request an id, a structured log line and its metrics.
//
// It is not where governance semantics live: resolution, merging, exposure,
// the facet and the tree check are the domain packages', and a handler never
// re-implements them.
package api

// Package schemas holds the JSON Schemas governanced publishes — governance,
// governance-overlay, owners and facet — as the exact documents it serves at
// GET /schemas/{name} and validates with.
//
// The schemas are a published contract (draft-07, validation.md §4 and facet.md
// §5): consumers validate historical lineage events and deployed files against
// them, so a change is a new schema, never a quiet edit of one of these files.
// They are embedded in the binary and never read from a path beside the
// executable.
//
// This package only stores the documents. Validating a YAML document against
// them, with positions and the reference's error wording, is internal/schema.
package schemas

package owners

import (
	"bytes"
	"encoding/json"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// DefaultType is an entry's type when the file does not state one.
const DefaultType = "schema:Organization"

// Entry is one owner of the registry (owners.md §2).
type Entry struct {
	ID      string   // the lookup key a governance file's ownership name says
	Type    string   // schema.org class CURIE; DefaultType when unstated
	Name    *string  // display name; nil when unstated or null
	Role    *string  // role with respect to the data
	DID     *string  // did:web identifier
	URL     *string  // canonical homepage
	Aliases []string // alternative lookup keys, as written (never nil)

	// Organization is the Keycloak provisioning block, read from organization
	// or, when that key is absent, organization_config; nil when neither is
	// present or the value is null.
	Organization *Organization

	// The dataspace identity registry's keys (owners.md §3.2), kept exactly as
	// written: the loader does not type-check them (the schema does) and no
	// lookup uses them. Nil when absent.
	Status, VerifiedBy, EvidenceRef, CollectsConsent, Dataspace *yaml11.Node

	File string     // the registry file the entry was read from
	Pos  yaml11.Pos // where the entry starts

	aliasPos []yaml11.Pos // position of each alias, for warnings
}

// Organization is an entry's Keycloak provisioning block (owners.md §3.1).
type Organization struct {
	Create     bool        // provision a Keycloak organisation
	Role       *string     // the organisation's platform role (attributes.type)
	Attributes []Attribute // set beside the role, in written order (never nil)
}

// Attribute is one organization attribute.
type Attribute struct {
	Key, Value string
}

// CanonicalURI is the entry's published identifier: its DID when non-empty,
// else its URL when non-empty; ok is false when it has neither.
func (e *Entry) CanonicalURI() (uri string, ok bool) {
	if e.DID != nil && *e.DID != "" {
		return *e.DID, true
	}
	if e.URL != nil && *e.URL != "" {
		return *e.URL, true
	}
	return "", false
}

// Unplaced is a copy of the entry without where it was written: File, Pos
// and its aliases' positions cleared. What follows from an owner (a resolved
// name, whether it has a DID, a facet) depends on what the entry says, not on
// its line, and a caller that must not depend on the line (the check's
// unit, whose answers a reload compares to reuse it) asks through this copy.
func (e *Entry) Unplaced() *Entry {
	c := *e
	c.File, c.Pos, c.aliasPos = "", yaml11.Pos{}, nil
	return &c
}

// HasKeycloakOrganization reports whether the entry's organisation block is
// present with create set.
func (e *Entry) HasKeycloakOrganization() bool {
	return e.Organization != nil && e.Organization.Create
}

// HasDID reports whether the entry carries a DID: a non-empty top-level did, or
// a non-empty string dataspace.did (owners.md §7: what a narrowed dataspace
// offer needs).
func (e *Entry) HasDID() bool {
	if e.DID != nil && *e.DID != "" {
		return true
	}
	d := e.Dataspace.Get("did")
	return d != nil && d.Kind == yaml11.String && d.Str != ""
}

// MarshalJSON renders the entry as GET /owners serves it (owners.md §5): id,
// type, aliases, then name, role, did and url when stated, organization when
// present, then the identity-registry keys present, in that order.
func (e *Entry) MarshalJSON() ([]byte, error) {
	var o object
	o.field("id", e.ID)
	o.field("type", e.Type)
	o.field("aliases", e.Aliases)
	for _, f := range []struct {
		k string
		v *string
	}{{"name", e.Name}, {"role", e.Role}, {"did", e.DID}, {"url", e.URL}} {
		if f.v != nil {
			o.field(f.k, *f.v)
		}
	}
	if e.Organization != nil {
		o.field("organization", e.Organization)
	}
	for _, f := range []struct {
		k string
		v *yaml11.Node
	}{{"status", e.Status}, {"verified_by", e.VerifiedBy}, {"evidence_ref", e.EvidenceRef},
		{"collects_consent", e.CollectsConsent}, {"dataspace", e.Dataspace}} {
		if f.v != nil {
			o.field(f.k, f.v)
		}
	}
	return o.bytes()
}

// MarshalJSON renders {create, role?, attributes}, role only when stated and
// attributes in written order.
func (g *Organization) MarshalJSON() ([]byte, error) {
	var o object
	o.field("create", g.Create)
	if g.Role != nil {
		o.field("role", *g.Role)
	}
	var attrs object
	for _, a := range g.Attributes {
		attrs.field(a.Key, a.Value)
	}
	b, err := attrs.bytes()
	if err != nil {
		return nil, err
	}
	o.field("attributes", json.RawMessage(b))
	return o.bytes()
}

// object writes a JSON object with keys in the order given.
type object struct {
	buf bytes.Buffer
	err error
}

func (o *object) field(k string, v any) {
	if o.err != nil {
		return
	}
	kb, err := marshal(k)
	if err != nil {
		o.err = err
		return
	}
	vb, err := marshal(v)
	if err != nil {
		o.err = err
		return
	}
	if o.buf.Len() == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	o.buf.Write(kb)
	o.buf.WriteByte(':')
	o.buf.Write(vb)
}

func (o *object) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

package conformance

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/owners"
)

func init() {
	operations["owners_lookup"] = opOwnersLookup
	errorClassifiers = append(errorClassifiers, classifyOwners)
}

// classifyOwners names the errors of internal/owners.
func classifyOwners(err error) string {
	var oe *owners.Error
	if errors.As(err, &oe) {
		switch oe.Kind {
		case owners.NotFound:
			return "not_found"
		case owners.Malformed:
			return "malformed_input"
		case owners.Invalid:
			return "validation_error"
		}
	}
	var ue *owners.UnresolvedError
	if errors.As(err, &ue) {
		return "value_error"
	}
	return ""
}

// caseEntry is an Entry as the conformance cases write it: every field, absent
// values null.
type caseEntry struct {
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Name         *string  `json:"name"`
	Role         *string  `json:"role"`
	DID          *string  `json:"did"`
	URL          *string  `json:"url"`
	Aliases      []string `json:"aliases"`
	Organization *caseOrg `json:"organization"`
}

type caseOrg struct {
	Create     bool              `json:"create"`
	Role       *string           `json:"role"`
	Attributes map[string]string `json:"attributes"`
}

func toCaseEntry(e *owners.Entry) *caseEntry {
	if e == nil {
		return nil
	}
	ce := &caseEntry{ID: e.ID, Type: e.Type, Name: e.Name, Role: e.Role, DID: e.DID, URL: e.URL, Aliases: e.Aliases}
	if o := e.Organization; o != nil {
		ce.Organization = &caseOrg{Create: o.Create, Role: o.Role, Attributes: map[string]string{}}
		for _, a := range o.Attributes {
			ce.Organization.Attributes[a.Key] = a.Value
		}
	}
	return ce
}

func opOwnersLookup(t *testing.T, c *Case) (any, error) {
	dir := c.WriteInputs(t)
	reg, err := owners.Load(filepath.Join(dir, filepath.FromSlash(c.StringArg("registry"))), owners.Options{})
	if err != nil {
		return nil, err
	}
	queries := func(name string) []string {
		var qs []string
		if c.HasArg(name) {
			if err := c.Arg(name, &qs); err != nil {
				t.Fatal(err)
			}
		}
		return qs
	}
	res := map[string]any{"len": reg.Len()}
	ids := []string{}
	for _, e := range reg.All() {
		ids = append(ids, e.ID)
	}
	res["ids"] = ids
	aliases := map[string]string{}
	for _, a := range reg.Aliases() {
		aliases[a.Alias] = a.ID
	}
	res["aliases"] = aliases
	byID := map[string]*caseEntry{}
	for _, q := range queries("by_id") {
		byID[q] = toCaseEntry(reg.ByID(q))
	}
	res["by_id"] = byID
	canon := map[string]*string{}
	for _, q := range queries("canonical_uri") {
		if uri, ok := reg.CanonicalURI(q); ok {
			canon[q] = &uri
		} else {
			canon[q] = nil
		}
	}
	res["canonical_uri"] = canon
	byURI := map[string]*caseEntry{}
	for _, q := range queries("by_uri") {
		byURI[q] = toCaseEntry(reg.ByURI(q))
	}
	res["by_uri"] = byURI
	contains := map[string]bool{}
	for _, q := range queries("contains") {
		contains[q] = reg.Contains(q)
	}
	res["contains"] = contains
	return res, nil
}

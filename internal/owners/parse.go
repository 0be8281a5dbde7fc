package owners

import (
	"fmt"
	"strconv"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// parseDocument reads the entries of a loaded owners document (owners.md §2):
// the root must be a mapping (an empty document already reads as one); a
// missing or null owners key means no entries. The first value that does not
// fit, in file order, fails the whole document.
func parseDocument(root *yaml11.Node, file string) ([]*Entry, error) {
	if root.Kind != yaml11.Map {
		return nil, &Error{Kind: Malformed, File: file, Pos: root.Pos,
			Msg: fmt.Sprintf("an owners registry must be a mapping with an owners list, got %s", yaml11.Describe(root))}
	}
	list := root.Get("owners")
	if list == nil || list.Kind == yaml11.Null {
		return nil, nil
	}
	if list.Kind != yaml11.Seq {
		return nil, invalid(file, list, "owners", "must be a list of owner entries, got %s", yaml11.Describe(list))
	}
	entries := make([]*Entry, 0, len(list.Items))
	for i, item := range list.Items {
		e, err := parseEntry(item, file, "owners/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func parseEntry(n *yaml11.Node, file, path string) (*Entry, error) {
	if n.Kind != yaml11.Map {
		return nil, invalid(file, n, path, "an owner entry must be a mapping, got %s", yaml11.Describe(n))
	}
	e := &Entry{Type: DefaultType, Aliases: []string{}, File: file, Pos: n.Pos}
	if !n.Has("id") {
		return nil, invalid(file, n, path, "an owner entry needs an id")
	}
	orgKey := "organization_config"
	if n.Has("organization") {
		orgKey = "organization" // even when null: organization_config is then ignored
	}
	for _, p := range n.Pairs {
		if p.Key.Kind != yaml11.String {
			continue // not a field; the schema rejects it
		}
		v, at := p.Value, path+"/"+p.Key.Str
		var err error
		switch p.Key.Str {
		case "id":
			if v.Kind != yaml11.String {
				return nil, invalid(file, v, at, "must be a string, got %s", yaml11.Describe(v))
			}
			e.ID = v.Str
		case "type":
			if v.Kind != yaml11.String {
				return nil, invalid(file, v, at, "must be a string, got %s", yaml11.Describe(v))
			}
			e.Type = v.Str
		case "name":
			e.Name, err = optString(file, v, at)
		case "role":
			e.Role, err = optString(file, v, at)
		case "did":
			e.DID, err = optString(file, v, at)
		case "url":
			e.URL, err = optString(file, v, at)
		case "aliases":
			err = parseAliases(e, file, v, at)
		case "organization", "organization_config":
			if p.Key.Str == orgKey {
				e.Organization, err = parseOrganization(file, v, at)
			}
		case "status":
			e.Status = v
		case "verified_by":
			e.VerifiedBy = v
		case "evidence_ref":
			e.EvidenceRef = v
		case "collects_consent":
			e.CollectsConsent = v
		case "dataspace":
			e.Dataspace = v
		}
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

func parseAliases(e *Entry, file string, v *yaml11.Node, at string) error {
	if v.Kind != yaml11.Seq {
		return invalid(file, v, at, "must be a list of strings, got %s", yaml11.Describe(v))
	}
	for i, it := range v.Items {
		if it.Kind != yaml11.String {
			return invalid(file, it, at+"/"+strconv.Itoa(i), "an alias must be a string, got %s", yaml11.Describe(it))
		}
		e.Aliases = append(e.Aliases, it.Str)
		e.aliasPos = append(e.aliasPos, it.Pos)
	}
	return nil
}

func parseOrganization(file string, v *yaml11.Node, at string) (*Organization, error) {
	switch v.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.Map:
	default:
		return nil, invalid(file, v, at, "must be a mapping, got %s", yaml11.Describe(v))
	}
	o := &Organization{Attributes: []Attribute{}}
	for _, p := range v.Pairs {
		if p.Key.Kind != yaml11.String {
			continue
		}
		f, fat := p.Value, at+"/"+p.Key.Str
		switch p.Key.Str {
		case "create":
			b, ok := governance.CoerceBool(f)
			if !ok {
				return nil, invalid(file, f, fat, "must be a boolean, got %s", yaml11.Describe(f))
			}
			o.Create = b
		case "role":
			r, err := optString(file, f, fat)
			if err != nil {
				return nil, err
			}
			o.Role = r
		case "attributes":
			if f.Kind != yaml11.Map {
				return nil, invalid(file, f, fat, "must be a mapping of strings, got %s", yaml11.Describe(f))
			}
			for _, a := range f.Pairs {
				if a.Key.Kind != yaml11.String {
					return nil, invalid(file, a.Key, fat, "an attribute name must be a string, got %s", yaml11.Describe(a.Key))
				}
				if a.Value.Kind != yaml11.String {
					return nil, invalid(file, a.Value, fat+"/"+a.Key.Str, "an attribute value must be a string, got %s", yaml11.Describe(a.Value))
				}
				o.Attributes = append(o.Attributes, Attribute{a.Key.Str, a.Value.Str})
			}
		}
	}
	return o, nil
}

// optString reads a string field that accepts null. Numbers, booleans and
// timestamps are never turned into text (governance-format.md §4.7).
func optString(file string, v *yaml11.Node, at string) (*string, error) {
	switch v.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.String:
		s := v.Str
		return &s, nil
	}
	return nil, invalid(file, v, at, "must be a string, got %s", yaml11.Describe(v))
}

func invalid(file string, at *yaml11.Node, path, format string, args ...any) *Error {
	return &Error{Kind: Invalid, File: file, Pos: at.Pos, Path: path, Msg: fmt.Sprintf(format, args...)}
}

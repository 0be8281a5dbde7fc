package owners

import (
	"fmt"
	"slices"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// Registry is a built owner registry: ids, aliases and URIs in separate maps,
// an id always winning over an alias (owners.md §4.2). A Registry is immutable
// and safe for concurrent use.
type Registry struct {
	owners   []*Entry          // effective entries, by first occurrence of each id
	byID     map[string]*Entry // id → its last entry
	byAlias  map[string]*Entry // alias → the entry that registered it
	aliases  []string          // aliases in registration order
	byURI    map[string]*Entry // non-empty did/url → last entry registering it
	warnings []Warning
}

// Lookup is what owner-name resolution needs (owners.md §5): ByID returns the
// entry for an id or alias, or nil. A Registry is one.
type Lookup interface {
	ByID(key string) *Entry
}

// Alias is one registered alias and the id of the owner it resolves to.
type Alias struct {
	Alias, ID string
}

// Build builds a registry from entries in file order (owners.md §4.2):
//
//  1. ids: a later entry with an id already seen takes the id over (a
//     duplicate-id warning); owners keep the position of each id's first
//     occurrence and hold its last;
//  2. aliases, only once every id is known, walking every entry — including a
//     taken-over one — and its aliases in order: an alias equal to any id is
//     ignored (warning); an alias already registered to a different id keeps its
//     first claimant (warning naming both); otherwise it is registered to this
//     entry;
//  3. URIs: each entry's non-empty did, then url; a later registration wins.
//
// A taken-over entry's aliases and URIs therefore still resolve — to it (a
// reference quirk, kept; a materialised registry never has one, see
// Materialise).
func Build(entries []*Entry) *Registry {
	r := &Registry{
		byID:    make(map[string]*Entry, len(entries)),
		byAlias: map[string]*Entry{},
		byURI:   map[string]*Entry{},
	}
	pos := map[string]int{}
	for _, e := range entries {
		if i, dup := pos[e.ID]; dup {
			r.warn(WarnDuplicateID, e.File, e.Pos, "Duplicate owner id '%s' — later entry wins", e.ID)
			r.owners[i] = e
		} else {
			pos[e.ID] = len(r.owners)
			r.owners = append(r.owners, e)
		}
		r.byID[e.ID] = e
	}
	for _, e := range entries {
		for i, a := range e.Aliases {
			at := e.Pos
			if i < len(e.aliasPos) {
				at = e.aliasPos[i]
			}
			if _, isID := r.byID[a]; isID {
				r.warn(WarnAliasShadowsID, e.File, at, "Owner alias '%s' (from '%s') shadows an owner id — ignoring the alias", a, e.ID)
				continue
			}
			if first, taken := r.byAlias[a]; taken {
				if first.ID != e.ID {
					r.warn(WarnAliasClaimed, e.File, at, "Owner alias '%s' claimed by both '%s' and '%s' — keeping '%s'", a, first.ID, e.ID, first.ID)
					continue
				}
			} else {
				r.aliases = append(r.aliases, a)
			}
			r.byAlias[a] = e
		}
	}
	for _, e := range entries {
		if e.DID != nil && *e.DID != "" {
			r.byURI[*e.DID] = e
		}
		if e.URL != nil && *e.URL != "" {
			r.byURI[*e.URL] = e
		}
	}
	return r
}

func (r *Registry) warn(code, file string, at yaml11.Pos, format string, args ...any) {
	r.warnings = append(r.warnings, Warning{Code: code, File: file, Pos: at, Msg: fmt.Sprintf(format, args...)})
}

// ByID returns the owner whose id is key, else the owner the alias key is
// registered to, else nil. Comparison is exact and case-sensitive.
func (r *Registry) ByID(key string) *Entry {
	if r == nil {
		return nil
	}
	if e, ok := r.byID[key]; ok {
		return e
	}
	return r.byAlias[key]
}

// ByURI returns the owner registered under a DID or URL, or nil.
func (r *Registry) ByURI(uri string) *Entry { return r.byURI[uri] }

// CanonicalURI is ByID(key)'s DID when non-empty, else its URL when non-empty;
// ok is false when there is no such owner or it has neither.
func (r *Registry) CanonicalURI(key string) (uri string, ok bool) {
	e := r.ByID(key)
	if e == nil {
		return "", false
	}
	return e.CanonicalURI()
}

// All returns every owner once, in order of each id's first occurrence.
func (r *Registry) All() []*Entry { return slices.Clone(r.owners) }

// Aliases returns every registered alias with the id it resolves to, in
// registration order (for diagnostics).
func (r *Registry) Aliases() []Alias {
	out := make([]Alias, len(r.aliases))
	for i, a := range r.aliases {
		out[i] = Alias{Alias: a, ID: r.byAlias[a].ID}
	}
	return out
}

// Len is the number of owners — never the number of lookup keys.
func (r *Registry) Len() int { return len(r.owners) }

// Contains reports whether key resolves to an owner by id or alias.
func (r *Registry) Contains(key string) bool { return r.ByID(key) != nil }

// Warnings returns what building (and loading) the registry warned about, in
// the order it happened.
func (r *Registry) Warnings() []Warning { return slices.Clone(r.warnings) }

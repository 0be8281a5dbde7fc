package owners

import (
	"fmt"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// PlaceRule is the place name of a lone rule in unresolved-owner reports.
const PlaceRule = "<rule>"

// Unresolved is an ownership name that resolves to no owner, and every place
// it was declared ("defaults", "sources/<key>", PlaceRule), in encounter order.
type Unresolved struct {
	Name  string
	Where []string
}

// UnresolvedError is strict resolution failing (owners.md §6.4): every
// unresolved name with every place it was declared. It is a value error.
type UnresolvedError struct {
	Names []Unresolved
}

// Error is "unresolved owner name(s):" then one "  - <name>: <where>, …" line
// per name, in first-encounter order.
func (e *UnresolvedError) Error() string {
	var b strings.Builder
	b.WriteString("unresolved owner name(s):")
	for _, u := range e.Names {
		fmt.Fprintf(&b, "\n  - %s: %s", u.Name, strings.Join(u.Where, ", "))
	}
	return b.String()
}

// ResolveName resolves one ownership name (owners.md §6.2): an owner id stays
// as it is (an id wins over a placeholder of the same name); else a
// placeholder whose target (an id or an alias, never another placeholder)
// finds an owner becomes that owner's id; else an alias becomes its owner's id.
// ok is false, and name is returned as written, when nothing resolves — a
// placeholder whose target finds nothing falls through to the alias step.
func ResolveName(name string, owners Lookup, placeholders map[string]string) (id string, ok bool) {
	if owners == nil {
		return name, false
	}
	e := owners.ByID(name)
	if e != nil && e.ID == name {
		return name, true
	}
	if target, isPlaceholder := placeholders[name]; isPlaceholder {
		if pe := owners.ByID(target); pe != nil {
			return pe.ID, true
		}
	}
	if e != nil {
		return e.ID, true
	}
	return name, false
}

// ResolveOwnership returns a copy of rule whose ownership names are resolved
// (owners.md §6.3): each item by ResolveName, type kept as written, then items
// whose (name, type) equals an earlier item's removed. Every other field, and
// whether ownership was stated, is kept; rule itself is not modified.
//
// strict is the caller's statement (there is no default): with strict, any
// unresolved name fails with an *UnresolvedError; without, each is kept as
// written and returned as a warning.
func ResolveOwnership(rule *governance.Rule, owners Lookup, strict bool, placeholders map[string]string) (*governance.Rule, []Warning, error) {
	rs := resolver{owners: owners, placeholders: placeholders}
	out := rs.rule(rule, place{name: PlaceRule})
	if err := rs.finish(strict); err != nil {
		return nil, nil, err
	}
	return out, rs.warnings, nil
}

// ResolveConfigOwnership resolves the defaults and every sources entry of a
// configuration — after any overlay was merged, never per file — collecting
// unresolved names across all of them before strict decides (owners.md §6.5).
// It returns a new configuration; active, depends_on and the sources order are
// unchanged and cfg is not modified.
func ResolveConfigOwnership(cfg *governance.Config, owners Lookup, strict bool, placeholders map[string]string) (*governance.Config, []Warning, error) {
	rs := resolver{owners: owners, placeholders: placeholders}
	out := cfg.WithRules(rs.shared(cfg.Defaults, place{name: "defaults"}), func(_ int, s governance.Source) *governance.Rule {
		return rs.shared(s.Rule, place{name: "sources/", key: s.Key})
	})
	if err := rs.finish(strict); err != nil {
		return nil, nil, err
	}
	return out, rs.warnings, nil
}

// UnresolvedOwners reports every ownership name of a configuration that
// resolves to nothing, with the places it was declared: names in
// first-encounter order (defaults, then sources in order, items in order).
// It only reports; it never fails.
func UnresolvedOwners(cfg *governance.Config, owners Lookup, placeholders map[string]string) []Unresolved {
	rs := resolver{owners: owners, placeholders: placeholders}
	rs.rule(cfg.Defaults, place{name: "defaults"})
	for _, s := range cfg.Sources {
		rs.rule(s.Rule, place{name: "sources/", key: s.Key})
	}
	return rs.unresolved
}

type resolver struct {
	owners       Lookup
	placeholders map[string]string
	unresolved   []Unresolved
	warnings     []Warning
	noted        int // names found unresolved, at any place
	// resolved holds the lists shared resolved with nothing unresolved,
	// by the list resolved: the rules of a configuration share their
	// ownership lists (governance.Values), so one resolution, and one
	// resolved list, serves every rule stating the same list.
	resolved map[*[]governance.Owner]*[]governance.Owner
	scratch  []governance.Owner // ownership's, reused from list to list
}

// place is where a rule is, as an unresolved name's warning says it: name
// followed by key. It is joined only for a warning, not for every rule.
type place struct{ name, key string }

func (p place) String() string { return p.name + p.key }

func (rs *resolver) rule(r *governance.Rule, where place) *governance.Rule {
	if r == nil {
		return nil
	}
	if len(r.Ownership()) == 0 {
		return r.WithOwnership(r.OwnershipList()) // a copy, its list (stated empty, or none) as r's
	}
	// The copy's list is its own, as it was before ownership shared r's
	// when nothing changed: clipped, an append to it cannot write into r's.
	l := slices.Clip(rs.ownership(r, where))
	return r.WithOwnership(&l)
}

// ownership resolves a rule's ownership items, noting names that resolve to
// nothing.
//
// The list is resolved into the resolver's scratch list, and when it is the
// list as written (every name an id already, no item repeated: the common
// case) r's own is returned, so that only a list resolution changes is
// made anew.
func (rs *resolver) ownership(r *governance.Rule, where place) []governance.Owner {
	written := r.Ownership()
	out := rs.resolve(written, func(name string) {
		rs.noted++
		rs.note(name, where, r.Origin(governance.FieldOwnership))
	})
	if slices.Equal(out, written) {
		return written
	}
	return slices.Clone(out)
}

// resolve is the list written resolved, in the resolver's scratch list
// (valid until the next call): each item's name by ResolveName, its type
// kept, then the items equal to an earlier one removed. unresolved is
// called with each name that resolves to nothing.
func (rs *resolver) resolve(written []governance.Owner, unresolved func(name string)) []governance.Owner {
	out := rs.scratch[:0]
	var seen map[governance.Owner]bool // for a long list; a short one is scanned
	if len(written) > 8 {
		seen = make(map[governance.Owner]bool, len(written))
	}
	for _, o := range written {
		id, ok := ResolveName(o.Name, rs.owners, rs.placeholders)
		if !ok {
			unresolved(o.Name)
		}
		resolved := governance.Owner{Name: id, Type: o.Type}
		if seen != nil && seen[resolved] || seen == nil && slices.Contains(out, resolved) {
			continue
		}
		if seen != nil {
			seen[resolved] = true
		}
		out = append(out, resolved)
	}
	rs.scratch = out
	return out
}

// ResolvesAs reports whether ResolveConfigOwnership of the configuration
// written would give each rule of served its ownership list: written(i) is
// the list as written of served's i-th sources entry (-1: the defaults),
// whose other fields are served's. It asks owners what
// ResolveConfigOwnership would, in the same order, and builds nothing: a
// server asks it of every unit at every edit of the registry, and most
// such edits leave every name resolving as before. It stops at the first
// rule that resolves otherwise.
func ResolvesAs(served *governance.Config, written func(i int) []governance.Owner, owners Lookup, placeholders map[string]string) bool {
	rs := resolver{owners: owners, placeholders: placeholders}
	same := func(i int, r *governance.Rule) bool {
		l := written(i)
		switch {
		case len(l) == 0:
			return true // never resolved: served as written
		case r == nil:
			return false
		}
		return slices.Equal(rs.resolve(l, func(string) {}), r.Ownership())
	}
	if !same(-1, served.Defaults) {
		return false
	}
	for i := range served.Sources {
		if !same(i, served.Sources[i].Rule) {
			return false
		}
	}
	return true
}

// shared is rule for a configuration: the rule itself when resolution leaves
// its ownership as written (names that are already ids, the common case), a
// resolved copy otherwise. Rules are immutable once parsed, so sharing is safe,
// and a copy of every rule of a large tree would be heap held for nothing.
func (rs *resolver) shared(r *governance.Rule, where place) *governance.Rule {
	if r == nil || len(r.Ownership()) == 0 {
		return r
	}
	written := r.OwnershipList()
	owners, known := rs.resolved[written]
	if !known {
		noted := rs.noted
		owners = written
		if l := rs.ownership(r, where); &l[0] != &(*written)[0] || len(l) != len(*written) {
			owners = &l // changed by resolution; else r's own list is returned
		}
		// A list with a name unresolved is resolved again at each place,
		// so that each place is noted.
		if rs.noted == noted {
			if rs.resolved == nil {
				rs.resolved = map[*[]governance.Owner]*[]governance.Owner{}
			}
			rs.resolved[written] = owners
		}
	}
	if owners == written {
		return r
	}
	return r.WithOwnership(owners)
}

// note records an unresolved name at a place, once per (name, place).
func (rs *resolver) note(name string, at place, origin governance.Origin) {
	where := at.String()
	i := 0
	for i < len(rs.unresolved) && rs.unresolved[i].Name != name {
		i++
	}
	if i == len(rs.unresolved) {
		rs.unresolved = append(rs.unresolved, Unresolved{Name: name})
	}
	u := &rs.unresolved[i]
	for _, w := range u.Where {
		if w == where {
			return
		}
	}
	u.Where = append(u.Where, where)
	w := Warning{Code: WarnUnresolvedOwner, Pos: yaml11.Pos{Line: int(origin.Line), Column: int(origin.Column)},
		Msg: fmt.Sprintf("unresolved owner name '%s' in %s — kept as written", name, where)}
	if origin.Layer != nil {
		w.File = origin.Layer.File
	}
	rs.warnings = append(rs.warnings, w)
}

func (rs *resolver) finish(strict bool) error {
	if strict && len(rs.unresolved) > 0 {
		return &UnresolvedError{Names: rs.unresolved}
	}
	if strict {
		rs.warnings = nil
	}
	return nil
}

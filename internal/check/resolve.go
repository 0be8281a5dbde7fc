package check

import (
	"cmp"
	"slices"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
)

// A unit's result is made of two parts. Most of it comes from the unit's
// own files and the shared inputs every unit reads the same (the
// placeholder map, --dataspace): the documents read, the document, schema
// and unit rules, the merge, what each dataset serves. The rest is what
// the owners registry answers: the ownership names of the dataspace
// offers checked against it (check.md §9.8) and every ownership name
// resolved. ResolveOwners computes the second part again from the first,
// so that a registry edited costs each unit that part only.

// ResolveOwners is CheckUnit(u) when prev is CheckUnit's result for a unit
// with the same files, placeholder map and --dataspace as u, checked
// against another registry (or the same one as it was before an edit):
// what the unit computes from its own files is taken from prev, what the
// registry answers is asked of u.Env.Owners again. The findings are the
// same, in another order (a report sorts them). prev is not modified; the
// result shares with it what did not change.
func ResolveOwners(u *Unit, prev *UnitResult) UnitResult {
	res := *prev
	if prev.Config == nil {
		return res // not materialised: nothing asked the registry
	}
	c := &unitChecker{env: u.Env}
	if u.Env.Owners != nil {
		c.owners = &ownersView{registry: u.Env.Owners}
		for _, i := range prev.Offered {
			gates := governance.MergeGates(prev.writtenRule(-1), prev.writtenRule(int(i)))
			c.ownerRules(&gates, c.sourceFinding(prev.Config, int(i)))
		}
	}
	// Most edits of the registry leave a unit's findings about it as they
	// were; the unit then keeps its list, which the report reads again,
	// rather than a copy of it for every unit at every reload.
	res.Findings = slices.Clip(prev.Findings)
	if !sameRegistryFindings(prev.Findings, c.findings) {
		own := slices.DeleteFunc(slices.Clone(prev.Findings), func(f Finding) bool { return registryCodes[f.Code] })
		res.Findings = append(own, c.findings...)
	}
	// Most edits of the registry leave every name resolving as before: the
	// served configuration then stands, found so without building another
	// (owners.ResolvesAs asks the registry what resolving would).
	if c.owners == nil || !owners.ResolvesAs(prev.Config, prev.writtenOwnership, c.owners, c.env.Placeholders) {
		res.Config, res.Rewritten = c.resolve(prev.written())
		if res.Config = keepResolved(prev.Config, res.Config); res.Config == prev.Config {
			res.Rewritten = prev.Rewritten
		}
	}
	res.OwnersAsked = nil
	if c.owners != nil {
		res.OwnersAsked = c.owners.asked
	}
	return res
}

// sameRegistryFindings reports whether the findings of fs that read the
// owners registry are fresh, in the same order and saying the same.
func sameRegistryFindings(fs, fresh []Finding) bool {
	k := 0
	for _, f := range fs {
		if !registryCodes[f.Code] {
			continue
		}
		if k == len(fresh) || !sameFinding(f, fresh[k]) || f.Message != fresh[k].Message {
			return false
		}
		k++
	}
	return k == len(fresh)
}

// keepResolved is cfg, a configuration resolved again from the same
// files as prev, with each rule whose ownership resolved as in prev
// replaced by prev's rule, and prev itself when every rule did. Resolution
// changes a rule's ownership list alone, so such a rule equals prev's; an
// edit of the registry that leaves a unit's names resolving as before (an
// owner's display name, a DID) then makes it no new rule, and whatever a
// server keeps by rule (the API's kept rule parts) is kept across the edit.
// cfg is changed in place: when it is not prev it is the resolution's own
// copy, or written's, shared with nothing.
func keepResolved(prev, cfg *governance.Config) *governance.Config {
	if cfg == prev || len(cfg.Sources) != len(prev.Sources) {
		return cfg
	}
	all := true
	if sameOwnership(cfg.Defaults, prev.Defaults) {
		cfg.Defaults = prev.Defaults
	} else {
		all = false
	}
	for i := range cfg.Sources {
		if sameOwnership(cfg.Sources[i].Rule, prev.Sources[i].Rule) {
			cfg.Sources[i].Rule = prev.Sources[i].Rule
		} else {
			all = false
		}
	}
	if all {
		return prev
	}
	return cfg
}

// sameOwnership reports whether two rules state the same ownership list,
// or both none.
func sameOwnership(a, b *governance.Rule) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	la, lb := a.OwnershipList(), b.OwnershipList()
	if la == nil || lb == nil {
		return la == lb
	}
	return slices.Equal(*la, *lb)
}

// registryCodes are the codes of the findings that read the owners
// registry: ownerRules' and nothing else's.
var registryCodes = map[string]bool{CodeOwnerUnresolved: true, CodeOwnerDIDMissing: true}

// resolve is the merged configuration with its ownership names resolved
// against the unit's registry, and the rules the resolution replaced.
func (c *unitChecker) resolve(merged *governance.Config) (*governance.Config, []WrittenOwnership) {
	var registry owners.Lookup
	if c.owners != nil {
		registry = c.owners
	}
	cfg := resolveOwnership(merged, registry, c.env.Placeholders)
	if cfg == merged {
		return cfg, nil
	}
	var rewritten []WrittenOwnership
	if cfg.Defaults != merged.Defaults {
		rewritten = append(rewritten, WrittenOwnership{Source: -1, Ownership: merged.Defaults.OwnershipList()})
	}
	for i := range merged.Sources {
		if cfg.Sources[i].Rule != merged.Sources[i].Rule {
			rewritten = append(rewritten, WrittenOwnership{Source: int32(i), Ownership: merged.Sources[i].Rule.OwnershipList()})
		}
	}
	// A copy of its size: a unit keeps it for as long as it is served.
	return cfg, slices.Clone(rewritten)
}

// writtenOwnership is the ownership list as written of Config's i-th
// sources entry (-1: the defaults): the one its resolution rewrote, or the
// served one.
func (r *UnitResult) writtenOwnership(i int) []governance.Owner {
	if l, ok := r.rewrittenList(i); ok {
		if l == nil {
			return nil
		}
		return *l
	}
	if rule := r.servedRule(i); rule != nil {
		return rule.Ownership()
	}
	return nil
}

// writtenRule is Config's i-th sources rule (-1: the defaults) as its
// files say it: with the ownership list its resolution rewrote put back.
func (r *UnitResult) writtenRule(i int) *governance.Rule {
	if l, ok := r.rewrittenList(i); ok {
		return r.servedRule(i).WithOwnership(l)
	}
	return r.servedRule(i)
}

func (r *UnitResult) servedRule(i int) *governance.Rule {
	if i < 0 {
		return r.Config.Defaults
	}
	return r.Config.Sources[i].Rule
}

// rewrittenList is the list as written of the i-th rule (-1: the
// defaults) when resolution rewrote it. Rewritten is in position order, as
// resolve makes it.
func (r *UnitResult) rewrittenList(i int) (*[]governance.Owner, bool) {
	k, ok := slices.BinarySearchFunc(r.Rewritten, int32(i), func(w WrittenOwnership, at int32) int { return cmp.Compare(w.Source, at) })
	if !ok {
		return nil, false
	}
	return r.Rewritten[k].Ownership, true
}

// written is the unit's configuration as its files say it: Config with the
// ownership lists its resolution rewrote put back (owners.ResolveOwnership
// changes nothing else of a rule).
func (r *UnitResult) written() *governance.Config {
	if len(r.Rewritten) == 0 {
		return r.Config
	}
	// WithRules: the copy must not share the resolved configuration's
	// cache of merged rules.
	return r.Config.WithRules(r.writtenRule(-1), func(i int, _ governance.Source) *governance.Rule {
		return r.writtenRule(i)
	})
}

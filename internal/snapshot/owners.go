package snapshot

import (
	"github.com/celine-eu/governanced/internal/owners"
)

// UnresolvedOwner is an ownership name of the served tree that resolves to
// no owner of the registry, with every place it is written.
type UnresolvedOwner struct {
	Name   string       `json:"name"`
	Places []OwnerPlace `json:"places"`
}

// OwnerPlace is where an unresolved name is written: the app, its base
// file, and the block ("defaults" or "sources/<key>").
type OwnerPlace struct {
	App   string `json:"app"`
	File  string `json:"file"`
	Where string `json:"where"`
}

// UnresolvedOwners are the ownership names of every served app that
// resolve to nothing (owners.md §6.3), as the library's unresolved_owners
// reports them: names in first-encounter order, apps by name. Worked out
// once per revision, when first asked for.
func (s *Snapshot) UnresolvedOwners() []UnresolvedOwner {
	s.unresolvedOnce.Do(func() {
		index := map[string]int{}
		for _, a := range s.apps {
			for _, u := range owners.UnresolvedOwners(a.Config, s.Owners, s.placeholders) {
				i, ok := index[u.Name]
				if !ok {
					i = len(s.unresolved)
					index[u.Name] = i
					s.unresolved = append(s.unresolved, UnresolvedOwner{Name: u.Name})
				}
				for _, where := range u.Where {
					s.unresolved[i].Places = append(s.unresolved[i].Places, OwnerPlace{App: a.Name, File: a.File, Where: where})
				}
			}
		}
		if s.unresolved == nil {
			s.unresolved = []UnresolvedOwner{}
		}
	})
	return s.unresolved
}

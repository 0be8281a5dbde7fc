package snapshot

import (
	"slices"
	"sync"

	"github.com/celine-eu/governanced/internal/governance"
)

// Owners are the owners d's served rule names: its sources entry's
// ownership when that lists any, else the defaults' (the merge's rule),
// without merging the rest of the rule. Each name is an owner id when it
// resolved against the registry, else the name as written.
func (d *Dataset) Owners() []governance.Owner {
	c := d.App.Config
	if d.pos < 0 {
		return c.Defaults.Ownership()
	}
	return governance.MergeOwnership(c.Defaults.Ownership(), c.Sources[d.pos].Rule.Ownership())
}

// ownedIndex maps every ownership name the served rules state to the
// datasets naming it, in listing order.
type ownedIndex struct {
	once  sync.Once
	by    map[string][]*Dataset
	names []string // sorted
}

// OwnedBy returns the datasets whose served rule names owner (an owner id,
// or a name no owner resolved), in listing order; callers must not modify
// it. The index is built when first asked for, once per revision: most
// revisions are never asked.
func (s *Snapshot) OwnedBy(owner string) []*Dataset { return s.owned().by[owner] }

// OwnershipNames are every name the served rules' ownership states, sorted;
// callers must not modify it.
func (s *Snapshot) OwnershipNames() []string { return s.owned().names }

func (s *Snapshot) owned() *ownedIndex {
	ix := &s.ownedIx
	ix.once.Do(func() {
		ix.by = map[string][]*Dataset{}
		for _, a := range s.apps {
			for j := range a.DatasetCount() {
				d := a.Dataset(j)
				for i, o := range d.Owners() {
					// A rule naming one owner twice lists the dataset once.
					if slices.ContainsFunc(d.Owners()[:i], func(p governance.Owner) bool { return p.Name == o.Name }) {
						continue
					}
					ix.by[o.Name] = append(ix.by[o.Name], d)
				}
			}
		}
		for name := range ix.by {
			ix.names = append(ix.names, name)
		}
		slices.Sort(ix.names)
	})
	return ix
}

package strindex

// Buckets groups entries under prefix strings and finds, for a name, every
// group whose prefix the name starts with: glob keys bucketed by their
// literal prefix, so that a lookup tries only the globs that can match.
// The entries of all groups sit in one array.
type Buckets[E any] struct {
	prefixes *PrefixSet
	entries  []E
	start    []int32 // group g is entries[start[g]:start[g+1]]
}

// BucketsBuilder collects the entries of Buckets.
type BucketsBuilder[E any] struct {
	group    map[string]int
	prefixes []string
	groups   [][]E
}

// Add puts e in the group of prefix.
func (b *BucketsBuilder[E]) Add(prefix string, e E) {
	g, ok := b.group[prefix]
	if !ok {
		if b.group == nil {
			b.group = map[string]int{}
		}
		g = len(b.groups)
		b.group[prefix] = g
		b.prefixes = append(b.prefixes, prefix)
		b.groups = append(b.groups, nil)
	}
	b.groups[g] = append(b.groups[g], e)
}

// Build returns the groups, each ordered by sort (stable: entries that
// compare equal keep the order they were added in).
func (b *BucketsBuilder[E]) Build(sort func([]E)) *Buckets[E] {
	out := &Buckets[E]{prefixes: NewPrefixSet(b.prefixes), start: make([]int32, 0, len(b.groups)+1)}
	for _, g := range b.groups {
		sort(g)
		out.start = append(out.start, int32(len(out.entries)))
		out.entries = append(out.entries, g...)
	}
	out.start = append(out.start, int32(len(out.entries)))
	return out
}

// Len is the number of entries in all groups.
func (b *Buckets[E]) Len() int { return len(b.entries) }

// Each calls yield with the group of every prefix name starts with, shortest
// prefix first, until yield returns false.
func (b *Buckets[E]) Each(name string, yield func(group []E) bool) {
	b.prefixes.Each(name, func(g int) bool {
		return yield(b.entries[b.start[g]:b.start[g+1]])
	})
}

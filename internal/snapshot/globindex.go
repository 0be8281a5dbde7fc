package snapshot

import (
	"slices"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
)

// globIndex answers global resolution for names no app declares: every glob
// key of every app, bucketed by its literal prefix (the text before the first
// metacharacter) and ordered longest first, so a lookup costs a few probes
// whatever the number of apps. Asking each app's own index in turn cost a map
// probe per app and prefix length: at 100 apps, a tenth of the server's
// processor time under the load script's mix (docs/performance.md).
type globIndex struct {
	buckets    map[string][]globEntry
	prefixLens []int // distinct prefix lengths in bytes, ascending
}

type globEntry struct {
	glob   *governance.Glob
	d      *Dataset
	length int // pattern length in code points: the longest match wins
	app    int // the app's position in the snapshot (apps by name)
	pos    int // the key's position in its app's sources: ties inside an app go to the earlier
}

func buildGlobIndex(apps []*App) *globIndex {
	ix := &globIndex{buckets: map[string][]globEntry{}}
	lens := map[int]bool{}
	for ai, a := range apps {
		for pos, src := range a.Config.Sources {
			if !governance.HasMeta(src.Key) {
				continue
			}
			prefix := globPrefix(src.Key)
			ix.buckets[prefix] = append(ix.buckets[prefix], globEntry{
				glob: governance.CompileGlob(src.Key), d: a.byKey[src.Key],
				length: utf8.RuneCountInString(src.Key), app: ai, pos: pos,
			})
			lens[len(prefix)] = true
		}
	}
	for _, b := range ix.buckets {
		slices.SortFunc(b, func(x, y globEntry) int {
			if x.length != y.length {
				return y.length - x.length
			}
			if x.app != y.app {
				return x.app - y.app
			}
			return x.pos - y.pos
		})
	}
	for l := range lens {
		ix.prefixLens = append(ix.prefixLens, l)
	}
	slices.Sort(ix.prefixLens)
	return ix
}

func globPrefix(key string) string {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '*', '?', '[':
			return key[:i]
		}
	}
	return key
}

// match returns what each app's own resolution would pick among its globs,
// for the apps whose pick is longest: the dataset when one app wins, else one
// dataset per tied app (its earliest key of that length), apps by name. Both
// are nil when no glob matches.
func (ix *globIndex) match(name string) (*Dataset, []*Dataset) {
	best := -1
	var first globEntry // the common case, one app: no allocation
	var more []globEntry
	consider := func(e globEntry) {
		if e.length > best {
			best, first, more = e.length, e, more[:0]
			return
		}
		if e.app == first.app {
			if e.pos < first.pos {
				first = e
			}
			return
		}
		for i := range more {
			if more[i].app == e.app {
				if e.pos < more[i].pos {
					more[i] = e
				}
				return
			}
		}
		more = append(more, e)
	}
	for _, l := range ix.prefixLens {
		if l > len(name) {
			break
		}
		for _, e := range ix.buckets[name[:l]] {
			if e.length < best {
				break // the rest of this bucket is shorter still
			}
			if e.glob.Match(name) {
				consider(e)
			}
		}
	}
	if best < 0 {
		return nil, nil
	}
	if len(more) == 0 {
		return first.d, nil
	}
	all := append([]globEntry{first}, more...)
	slices.SortFunc(all, func(x, y globEntry) int { return x.app - y.app })
	out := make([]*Dataset, len(all))
	for i, e := range all {
		out[i] = e.d
	}
	return nil, out
}

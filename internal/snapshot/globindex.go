package snapshot

import (
	"slices"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/strindex"
)

// globIndex answers global resolution for names no app declares: every glob
// key of every app, bucketed by its literal prefix (the text before the first
// metacharacter) and ordered longest first, so a lookup costs a few probes
// whatever the number of apps. Asking each app's own index in turn would cost
// a map probe per app and prefix length on every lookup a literal key misses.
type globIndex struct {
	globs *strindex.Buckets[globEntry] // by literal prefix, each bucket longest first
}

type globEntry struct {
	glob    *governance.Glob
	d       *Dataset
	length  int32 // pattern length in code points: the longest match wins
	app     int32 // the app's position in the snapshot (apps by name)
	pos     int32 // the key's position in its app's sources: ties inside an app go to the earlier
	anyRest bool  // the glob is its prefix and a *: a match without reading the glob
}

func buildGlobIndex(apps []*App) *globIndex {
	var globs strindex.BucketsBuilder[globEntry]
	for ai, a := range apps {
		for pos, src := range a.Config.Sources {
			if !governance.HasMeta(src.Key) {
				continue
			}
			g := governance.CompileGlob(src.Key)
			globs.Add(governance.LiteralPrefix(src.Key), globEntry{
				glob: g, d: a.Datasets[pos], length: int32(utf8.RuneCountInString(src.Key)),
				app: int32(ai), pos: int32(pos), anyRest: g.AnyRest(),
			})
		}
	}
	return &globIndex{globs: globs.Build(func(b []globEntry) {
		slices.SortFunc(b, func(x, y globEntry) int {
			if x.length != y.length {
				return int(y.length - x.length)
			}
			if x.app != y.app {
				return int(x.app - y.app)
			}
			return int(x.pos - y.pos)
		})
	})}
}

// match returns what each app's own resolution would pick among its globs,
// for the apps whose pick is longest: the dataset when one app wins, else one
// dataset per tied app (its earliest key of that length), apps by name. Both
// are nil when no glob matches.
func (ix *globIndex) match(name string) (*Dataset, []*Dataset) {
	best := int32(-1)
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
	ix.globs.Each(name, func(bucket []globEntry) bool {
		for _, e := range bucket {
			if e.length < best {
				break // the rest of this bucket is shorter still
			}
			if e.anyRest || e.glob.MatchAfterPrefix(name) {
				consider(e)
			}
		}
		return true
	})
	if best < 0 {
		return nil, nil
	}
	if len(more) == 0 {
		return first.d, nil
	}
	all := append([]globEntry{first}, more...)
	slices.SortFunc(all, func(x, y globEntry) int { return int(x.app - y.app) })
	out := make([]*Dataset, len(all))
	for i, e := range all {
		out[i] = e.d
	}
	return nil, out
}

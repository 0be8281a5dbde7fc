package treegen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Options size a tree.
type Options struct {
	Apps          int     // number of apps (default 10)
	Sources       int     // total sources across all apps (default 1000)
	GlobShare     float64 // share of source keys that are globs (0: 0.1; negative: none)
	OverlayShare  float64 // share of apps with a deployer overlay (0: 0.3; negative: none)
	OverlayName   string  // overlay file name part (default "deploy")
	Owners        int     // owners in the registry (default 20)
	Seed          uint64  // same seed, same tree
	RowFilterRate float64 // share of sources declaring row filters (0: 0.5; negative: none)
	// Description is the rough length in bytes of a folded description written
	// for every source (0: none). Real files describe their datasets in prose;
	// about 225 brings a tree to the Python baseline's ~470 bytes per source.
	Description int
	// DependsOn is the number of depends_on entries each app declares (0:
	// none, and the tree is byte for byte the one without it). They name
	// datasets of earlier apps, so the dependency graph is acyclic: literal
	// keys, schema globs (datasets.*_app_003_gold.…) as real consumers write
	// them, names only a glob key covers, globs matching a glob key's text,
	// and a tenth external datasets nothing produces. They come from a random
	// stream of their own, so the rest of the tree does not change with them.
	DependsOn int
}

// ScaleSizes are the source counts the scale benchmarks run at.
var ScaleSizes = []int{1_000, 10_000, 100_000}

// Scale are the options of the tree of n sources the scale benchmarks and
// the load script measure: 1 000 sources an app, a tenth globs, overlays
// beside 30% of the apps, an owners registry, and descriptions that bring
// a source to about 470 bytes, as in the real pipelines' files.
func Scale(n int) Options {
	return Options{Apps: max(1, n/1000), Sources: n, Seed: 1, Description: 225}
}

func (o Options) withDefaults() Options {
	if o.Apps <= 0 {
		o.Apps = 10
	}
	if o.Sources <= 0 {
		o.Sources = 1000
	}
	o.GlobShare = share(o.GlobShare, 0.1)
	o.OverlayShare = share(o.OverlayShare, 0.3)
	if o.OverlayName == "" {
		o.OverlayName = "deploy"
	}
	if o.Owners <= 0 {
		o.Owners = 20
	}
	o.RowFilterRate = share(o.RowFilterRate, 0.5)
	return o
}

// Tree is a generated tree: file contents by slash-separated relative path, and
// dataset names to query it with.
type Tree struct {
	Files map[string][]byte
	// ExactNames are literal source keys; GlobNames match a glob key and no
	// literal key; MissNames match nothing (they resolve to nothing
	// globally): one per literal key, that key with a suffix, so that a
	// lookup goes as far as a near miss can and a benchmark cycling through
	// them touches as much of the tree as one cycling through ExactNames.
	ExactNames, GlobNames, MissNames []string
	Options                          Options
}

// Bytes is the total size of the YAML files.
func (t *Tree) Bytes() int {
	n := 0
	for _, b := range t.Files {
		n += len(b)
	}
	return n
}

// Write writes the files under dir.
func (t *Tree) Write(dir string) error {
	paths := make([]string, 0, len(t.Files))
	for p := range t.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, t.Files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

var (
	layers   = []string{"bronze", "silver", "gold"}
	subjects = []string{"meters", "weather", "grid", "pv", "flex", "tariff", "forecast", "rooftop", "load", "price"}
	freqs    = []string{"15m", "hourly", "daily", "monthly"}
	levels   = []string{"open", "internal", "restricted"}
	classes  = []string{"green", "yellow", "red"}
	tagWords = []string{"energy", "gold", "silver", "aggregated", "raw", "forecast", "community", "public", "meters", "weather"}
)

// Generate builds a tree.
func Generate(opts Options) *Tree {
	opts = opts.withDefaults()
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	t := &Tree{Files: map[string][]byte{}, Options: opts}

	ownerIDs := make([]string, opts.Owners)
	for i := range ownerIDs {
		ownerIDs[i] = fmt.Sprintf("org_%03d", i)
	}
	t.Files["owners.yaml"] = ownersFile(ownerIDs)

	perApp := opts.Sources / opts.Apps
	extra := opts.Sources % opts.Apps
	var deps *rand.Rand
	if opts.DependsOn > 0 {
		deps = rand.New(rand.NewPCG(opts.Seed^0xdeb5, opts.Seed))
	}
	var appKeys []appRange // each earlier app's literal and glob keys
	for a := 0; a < opts.Apps; a++ {
		app := fmt.Sprintf("app_%03d", a)
		n := perApp
		if a < extra {
			n++
		}
		owner := ownerIDs[rng.IntN(len(ownerIDs))]
		var b strings.Builder
		fmt.Fprintf(&b, "# generated: app %s, %d sources\n", app, n)
		fmt.Fprintf(&b, "defaults:\n  license: CC-BY-4.0\n  ownership:\n    - name: %s\n      type: DATA_OWNER\n", owner)
		fmt.Fprintf(&b, "  access_level: %s\n  classification: %s\n  tags: [%s]\n  retention_days: %d\n", levels[rng.IntN(len(levels))], classes[rng.IntN(len(classes))], tagWords[rng.IntN(len(tagWords))], 30+rng.IntN(700))
		b.WriteString("  dcat:\n    themes:\n      - http://publications.europa.eu/resource/authority/data-theme/ENER\n    accrual_periodicity: http://publications.europa.eu/resource/authority/frequency/IRREG\n")
		b.WriteString("  dataspace:\n    odrl_action: use\n    purpose:\n      - EnergyCommunityOperation\n")
		if deps != nil {
			writeDependsOn(&b, deps, opts.DependsOn, t, appKeys)
		}
		b.WriteString("sources:\n")
		appKeys = append(appKeys, appRange{app: app, exact: len(t.ExactNames), glob: len(t.GlobNames)})
		globs := int(float64(n) * opts.GlobShare)
		for s := 0; s < n; s++ {
			layer := layers[s%len(layers)]
			subject := subjects[(s/len(layers))%len(subjects)]
			if s < globs {
				// A glob covers a family of tables no literal key names.
				key := fmt.Sprintf("datasets.ds_%s_%s.%s_%d_*", app, layer, subject, s)
				fmt.Fprintf(&b, "  %s:\n", key)
				writeBlock(&b, rng, opts, ownerIDs, false)
				t.GlobNames = append(t.GlobNames, fmt.Sprintf("datasets.ds_%s_%s.%s_%d_%s", app, layer, subject, s, freqs[rng.IntN(len(freqs))]))
				continue
			}
			key := fmt.Sprintf("datasets.ds_%s_%s.%s_%05d_%s", app, layer, subject, s, freqs[s%len(freqs)])
			fmt.Fprintf(&b, "  %s:\n", key)
			writeBlock(&b, rng, opts, ownerIDs, true)
			t.ExactNames = append(t.ExactNames, key)
			t.MissNames = append(t.MissNames, key+"_unlisted")
		}
		t.Files["apps/"+app+"/governance.yaml"] = []byte(b.String())
		appKeys[len(appKeys)-1].exactEnd, appKeys[len(appKeys)-1].globEnd = len(t.ExactNames), len(t.GlobNames)

		if rng.Float64() < opts.OverlayShare {
			t.Files["apps/"+app+"/governance."+opts.OverlayName+".yaml"] = overlayFile(rng, t.ExactNames[len(t.ExactNames)-min(3, len(t.ExactNames)):])
		}
	}
	return t
}

// appRange locates one app's keys in Tree.ExactNames and Tree.GlobNames.
type appRange struct {
	app             string
	exact, exactEnd int
	glob, globEnd   int
}

// writeDependsOn writes n depends_on entries naming datasets of earlier apps
// (an app with none before it declares only external ones).
func writeDependsOn(b *strings.Builder, rng *rand.Rand, n int, t *Tree, earlier []appRange) {
	b.WriteString("depends_on:\n")
	for range n {
		r := rng.Float64()
		var from appRange
		if len(earlier) > 0 {
			from = earlier[rng.IntN(len(earlier))]
		}
		hasExact := from.exactEnd > from.exact
		hasGlob := from.globEnd > from.glob
		var dataset string
		external := false
		switch {
		case r < 0.1 || (!hasExact && !hasGlob):
			dataset = fmt.Sprintf("datasets.*_gold.external_%d", rng.IntN(1000))
			external = true
		case r < 0.5 && hasExact, !hasGlob:
			dataset = t.ExactNames[from.exact+rng.IntN(from.exactEnd-from.exact)]
		case r < 0.8 && hasExact:
			// datasets.ds_<app>_<layer>.<table> as datasets.*_<app>_<layer>.<table>
			key := t.ExactNames[from.exact+rng.IntN(from.exactEnd-from.exact)]
			dataset = "datasets.*_" + strings.TrimPrefix(key, "datasets.ds_")
		case r < 0.9:
			// a name only the app's glob key covers
			dataset = t.GlobNames[from.glob+rng.IntN(from.globEnd-from.glob)]
		default:
			// a glob that matches a glob key's text: its last underscore-separated part as *
			name := t.GlobNames[from.glob+rng.IntN(from.globEnd-from.glob)]
			dataset = name[:strings.LastIndexByte(name, '_')+1] + "*"
		}
		fmt.Fprintf(b, "  - dataset: %s\n", dataset)
		if external {
			b.WriteString("    external: true\n")
		}
		if rng.IntN(10) == 0 {
			b.WriteString("    optional: true\n")
		}
	}
}

func writeBlock(b *strings.Builder, rng *rand.Rand, opts Options, owners []string, literal bool) {
	fmt.Fprintf(b, "    title: Synthetic dataset %d\n", rng.IntN(1_000_000))
	if opts.Description > 0 {
		writeDescription(b, rng, opts.Description)
	}
	fmt.Fprintf(b, "    tags: [%s, %s]\n", tagWords[rng.IntN(len(tagWords))], tagWords[rng.IntN(len(tagWords))])
	if rng.Float64() < 0.3 {
		fmt.Fprintf(b, "    ownership:\n      - name: %s\n        type: DATA_OWNER\n", owners[rng.IntN(len(owners))])
	}
	if rng.Float64() < opts.RowFilterRate {
		b.WriteString("    row_filters:\n      - handler: rec_registry\n        args:\n          column: device_id\n")
	} else {
		b.WriteString("    row_filters: []\n")
	}
	expose := rng.Float64() < 0.7
	fmt.Fprintf(b, "    expose: %t\n", expose)
	if expose && rng.Float64() < 0.2 {
		b.WriteString("    dataspace:\n      expose: true\n      medallion: gold\n      contract_required: true\n")
	}
}

var proseWords = []string{"readings", "aggregated", "per", "device", "community", "energy", "hourly",
	"normalised", "from", "the", "metering", "ingestion", "and", "joined", "with", "registry", "members",
	"filtered", "by", "consent", "published", "to", "partners", "under", "contract", "quarter", "values"}

// writeDescription writes a folded scalar of about n bytes, wrapped like
// hand-written prose so the reader sees several continuation lines.
func writeDescription(b *strings.Builder, rng *rand.Rand, n int) {
	b.WriteString("    description: >\n      ")
	written, line := 0, 0
	for written < n {
		w := proseWords[rng.IntN(len(proseWords))]
		if line > 0 && line+len(w) > 72 {
			b.WriteString("\n      ")
			written += 7
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			written++
			line++
		}
		b.WriteString(w)
		written += len(w)
		line += len(w)
	}
	b.WriteByte('\n')
}

func overlayFile(rng *rand.Rand, keys []string) []byte {
	var b strings.Builder
	b.WriteString("# generated deployer overlay\ndefaults:\n  tags: [deployed]\n")
	if len(keys) > 0 {
		b.WriteString("sources:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s:\n    access_level: restricted\n", k)
		}
	}
	return []byte(b.String())
}

func ownersFile(ids []string) []byte {
	var b strings.Builder
	b.WriteString("owners:\n")
	for i, id := range ids {
		fmt.Fprintf(&b, "  - id: %s\n    type: schema:Organization\n    name: Organisation %d\n    url: https://org%d.example\n", id, i, i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "    did: did:web:org%d.example\n", i)
		}
	}
	return []byte(b.String())
}

func share(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// Orders are the ways a benchmark asks a list of names: as generated (in
// source order, the working set growing with the tree), shuffled (every
// lookup on slots and keys no cache holds once the tree outgrows the
// caches), and a sample of SampleSize names spread evenly over the list and
// shuffled (the same working set at every tree size, so that what grows is
// the lookup's own work).
type Orders struct {
	Source, Random, Sample []string
}

// SampleSize is the size of Orders.Sample: at most the whole list.
const SampleSize = 100

// Order returns the three orders of names; the shuffles depend on seed only.
func Order(names []string, seed uint64) Orders {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	o := Orders{Source: names, Random: slices.Clone(names)}
	rng.Shuffle(len(o.Random), func(i, j int) { o.Random[i], o.Random[j] = o.Random[j], o.Random[i] })
	n := min(SampleSize, len(names))
	for i := range n {
		o.Sample = append(o.Sample, names[i*len(names)/n])
	}
	rng.Shuffle(len(o.Sample), func(i, j int) { o.Sample[i], o.Sample[j] = o.Sample[j], o.Sample[i] })
	return o
}

// Each calls f with each order's name ("", "-random", "-sample") and names.
func (o Orders) Each(f func(suffix string, names []string)) {
	f("", o.Source)
	f("-random", o.Random)
	f("-sample", o.Sample)
}

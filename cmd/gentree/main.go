// Command gentree writes a synthetic governance tree (internal/treegen) for
// benchmarks and load tests, and the dataset names to query it with.
//
//	gentree -out DIR [-apps N] [-sources N] [-seed N] [-globs 0.1] [-overlays 0.3] [-description BYTES]
//	gentree -out DIR -shape pipelines [-apps 1000] [-sources 100000] [-seed N] [-overlays 0.3]
//
// It writes DIR/tree/{apps/…, owners.yaml} and DIR/ids.txt: one dataset name a
// line, a realistic mix of exact keys and names matching glob keys. The
// default shape is few large apps; -shape pipelines is many small ones, with
// globs of every kind and depends_on entries between apps
// (treegen.GeneratePipelines), its sources spread evenly over the apps.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/celine-eu/governanced/internal/treegen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gentree", flag.ContinueOnError)
	out := fs.String("out", "", "output directory (required)")
	apps := fs.Int("apps", 100, "number of apps")
	sources := fs.Int("sources", 10_000, "total sources")
	seed := fs.Uint64("seed", 1, "random seed: same seed, same tree")
	globs := fs.Float64("globs", 0.1, "share of glob keys (negative: none)")
	overlays := fs.Float64("overlays", 0.3, "share of apps with an overlay (negative: none)")
	description := fs.Int("description", 0, "bytes of prose description per source (225 gives the Python baseline's ~470 bytes a source: 47 MB at 100 000)")
	shape := fs.String("shape", "apps", "apps (few large apps) or pipelines (many small ones with depends_on between them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	var tree *treegen.Tree
	switch *shape {
	case "apps":
		tree = treegen.Generate(treegen.Options{Apps: *apps, Sources: *sources, Seed: *seed, GlobShare: *globs, OverlayShare: *overlays, Description: *description})
	case "pipelines":
		tree = treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: *apps, Sources: max(1, *sources / *apps), Seed: *seed, OverlayShare: *overlays})
	default:
		return fmt.Errorf("-shape is apps or pipelines, not %q", *shape)
	}
	if err := tree.Write(filepath.Join(*out, "tree")); err != nil {
		return err
	}
	// Nine exact hits to one glob hit: catalogue clients mostly ask for names
	// they listed.
	var ids []string
	for i, name := range tree.ExactNames {
		ids = append(ids, name)
		if i%9 == 0 && len(tree.GlobNames) > 0 {
			ids = append(ids, tree.GlobNames[(i/9)%len(tree.GlobNames)])
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "ids.txt"), []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files (%d bytes of YAML), %d ids to %s\n", len(tree.Files), tree.Bytes(), len(ids), *out)
	return nil
}

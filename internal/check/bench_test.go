package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/check/checktest"
)

// BenchmarkReferenceTree checks the 17 real files of celine-pipelines.
func BenchmarkReferenceTree(b *testing.B) {
	dir := referenceDir(b)
	opts := check.Options{Paths: []string{"apps/*"}, Owners: []string{"../dataset-api/owners.yaml"}, Dir: dir}
	for b.Loop() {
		rep, err := check.Run(context.Background(), opts)
		if err != nil || rep.Summary.Datasets != 174 {
			b.Fatalf("err %v, summary %+v", err, rep.Summary)
		}
	}
}

// BenchmarkGeneratedTree checks a generated tree of 10 000 sources: 100 apps
// of 100 sources each, every app with a deployer overlay in an overlay
// directory that restates some sources and adds one, and an owners registry.
func BenchmarkGeneratedTree(b *testing.B) {
	const apps, perApp = 100, 100
	dir := b.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("owners.yaml", "owners:\n  - id: example-dso\n    type: schema:Corporation\n    name: DSO\n    did: did:web:dso.example\n    aliases: [dso]\n")
	for a := 0; a < apps; a++ {
		app := fmt.Sprintf("app%03d", a)
		var base, ov strings.Builder
		base.WriteString("defaults:\n  access_level: internal\n  ownership: [{name: dso, type: DATA_OWNER}]\n  tags: [generated]\nsources:\n")
		ov.WriteString("defaults:\n  access_level: restricted\nsources:\n")
		for s := 0; s < perApp; s++ {
			key := fmt.Sprintf("datasets.ds_prod_gold.%s_table_%03d", app, s)
			fmt.Fprintf(&base, "  %s:\n    title: Table %d\n    expose: true\n    row_filters:\n      - handler: rec_registry\n        args: {column: device_id}\n    dataspace: {expose: %v, medallion: gold}\n", key, s, s%10 == 0)
			if s%5 == 0 {
				fmt.Fprintf(&ov, "  %s:\n    row_filters:\n      - handler: direct_user_match\n        args: {column: user_id}\n", key)
			}
		}
		fmt.Fprintf(&ov, "  datasets.ds_prod_gold.%s_extra_*:\n    expose: true\n    row_filters: []\n", app)
		write("apps/"+app+"/governance.yaml", base.String())
		write("deploy/governance."+app+".yaml", ov.String())
	}
	opts := check.Options{Paths: []string{"apps/*"}, OverlayDir: str("deploy"), Owners: []string{"owners.yaml"}, Dataspace: true, Dir: dir}
	b.ResetTimer()
	for b.Loop() {
		rep, err := check.Run(context.Background(), opts)
		if err != nil || rep.Summary.Datasets != apps*(perApp+1) || !rep.OK {
			b.Fatalf("err %v, summary %+v, findings %v", err, rep.Summary, checktest.Briefs(rep)[:min(5, len(rep.Findings))])
		}
	}
}

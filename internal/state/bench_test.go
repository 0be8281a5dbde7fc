package state

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkSave saves the revisions of a tree of 1 000 files of 48 KB (the
// size of the many-pipelines tree's governance files): cold, into an empty
// directory (every file written); and one file changed, into a directory
// holding the revision before (one file written, the manifest, the prune).
// BenchmarkLoad reads such a revision back, every file checked.
func BenchmarkSave(b *testing.B) {
	base := pipelinesTree(0)
	rev := base.revision(t0)
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(int64(base.bytes()))
		for b.Loop() {
			b.StopTimer()
			d := open(b, b.TempDir(), 0)
			b.StartTimer()
			if _, err := d.Save(context.Background(), config, rev, base.read); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-file", func(b *testing.B) {
		d := open(b, b.TempDir(), 0)
		if _, err := d.Save(context.Background(), config, base.revision(t0), base.read); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(base.bytes()))
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			tr := pipelinesTree(i)
			rev := tr.revision(t0.Add(time.Duration(i) * time.Second))
			b.StartTimer()
			if saved, err := d.Save(context.Background(), config, rev, tr.read); err != nil || saved.Objects != 1 {
				b.Fatalf("%v: %d written", err, saved.Objects)
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	tr := pipelinesTree(0)
	d := open(b, b.TempDir(), 0)
	rev := tr.revision(t0)
	if _, err := d.Save(context.Background(), config, rev, tr.read); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(tr.bytes()))
	for b.Loop() {
		if _, err := d.Load(rev); err != nil {
			b.Fatal(err)
		}
	}
}

// pipelinesTree is 1 000 files of 48 KB, the one of app_0500 edited edit
// times.
func pipelinesTree(edit int) tree {
	tr := tree{}
	for a := range 1000 {
		body := strings.Repeat(fmt.Sprintf("  datasets.ds_%04d_%%d: {title: a dataset of app %d}\n", a, a), 1)
		var sb strings.Builder
		for i := 0; sb.Len() < 48<<10; i++ {
			fmt.Fprintf(&sb, body, i)
		}
		if a == 500 {
			fmt.Fprintf(&sb, "# edit %d\n", edit)
		}
		tr[fmt.Sprintf("apps/app_%04d/governance.yaml", a)] = sb.String()
	}
	tr["owners.yaml"] = "owners: []\n"
	return tr
}

func (tr tree) bytes() int {
	n := 0
	for _, s := range tr {
		n += len(s)
	}
	return n
}

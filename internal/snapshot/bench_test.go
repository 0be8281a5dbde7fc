package snapshot

import (
	"context"
	"testing"
)

func realSnapshot(b *testing.B) *Snapshot {
	b.Helper()
	s, err := (&Loader{Inputs: Inputs{Trees: []string{copyReal(b)}}}).Build(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkResolve is the snapshot's half of GET /datasets/{id}/rule: the
// global resolution of a literal key.
func BenchmarkResolve(b *testing.B) {
	s := realSnapshot(b)
	const name = "datasets.ds_dev_gold.meters_data_15m"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Resolve(name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveMiss is a name no app declares: every app's glob index is
// asked.
func BenchmarkResolveMiss(b *testing.B) {
	s := realSnapshot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Resolve("datasets.ds_dev_gold.no_such_table"); err != ErrNoMatch {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild is a reload of the real tree: check, materialise, index.
func BenchmarkBuild(b *testing.B) {
	l := &Loader{Inputs: Inputs{Trees: []string{copyReal(b)}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

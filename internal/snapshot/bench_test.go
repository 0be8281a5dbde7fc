package snapshot

import (
	"bytes"
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

// BenchmarkResolveAndEncode is the domain half of GET /datasets/{id}/rule:
// global resolution and the body, without HTTP.
func BenchmarkResolveAndEncode(b *testing.B) {
	s := realSnapshot(b)
	const name = "datasets.ds_dev_gold.meters_data_15m"
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		d, err := s.Resolve(name)
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		s.AppendRuleBody(&buf, name, d, false)
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

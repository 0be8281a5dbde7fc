package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
)

// partsTree is a tree of apps×n datasets, each with a title of its own, so
// that no two rule parts are alike.
func partsTree(t *testing.T, apps, n int) *snapshot.Store {
	t.Helper()
	files := map[string]string{}
	for a := range apps {
		var b strings.Builder
		b.WriteString("defaults: {classification: green, tags: [kept]}\nsources:\n")
		for i := range n {
			fmt.Fprintf(&b, "  datasets.a%d.t%03d: {title: \"table %d of app %d\", access_level: internal}\n", a, i, i, a)
		}
		fmt.Fprintf(&b, "  'datasets.a%d.g_*': {title: \"the globbed tables of app %d\"}\n", a, a)
		files[fmt.Sprintf("apps/a%d/governance.yaml", a)] = b.String()
	}
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}})
}

// partSize is the bytes d's kept part counts.
func partSize(d *snapshot.Dataset) int64 {
	_, n := newRuleParts(nil, 1<<30).makePart(d)
	return n
}

// TestRulePartWritesTheEncoding: a kept part writes what encoding the rule
// afresh writes, for every dataset of the reference tree and of a tree
// stating every kind of field: texts with what JSON escapes, a title
// stated null, a description alone, texts from a base and an overlay,
// nested blocks and extra keys.
func TestRulePartWritesTheEncoding(t *testing.T) {
	ref := testcorpus.Path(t, "reference")
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"apps/a/governance.yaml": `defaults:
  title: "Defaults \"quoted\" \u2028 ✓"
  license: CC-BY-4.0
  tags: [b, a]
  ownership: [{name: team-a, type: DATA_OWNER}]
  dcat: {themes: [ENER], temporal: {start: "2020-01-01"}}
  dataspace: {purpose: [Research], consent_required: true}
sources:
  datasets.a.none: {}
  datasets.a.texts: {title: "two\nlines", description: "tab\there"}
  datasets.a.nulltitle: {title: null, description: "after a null title"}
  datasets.a.description: {description: "a description alone"}
  datasets.a.overlaid: {title: base title}
  datasets.a.rare: {retention_days: 30, row_filters: [{handler: direct_user_match, args: {column: u}}], x-team: {a: 1}}
  datasets.a.nulls: {license: null, dcat: null, dataspace: {medallion: gold}}
  'datasets.a.g_*': {title: a glob}
`,
		"apps/a/governance.prod.yaml": `sources:
  datasets.a.overlaid: {description: "the overlay's description"}
`,
	})
	for _, in := range []snapshot.Inputs{
		{Trees: []string{filepath.Join(ref, "celine-pipelines")}, Owners: []string{filepath.Join(ref, "dataset-api", "owners.yaml")}},
		{Trees: []string{dir}, OverlayName: "prod"},
	} {
		store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: in})
		parts := newRuleParts(store, 1<<30)
		// Each app's defaults too: what a name matching none of its keys reads.
		ds := store.Current().Datasets()
		for _, a := range store.Current().Apps() {
			ds = append(ds, a.Defaults())
		}
		for _, d := range ds {
			var fresh, kept bytes.Buffer
			appendRulePart(&fresh, d)
			parts.write(&kept, d) // made and kept
			if kept.String() != fresh.String() {
				t.Errorf("%s: the part made writes\n%s\nwant\n%s", d.ID(), kept.String(), fresh.String())
			}
			kept.Reset()
			parts.write(&kept, d) // written from the kept part
			if kept.String() != fresh.String() {
				t.Errorf("%s: the part kept writes\n%s\nwant\n%s", d.ID(), kept.String(), fresh.String())
			}
			if !json.Valid([]byte("{" + fresh.String() + "}")) {
				t.Errorf("%s: not JSON: %s", d.ID(), fresh.String())
			}
		}
	}
}

// keptBytes is what the served snapshot's datasets keep, counted anew.
func keptBytes(store *snapshot.Store) int64 {
	var n int64
	for _, a := range store.Current().Apps() {
		n += a.MemoBytes()
	}
	return n
}

// TestRulePartsStayWithinBudget: however the datasets are read, the rule
// parts kept never hold more than --max-kept-rule-bytes once a read has
// returned, and every answer is the one encoded afresh, whether its part
// was kept, forgotten or never kept. A budget smaller than one part keeps
// at most that part; NoKeptRuleParts keeps none.
func TestRulePartsStayWithinBudget(t *testing.T) {
	store := partsTree(t, 4, 60)
	snap := store.Current()
	var names []string
	for _, a := range snap.Apps() {
		for _, d := range a.Datasets() {
			if !d.Pattern {
				names = append(names, d.ID())
			}
		}
		names = append(names, "datasets."+a.Name+".g_x")  // a glob's dataset
		names = append(names, "datasets."+a.Name+".none") // no key: the app has none, so the tree's 404
	}
	fresh := func(name string) []byte {
		d, err := snap.Resolve(name)
		if err != nil {
			return nil
		}
		var buf bytes.Buffer
		appendRuleBody(&buf, snap, name, d, false, nil)
		return buf.Bytes()
	}
	one := partSize(snap.Apps()[0].Dataset(0))
	for _, tc := range []struct {
		name   string
		budget int64
	}{
		{"one byte", 1},
		{"a part and a half", one * 3 / 2},
		{"a tenth of the parts", one * int64(len(names)) / 10},
		{"every part", 1 << 30},
		{"none", NoKeptRuleParts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newServer(Deps{Store: store, Limits: Limits{MaxKeptRuleBytes: tc.budget}})
			// Parts kept by an earlier subtest's server stay with the
			// datasets; this one's budget counts from none.
			for _, a := range snap.Apps() {
				a.SweepMemos(0, 1<<62)
				a.SweepMemos(0, 1<<62)
			}
			rng := rand.New(rand.NewPCG(1, uint64(tc.budget)))
			for round := range 3 {
				for _, i := range rng.Perm(len(names)) {
					name := names[i]
					got := do(t, h, "GET", "/datasets/"+name+"/rule", nil)
					want := fresh(name)
					if want == nil {
						if got.status != http.StatusNotFound {
							t.Fatalf("round %d, %s: %d, want 404", round, name, got.status)
						}
						continue
					}
					if got.status != http.StatusOK || !bytes.Equal(got.body, want) {
						t.Fatalf("round %d, %s: %d %s\nwant %s", round, name, got.status, got.body, want)
					}
					if held := keptBytes(store); held > max(tc.budget, one+64) || tc.budget < 0 && held != 0 {
						t.Fatalf("round %d, after %s: %d bytes kept, budget %d", round, name, held, tc.budget)
					}
				}
			}
			if tc.budget < 0 { // nothing kept, checked at every read
				if m := do(t, h, "GET", "/metrics", nil); m.status != http.StatusOK || !bytes.Contains(m.body, []byte("\ngovernanced_kept_rule_bytes 0\n")) {
					t.Errorf("/metrics of a server keeping no parts: %d\n%.2000s", m.status, m.body)
				}
				return
			}
			forgotten := s.ruleParts.forgotten.Load()
			if tc.budget < 1<<30 && forgotten == 0 {
				t.Error("nothing forgotten over a budget smaller than the parts")
			}
			if tc.budget == 1<<30 && (forgotten != 0 || keptBytes(store) == 0) {
				t.Errorf("a budget larger than every part forgot %d bytes and keeps %d", forgotten, keptBytes(store))
			}
		})
	}
}

// TestRulePartsKeepWhatIsReadAgain: a dataset read between every two others
// keeps its part while the others, read once each, pass through a budget
// of a tenth of them: the clock forgets what was not read since it last
// passed.
func TestRulePartsKeepWhatIsReadAgain(t *testing.T) {
	store := partsTree(t, 2, 100)
	snap := store.Current()
	hot := snap.Apps()[1].Dataset(50)
	one := partSize(hot)
	h, s := newServer(Deps{Store: store, Limits: Limits{MaxKeptRuleBytes: 20 * one}})
	read := func(name string) {
		t.Helper()
		if got := do(t, h, "GET", "/datasets/"+name+"/rule", nil); got.status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, got.status, got.body)
		}
	}
	read(hot.ID())
	forgotHot := 0
	for _, a := range snap.Apps() {
		for _, d := range a.Datasets() {
			if d.Pattern || d == hot {
				continue
			}
			read(d.ID()) // may pass the budget and sweep
			if _, made := snapshot.Memo(hot, s.ruleParts.makePart); made {
				forgotHot++
			}
			read(hot.ID())
		}
	}
	if s.ruleParts.forgotten.Load() == 0 {
		t.Fatal("nothing forgotten: the budget did not bind")
	}
	if forgotHot > 0 {
		t.Errorf("the dataset read between every two others was forgotten %d times", forgotHot)
	}
}

// BenchmarkRulePart is the rule part of a dataset of the reference tree
// kept (copied from its dataset) and encoded afresh (merged and written):
// what a read whose part was forgotten costs more.
func BenchmarkRulePart(b *testing.B) {
	ref := testcorpus.Path(b, "reference")
	store := snapshottest.Loaded(b, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{filepath.Join(ref, "celine-pipelines")},
		Owners: []string{filepath.Join(ref, "dataset-api", "owners.yaml")},
	}})
	d, err := store.Current().Resolve("datasets.ds_dev_gold.meters_data_15m")
	if err != nil {
		b.Fatal(err)
	}
	parts := newRuleParts(store, 1<<20)
	for _, bc := range []struct {
		name  string
		parts *ruleParts
	}{
		{"kept", parts},
		{"encoded", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				bc.parts.write(&buf, d)
			}
		})
	}
}

// TestRulePartsConcurrentReads: readers at once over a budget of a few
// parts, sweeping as they pass it (go test -race): every answer is its
// dataset's, and what is kept at the end is within the budget and a part
// a reader.
func TestRulePartsConcurrentReads(t *testing.T) {
	store := partsTree(t, 3, 40)
	snap := store.Current()
	ds := snap.Datasets()
	one := partSize(ds[0])
	h, s := newServer(Deps{Store: store, Limits: Limits{MaxKeptRuleBytes: 5 * one}})
	want := map[string][]byte{}
	for _, d := range ds {
		var buf bytes.Buffer
		appendRuleBody(&buf, snap, d.ID(), d, false, nil)
		want[d.ID()] = buf.Bytes()
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range 300 {
				d := ds[rng.IntN(len(ds))]
				if got := do(t, h, "GET", "/datasets/"+d.ID()+"/rule", nil); got.status != http.StatusOK || !bytes.Equal(got.body, want[d.ID()]) {
					t.Errorf("reader %d, %s: %d %s", g, d.ID(), got.status, got.body)
					return
				}
			}
		})
	}
	wg.Wait()
	// A reader that passes the budget while another sweeps leaves the
	// sweep to the next part kept: at rest, each reader may have kept one
	// part past the last sweep.
	if held := keptBytes(store); held > 5*one+8*one {
		t.Errorf("%d bytes kept, budget %d and eight readers' parts", held, 5*one)
	}
	if s.ruleParts.forgotten.Load() == 0 {
		t.Error("nothing forgotten")
	}
}

// TestRulePartsWithTheMembersTableFull: a part whose members the table has
// no room for is not kept, and its dataset's answer is encoded afresh.
func TestRulePartsWithTheMembersTableFull(t *testing.T) {
	store := partsTree(t, 1, 5)
	h, s := newServer(Deps{Store: store})
	s.ruleParts.members.limit = 10 // fewer bytes than any part's members
	snap := store.Current()
	for range 2 {
		for _, d := range snap.Datasets() {
			var want bytes.Buffer
			appendRuleBody(&want, snap, d.ID(), d, false, nil)
			if got := do(t, h, "GET", "/datasets/"+d.ID()+"/rule", nil); got.status != http.StatusOK || !bytes.Equal(got.body, want.Bytes()) {
				t.Fatalf("%s: %d %s\nwant %s", d.ID(), got.status, got.body, want.Bytes())
			}
		}
	}
	if n := keptBytes(store); n != 0 {
		t.Errorf("%d bytes kept with no room for members", n)
	}
	if n := s.ruleParts.members.bytes(); n > 10 {
		t.Errorf("the table holds %d bytes of members, limit 10", n)
	}
	if m := do(t, h, "GET", "/metrics", nil); !strings.Contains(string(m.body), "governanced_kept_rule_member_bytes ") {
		t.Error("/metrics does not say the bytes of the members")
	}
}

// TestRulePartSize: the budget counts a part as it is laid out, one
// allocation of a size class of its own (80 bytes) and its slot.
func TestRulePartSize(t *testing.T) {
	if got := int64(unsafe.Sizeof(rulePart{})); got != 80 || got+8 != rulePartSize {
		t.Errorf("a part is %d bytes, the budget counts %d with its 8-byte slot", got, rulePartSize)
	}
}

// TestRulePartsOfTwoServers: the parts are kept with the store's datasets,
// so a server over a store another server made parts in writes those parts
// with their maker's members.
func TestRulePartsOfTwoServers(t *testing.T) {
	store := partsTree(t, 2, 20)
	first, _ := newServer(Deps{Store: store})
	second, _ := newServer(Deps{Store: store})
	snap := store.Current()
	for _, h := range []http.Handler{first, second, first} {
		for _, d := range snap.Datasets() {
			var want bytes.Buffer
			appendRuleBody(&want, snap, d.ID(), d, false, nil)
			if got := do(t, h, "GET", "/datasets/"+d.ID()+"/rule", nil); got.status != http.StatusOK || !bytes.Equal(got.body, want.Bytes()) {
				t.Fatalf("%s: %d %s\nwant %s", d.ID(), got.status, got.body, want.Bytes())
			}
		}
	}
}

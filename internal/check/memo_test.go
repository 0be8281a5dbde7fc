package check

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/treegen"
	"github.com/google/go-cmp/cmp"
)

// reportJSON is the report as every client sees it.
func reportJSON(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// unitsJSON is what the units serve: per unit its files and, when
// materialised, every rule of its configuration as JSON.
func unitsJSON(r *Report) []string {
	var out []string
	for _, u := range r.Units {
		s := fmt.Sprintf("%s|%s|%s|%s|%s|%v", u.App, u.Base, u.Overlay, u.BaseFile, u.OverlayFile, u.Materialized)
		if u.Config != nil {
			var b bytes.Buffer
			u.Config.Defaults.AppendJSON(&b)
			for _, src := range u.Config.Sources {
				b.WriteString("|" + src.Key + "=")
				src.Rule.AppendJSON(&b)
			}
			fmt.Fprintf(&b, "|active=%v|files=%v|depends=%v", u.Config.Active, u.Config.Files, u.Config.DependsOnSet)
			for _, d := range u.Config.DependsOn {
				fmt.Fprintf(&b, "|%s %v %v", d.Dataset, d.External, d.Optional)
				if d.Description != nil {
					b.WriteString(" " + *d.Description)
				}
			}
			s += "|" + b.String()
		}
		out = append(out, s)
	}
	return out
}

// freshAndMemo checks opts without a memo and then with memo, and fails the
// test unless both give the same report and units; it returns the first.
func freshAndMemo(t *testing.T, opts Options, memo *Memo, what string) *Report {
	t.Helper()
	fresh, err := CheckGovernance(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Memo = memo
	got, err := CheckGovernance(opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reportJSON(t, fresh), reportJSON(t, got)); diff != "" {
		t.Errorf("%s: report (-fresh +memo):\n%s", what, diff)
	}
	if diff := cmp.Diff(unitsJSON(fresh), unitsJSON(got)); diff != "" {
		t.Errorf("%s: units (-fresh +memo):\n%s", what, diff)
	}
	return fresh
}

// sameWithMemo runs the check twice with one memo, as a server reloading
// unchanged files does: both reports must be the one checked without a memo,
// the second must reuse every unit whose files are its own, and OnUnit must
// see each reused unit with what it attached the first time.
func sameWithMemo(t *testing.T, opts Options, want *Report) {
	t.Helper()
	memo := NewMemo()
	var mu sync.Mutex
	attached := map[string]any{}
	for run := 1; run <= 2; run++ {
		o := opts
		o.Memo = memo
		o.OnUnit = func(u *Unit) {
			mu.Lock()
			defer mu.Unlock()
			if u.Reused {
				if u.Served == nil || u.Served != attached[u.Base] {
					t.Errorf("run %d: %s reused with Served %v, want %v", run, u.Base, u.Served, attached[u.Base])
				}
				if u.BaseRoot != nil || u.OverlayRoot != nil {
					t.Errorf("run %d: %s reused with documents", run, u.Base)
				}
				return
			}
			if run == 2 && u.Served != nil {
				t.Errorf("run 2: %s checked afresh but carries Served %v", u.Base, u.Served)
			}
			u.Served = fmt.Sprintf("%s@%d", u.Base, run)
			attached[u.Base] = u.Served
		}
		got, err := CheckGovernance(o)
		if err != nil {
			t.Fatalf("run %d with a memo: %v", run, err)
		}
		if diff := cmp.Diff(reportJSON(t, want), reportJSON(t, got)); diff != "" {
			t.Errorf("run %d: the report with a memo differs (-without +with):\n%s", run, diff)
		}
		if diff := cmp.Diff(unitsJSON(want), unitsJSON(got)); diff != "" {
			t.Errorf("run %d: the units with a memo differ (-without +with):\n%s", run, diff)
		}
		reused, checked := memo.Stats()
		if reused+checked != len(want.Units) {
			t.Errorf("run %d: %d reused + %d checked, want the %d units", run, reused, checked, len(want.Units))
		}
		if run == 1 && reused != 0 {
			t.Errorf("run 1 reused %d units from an empty memo", reused)
		}
		if run == 2 && reused != ownUnits(want) {
			t.Errorf("run 2 reused %d units, want the %d whose files no other unit reads", reused, ownUnits(want))
		}
	}
}

// ownUnits counts the units whose paired overlay no other unit pairs with.
// (A unit refused for an overlay conflict reads overlays the report does not
// name; the worked cases share none of them.)
func ownUnits(r *Report) int {
	readers := map[string]int{}
	for _, u := range r.Units {
		if u.Overlay != "" {
			readers[u.Overlay]++
		}
	}
	n := 0
	for _, u := range r.Units {
		if u.Overlay == "" || readers[u.Overlay] == 1 {
			n++
		}
	}
	return n
}

// TestMemoFollowsEdits edits a generated tree step by step, one file or one
// option at a time, and checks it with a memo carried across the steps: each
// report and every unit must equal a check without a memo, and only the
// units an edit touched are checked again.
func TestMemoFollowsEdits(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 6, Sources: 120, Seed: 7, OverlayShare: 0.5})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	overlayName := tree.Options.OverlayName
	base := func(a int) string { return fmt.Sprintf("apps/app_%03d/governance.yaml", a) }
	overlay := func(a int) string {
		return fmt.Sprintf("apps/app_%03d/governance.%s.yaml", a, overlayName)
	}
	appendTo := func(name, text string) { testfs.Append(t, dir, name, text) }
	hasOverlay := func(a int) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(overlay(a))))
		return err == nil
	}
	// Which apps an edit touches: -1 is every app (a shared input).
	ownersEdit := func(old, new string) func(*Options) {
		return func(*Options) { testfs.Replace(t, dir, "owners.yaml", old, new) }
	}
	// apps: the units the edit changes; nil for one unit the test cannot
	// name (an overlay added or removed); every: all of them; some: at least
	// one, how many depends on which apps name the owner.
	steps := []struct {
		name  string
		edit  func(o *Options)
		apps  []int
		every bool
		some  bool
	}{
		{"nothing changed", func(*Options) {}, nil, false, false},
		{"a comment in one base", func(*Options) { appendTo(base(1), "# edited\n") }, []int{1}, false, false},
		{"an error in one base", func(*Options) {
			appendTo(base(2), "  datasets.broken:\n    access_level: topsecret\n")
		}, []int{2}, false, false},
		{"the error fixed again", func(*Options) { testfs.Replace(t, dir, base(2), "topsecret", "internal") }, []int{2}, false, false},
		{"a new overlay", func(*Options) {
			for a := range 6 {
				if !hasOverlay(a) {
					testfs.Write(t, dir, map[string]string{overlay(a): "defaults:\n  tags: [added]\n"})
					return
				}
			}
			t.Fatal("every app has an overlay")
		}, nil, false, false},
		{"an overlay removed", func(*Options) {
			for a := range 6 {
				if hasOverlay(a) {
					if err := os.Remove(filepath.Join(dir, filepath.FromSlash(overlay(a)))); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
		}, nil, false, false},
		{"a comment in the owners file", func(*Options) { appendTo("owners.yaml", "# edited\n") }, []int{}, false, false},
		{"an owner no app names", func(*Options) {
			appendTo("owners.yaml", "  - id: newcomer\n    type: schema:Organization\n    name: Newcomer\n    url: https://newcomer.example\n")
		}, []int{}, false, false},
		{"every owner moved down a line", ownersEdit("owners:\n", "# a line above every entry\nowners:\n"), []int{}, false, false},
		{"one owner's name changed", ownersEdit("name: Organisation 3\n", "name: Organisation Three\n"), nil, false, true},
		{"one owner's DID removed", ownersEdit("    did: did:web:org4.example\n", ""), nil, false, true},
		{"the owners renamed in the owners file", func(*Options) { testfs.ReplaceAll(t, dir, "owners.yaml", "id: org_", "id: gone_") }, nil, true, false},
		{"a placeholder map", func(o *Options) { o.Placeholders = map[string]string{"org_000": "gone_000", "org_001": "gone_001"} }, nil, true, false},
		{"another placeholder", func(o *Options) { o.Placeholders = map[string]string{"org_000": "gone_001", "org_001": "gone_001"} }, nil, true, false},
		{"the same map from a file", func(o *Options) {
			testfs.Write(t, dir, map[string]string{"placeholders.yaml": "# the map above\norg_000: gone_001\norg_001: gone_001\n"})
			o.Placeholders, o.PlaceholdersFile = nil, str("placeholders.yaml")
		}, []int{}, false, false},
		{"the placeholders file edited", func(*Options) {
			testfs.Replace(t, dir, "placeholders.yaml", "org_000: gone_001", "org_000: gone_000")
		}, nil, true, false},
		{"--dataspace", func(o *Options) { o.Dataspace = true }, nil, true, false},
		{"a comment in one overlay", func(*Options) {
			for a := range 6 {
				if hasOverlay(a) {
					appendTo(overlay(a), "# and a comment\n")
					return
				}
			}
		}, nil, false, false},
	}
	opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, OverlayName: &overlayName, Dir: dir}
	memo := NewMemo()
	var before []string
	for i, st := range steps {
		st.edit(&opts)
		fresh := freshAndMemo(t, opts, memo, fmt.Sprintf("step %d (%s)", i, st.name))
		now := append([]string{reportJSON(t, fresh)}, unitsJSON(fresh)...)
		if st.every && i > 0 && st.name != "--dataspace" && cmp.Equal(before, now) {
			t.Errorf("step %d (%s) changes nothing a client sees: it cannot tell a stale unit", i, st.name)
		}
		before = now
		reused, checked := memo.Stats()
		if st.some {
			if checked == 0 || reused+checked != 6 {
				t.Errorf("step %d (%s): %d checked, %d reused; want some checked", i, st.name, checked, reused)
			}
			continue
		}
		wantChecked := len(st.apps)
		switch {
		case i == 0 || st.every:
			wantChecked = 6
		case st.apps == nil:
			wantChecked = 1 // an overlay added or removed changes its base's unit
		}
		if checked != wantChecked || reused != 6-wantChecked {
			t.Errorf("step %d (%s): %d checked, %d reused; want %d checked", i, st.name, checked, reused, wantChecked)
		}
	}
}

// TestMemoSharedOverlay: an overlay claimed by two bases is never reused, as
// its findings are reported once for both units.
func TestMemoSharedOverlay(t *testing.T) {
	base := "sources:\n  datasets.gold.x: {expose: true}\n"
	dir := testfs.Tree(t, map[string]string{
		"one/apps/grid/governance.yaml":  base,
		"two/apps/grid/governance.yaml":  base,
		"one/apps/other/governance.yaml": base,
		"overlays/governance.grid.yaml":  "sources:\n  datasets.gold.x: {row_filters: [{handler: nosuch}]}\n",
	})
	overlays := "overlays"
	opts := Options{Paths: []string{"one/apps/*", "two/apps/grid"}, OverlayDir: &overlays, Dir: dir}
	want, err := CheckGovernance(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ownUnits(want) != 1 {
		t.Fatalf("%d units of their own, want 1 (other)", ownUnits(want))
	}
	sameWithMemo(t, opts, want)
}

// TestMemoRandomEdits edits random files of a generated tree, a few at a
// time, and holds every report with the memo to the report without.
func TestMemoRandomEdits(t *testing.T) {
	tree := treegen.Generate(treegen.Options{Apps: 8, Sources: 160, Seed: 3, OverlayShare: 0.5})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range tree.Files {
		if name != "owners.yaml" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	}
	add := func(text string) func([]byte) []byte {
		return func(b []byte) []byte { return append(b, text...) }
	}
	ownersEdits := []func([]byte) []byte{
		add("# a comment\n"),
		replace("    did: did:web:", "    url: https://no.did/"),
		replace("id: org_00", "id: org_10"),
		replace("name: Organisation", "name: Org"),
		add("  - id: org_100\n    aliases: [org_001]\n"),
		replace("owners:", "owners: ["),
	}
	names = append(names, "owners.yaml")
	edits := []func([]byte) []byte{
		add("# a comment\n"),
		replace("access_level: internal", "access_level: secret"),
		replace("expose: true", "expose: maybe"),
		replace("license:", "licence:"),
		replace("sources:", "sources: ["),
		add("  datasets.ds_extra_*:\n    tags: [x]\n"),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	overlayName := tree.Options.OverlayName
	opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, OverlayName: &overlayName, Dir: dir, Workers: 2}
	memo := NewMemo()
	for step := range 16 {
		for range 1 + rng.IntN(3) {
			name := names[rng.IntN(len(names))]
			p := filepath.Join(dir, filepath.FromSlash(name))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			change := edits[rng.IntN(len(edits))]
			if name == "owners.yaml" {
				change = ownersEdits[rng.IntN(len(ownersEdits))]
			}
			if err := os.WriteFile(p, change(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		freshAndMemo(t, opts, memo, fmt.Sprintf("step %d", step))
	}
	if reused, _ := memo.Stats(); reused == 0 {
		t.Error("the last step reused no unit")
	}
}

// TestMemoAsksTheRegistryAgain: a unit is reused after the owners file
// changed only if the registry answers every question it asked as before,
// not just the first. Here the unit asks after "first" (the first offer's
// owner) and then "second"; removing "second" must bring its
// owner-unresolved finding, and a new owner no unit names must not recheck
// the unit.
func TestMemoAsksTheRegistryAgain(t *testing.T) {
	owner := func(id string) string {
		return "  - id: " + id + "\n    type: schema:Organization\n    name: " + id + "\n    url: https://" + id + ".example\n"
	}
	offer := func(key, id string) string {
		return "  " + key + ":\n    ownership: [{name: " + id + ", type: DATA_OWNER}]\n    expose: true\n    row_filters: []\n    dataspace: {expose: true}\n"
	}
	dir := testfs.Tree(t, map[string]string{
		"apps/grid/governance.yaml": "defaults: {}\nsources:\n" + offer("datasets.gold.a", "first") + offer("datasets.gold.b", "second"),
		"owners.yaml":               "owners:\n" + owner("first") + owner("second"),
	})
	opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, Dir: dir}
	memo := NewMemo()
	for _, step := range []struct {
		name    string
		owners  string
		checked int
		code    string // a finding the step's report must hold
	}{
		{"first check", "owners:\n" + owner("first") + owner("second"), 1, ""},
		{"an owner no unit names", "owners:\n" + owner("first") + owner("second") + owner("third"), 0, ""},
		{"the second owner gone", "owners:\n" + owner("first") + owner("third"), 1, CodeOwnerUnresolved},
		{"nothing changed", "owners:\n" + owner("first") + owner("third"), 0, CodeOwnerUnresolved},
	} {
		testfs.Write(t, dir, map[string]string{"owners.yaml": step.owners})
		fresh := freshAndMemo(t, opts, memo, step.name)
		if _, checked := memo.Stats(); checked != step.checked {
			t.Errorf("%s: %d units checked, want %d", step.name, checked, step.checked)
		}
		if step.code != "" && !slices.ContainsFunc(fresh.Findings, func(f Finding) bool { return f.Code == step.code }) {
			t.Errorf("%s: no %s finding: the step tests nothing\n%v", step.name, step.code, briefs(fresh))
		}
	}
}

// TestMemoKeepsFileFindings: a unit checked again only because the registry
// answers differently takes its unchanged files' own findings from the memo
// (reloadFile); they must be the ones a fresh check finds, file, line and all.
func TestMemoKeepsFileFindings(t *testing.T) {
	owner := func(id, name string) string {
		return "  - id: " + id + "\n    type: schema:Organization\n    name: " + name + "\n    url: https://" + id + ".example\n"
	}
	base := "colour: red\ndefaults: {}\nsources:\n  datasets.gold.a:\n    ownership: [{name: first, type: DATA_OWNER}]\n    expose: true\n    shade: dark\n"
	dir := testfs.Tree(t, map[string]string{
		"apps/grid/governance.yaml":        base,
		"apps/grid/governance.deploy.yaml": "sources:\n  datasets.gold.a: {tint: blue}\n",
		"apps/twin/governance.yaml":        base, // the same bytes at another path
		"owners.yaml":                      "owners:\n" + owner("first", "First"),
	})
	deploy := "deploy"
	opts := Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, OverlayName: &deploy, Dir: dir}
	memo := NewMemo()
	for _, step := range []struct{ name, owners string }{
		{"first check", "owners:\n" + owner("first", "First")},
		{"the owner renamed", "owners:\n" + owner("first", "Primo")},
		{"and back", "owners:\n" + owner("first", "First")},
	} {
		testfs.Write(t, dir, map[string]string{"owners.yaml": step.owners})
		fresh := freshAndMemo(t, opts, memo, step.name)
		if _, checked := memo.Stats(); checked != 2 {
			t.Errorf("%s: %d units checked, want both", step.name, checked)
		}
		var files []string
		for _, f := range fresh.Findings {
			if f.Code == CodeUnknownKey {
				files = append(files, f.File)
			}
		}
		slices.Sort(files)
		files = slices.Compact(files)
		want := []string{"apps/grid/governance.deploy.yaml", "apps/grid/governance.yaml", "apps/twin/governance.yaml"}
		if diff := cmp.Diff(want, files); diff != "" {
			t.Errorf("%s: files with findings of their own (-want +got): the step tests nothing\n%s\n%v", step.name, diff, briefs(fresh))
		}
	}
}

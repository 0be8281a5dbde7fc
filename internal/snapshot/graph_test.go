package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
)

// discoveryTree holds what graph.md's discovery and the check's could read
// differently: a hidden app, files and an empty directory among the apps,
// names whose code-point order is not their path order (a, a-b, a.c), and
// overlays that change active, depends_on and sources.
var discoveryTree = map[string]string{
	"apps/a/governance.yaml":   "defaults: {}\ndepends_on: []\nsources:\n  x.a: {}\n",
	"apps/a-b/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: x.a\n  - dataset: x.ext\n    external: true\nsources:\n  x.ab: {}\n",
	"apps/a.c/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: x.*\n    optional: true\nsources: {}\n",
	// Hidden: neither the check's apps/* nor graph.md's sees it.
	"apps/.hidden/governance.yaml": "defaults: {}\nsources:\n  x.hidden: {}\n",
	"apps/README.md":               "not a pipeline\n",
	"apps/empty/notes.txt":         "no governance.yaml here\n",
	// The overlay retires b, declares its inputs and adds an output.
	"apps/b/governance.yaml":   "defaults: {}\nsources:\n  x.b: {}\n",
	"apps/b/governance.b.yaml": "active: false\ndepends_on:\n  - dataset: x.ab\nsources:\n  x.b2: {}\n",
	// c reads what only b's overlay produces, and what b produces.
	"apps/c/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: x.b2\n  - dataset: x.b\nsources:\n  x.c: {}\n",
}

// cliOutput runs `governanced graph` (graph.RunCLI) over patterns, from
// the snapshot's directory.
func cliOutput(t *testing.T, in Inputs, patterns []string, format graph.Format, overlays bool) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	o := graph.CLIOptions{Patterns: patterns, Format: string(format), Dir: in.Dir, Overlays: overlays, OverlayName: in.OverlayName}
	if !overlays {
		o.OverlayName = ""
	}
	if code := graph.RunCLI(o, &stdout, &stderr); code != 0 {
		t.Fatalf("governanced graph %v: exit %d\n%s", o.Patterns, code, stderr.String())
	}
	return stdout.Bytes()
}

// servedCommand is where `governanced graph` runs to name the files as
// the snapshot serves them (view.go), and its PATHs there: the tree's root
// for a tree of apps, else the directory holding the trees (tests keep
// several trees side by side). rel, when given, are PATHs relative to the
// one tree's served top instead of the check's own.
func servedCommand(t *testing.T, in Inputs, rel []string) Inputs {
	t.Helper()
	v, err := in.view(os.DirFS("/"), true)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(in.abs(in.Trees[0]))
	if err != nil {
		t.Fatal(err)
	}
	out := Inputs{Dir: root, OverlayName: in.OverlayName}
	if v.trees[0] != "." {
		out.Dir = filepath.Dir(root)
	}
	out.Trees = v.paths
	if len(rel) > 0 {
		out.Trees = nil
		for _, r := range rel {
			out.Trees = append(out.Trees, joinDisplay(v.trees[0], r))
		}
	}
	return out
}

// TestGraphIsTheCommands holds every rendering the snapshot serves to what
// `governanced graph` prints for the same files, in both readings: the
// json rendering as a JSON value (the served one adds revision and
// overlays), the others byte for byte.
func TestGraphIsTheCommands(t *testing.T) {
	real := copyReal(t)
	disc := testfs.Tree(t, discoveryTree)
	single := testfs.Tree(t, map[string]string{"pipe/governance.yaml": "defaults: {}\ndepends_on: []\nsources:\n  x.a: {}\n"})
	for _, tc := range []struct {
		name string
		in   Inputs
		// patterns are the command's PATHs that name the same files as the
		// check's (nil: the check's own, Inputs.Paths).
		patterns []string
	}{
		{"17 real files, absolute tree", Inputs{Trees: []string{real}}, nil},
		{"17 real files, relative tree", Inputs{Trees: []string{"."}, Dir: real}, nil},
		{"discovery and overlays", Inputs{Trees: []string{"."}, Dir: disc}, nil},
		{"discovery, named overlay", Inputs{Trees: []string{disc}, OverlayName: "b"}, nil},
		{"two trees", Inputs{Trees: []string{"real", "disc"}, Dir: filepath.Dir(real)}, nil},
		{"a root holding one governance.yaml", Inputs{Trees: []string{"."}, Dir: filepath.Join(single, "pipe")}, nil},
		// A root that is an apps directory: the check takes the apps in it,
		// graph.md takes a named directory's own governance.yaml only, so
		// the command needs the glob.
		{"a root that is an apps directory", Inputs{Trees: []string{"."}, Dir: filepath.Join(disc, "apps")}, []string{"*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if tc.name == "two trees" {
				// Both trees side by side under one directory.
				parent := t.TempDir()
				if err := os.Symlink(real, filepath.Join(parent, "real")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(disc, filepath.Join(parent, "disc")); err != nil {
					t.Fatal(err)
				}
				in.Dir = parent
			}
			s, err := (&Loader{Inputs: in}).Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			cmdIn := servedCommand(t, in, tc.patterns)
			in, patterns := cmdIn, cmdIn.Trees
			for _, overlays := range []bool{false, true} {
				for _, f := range []graph.Format{graph.Tree, graph.Order, graph.Mermaid} {
					body := rendered(t, s, overlays, f)
					if diff := cmp.Diff(string(cliOutput(t, in, patterns, f, overlays)), string(body)); diff != "" {
						t.Errorf("overlays=%v %s (-command +served):\n%s", overlays, f, diff)
					}
				}
				body := rendered(t, s, overlays, graph.JSON)
				var served, printed map[string]any
				if err := json.Unmarshal(body, &served); err != nil {
					t.Fatalf("served json: %v\n%s", err, body)
				}
				if err := json.Unmarshal(cliOutput(t, in, patterns, graph.JSON, overlays), &printed); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(printed, served); diff != "" {
					t.Errorf("overlays=%v json (-command +served):\n%s", overlays, diff)
				}
			}
		})
	}
}

// TestGraphReadings: what an overlay changes in one reading and not in the
// other, and the counts /status reports.
func TestGraphReadings(t *testing.T) {
	s, err := (&Loader{Inputs: Inputs{Trees: []string{"."}, Dir: testfs.Tree(t, discoveryTree)}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	base, merged := s.Graph(), s.MergedGraph()
	if s.GraphOf(false) != base || s.GraphOf(true) != merged || s.MergedGraph() != merged {
		t.Fatal("GraphOf does not return the snapshot's graphs, or the merged one is built twice")
	}
	var names []string
	for _, p := range base.Pipelines {
		names = append(names, p.Name)
	}
	// The check's order of the units, which is graph.md's discovery order.
	if diff := cmp.Diff([]string{"a", "a-b", "a.c", "b", "c"}, names); diff != "" {
		t.Errorf("pipelines (-want +got):\n%s", diff)
	}
	kinds := func(g *graph.Graph) []string {
		var out []string
		for _, f := range g.Findings {
			out = append(out, string(f.Kind)+" "+f.Pipeline+" "+f.Dataset)
		}
		return out
	}
	// The base files: b is active and its inputs undeclared; nothing
	// produces x.b2. The glob x.* of a.c matches every key.
	if diff := cmp.Diff([]string{"unresolved c x.b2"}, kinds(base)); diff != "" {
		t.Errorf("base findings (-want +got):\n%s", diff)
	}
	// Merged: b's overlay retires it, so c and a.c (whose x.* matches
	// both of b's keys) read from an inactive producer, and b now reads x.ab.
	want := []string{"inactive-producer a.c x.b", "inactive-producer a.c x.b2", "inactive-producer c x.b", "inactive-producer c x.b2"}
	if diff := cmp.Diff(want, kinds(merged)); diff != "" {
		t.Errorf("merged findings (-want +got):\n%s", diff)
	}
	if n, _ := base.Pipeline("b"); !n.Pipeline.Active || n.Pipeline.Declared {
		t.Errorf("base b: active %v declared %v, want true false", n.Pipeline.Active, n.Pipeline.Declared)
	}
	if n, _ := merged.Pipeline("b"); n.Pipeline.Active || !n.Pipeline.Declared || len(n.Outputs) != 2 {
		t.Errorf("merged b: active %v declared %v outputs %d, want false true 2", n.Pipeline.Active, n.Pipeline.Declared, len(n.Outputs))
	}

	// a→a-b, a→a.c, a-b→a.c, b→a.c, c→a.c, b→c.
	wantCounts := GraphCounts{Pipelines: 5, Declaring: 4, Edges: 6, Tiers: 3, Findings: map[graph.Kind]int{
		graph.Unresolved: 1, graph.MultipleProducers: 0, graph.Cycle: 0, graph.SelfDependency: 0,
		graph.InactiveProducer: 0, graph.ExternalSatisfied: 0,
	}}
	if diff := cmp.Diff(wantCounts, s.GraphCounts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// TestGraphKinds: the served graph counts every kind but the schedule
// checks', which need a deployment's flows.
func TestGraphKinds(t *testing.T) {
	want := []graph.Kind{graph.Unresolved, graph.MultipleProducers, graph.Cycle, graph.SelfDependency, graph.InactiveProducer, graph.ExternalSatisfied}
	if diff := cmp.Diff(want, GraphKinds()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReloadIntoACycle: an edit that closes a cycle is served, and shows in
// the next revision's graph; the edit that opens it again clears it.
func TestReloadIntoACycle(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/p/governance.yaml": "defaults: {}\ndepends_on: []\nsources:\n  ds.p: {}\n",
		"apps/q/governance.yaml": "defaults: {}\ndepends_on:\n  - dataset: ds.p\nsources:\n  ds.q: {}\n",
	})
	store := NewStore(&Loader{Inputs: Inputs{Trees: []string{dir}}})
	if st := store.Reload(context.Background(), true); st.Outcome != Activated {
		t.Fatalf("first load: %v", st.Err)
	}
	first := store.Current()
	if c := first.GraphCounts(); c.Findings[graph.Cycle] != 0 || c.Tiers != 2 || c.Edges != 1 {
		t.Fatalf("before: %+v", c)
	}

	testfs.Replace(t, dir, "apps/p/governance.yaml", "depends_on: []", "depends_on:\n  - dataset: ds.q")
	st := store.Reload(context.Background(), false)
	if st.Outcome != Activated || st.UnitsReused != 1 || st.UnitsBuilt != 1 {
		t.Fatalf("reload: %v %v, reused %d built %d", st.Outcome, st.Err, st.UnitsReused, st.UnitsBuilt)
	}
	cur := store.Current()
	if cur.Revision == first.Revision {
		t.Fatal("the revision did not change")
	}
	c := cur.GraphCounts()
	if c.Findings[graph.Cycle] != 1 || c.Tiers != 0 || c.Unplaced != 2 || c.Edges != 2 {
		t.Errorf("after: %+v", c)
	}
	if body := rendered(t, cur, false, graph.JSON); !bytes.Contains(body, []byte(`"kind": "cycle"`)) {
		t.Errorf("the served graph does not show the cycle:\n%s", body)
	}
	// The revision before keeps its own graph.
	if first.GraphCounts().Findings[graph.Cycle] != 0 {
		t.Error("the old revision's graph changed")
	}

	testfs.Replace(t, dir, "apps/p/governance.yaml", "  - dataset: ds.q", "  - dataset: ds.elsewhere\n    external: true")
	if st := store.Reload(context.Background(), false); st.Outcome != Activated {
		t.Fatalf("reload: %v %v", st.Outcome, st.Err)
	}
	if c := store.Current().GraphCounts(); c.Findings[graph.Cycle] != 0 || c.Tiers != 2 {
		t.Errorf("after opening the cycle: %+v", c)
	}
}

// baseDocuments are every governance document the repository's tests hold:
// the files on disk (the real ones, the check's and graph.md's cases, the
// demo and the API's test tree) and the documents inside the conformance
// cases, by a name for messages.
func baseDocuments(t testing.TB) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, root := range []string{testcorpus.Root(t), "../graph/testdata", "../demo/tree", "../../api/testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), "governance") || !strings.HasSuffix(d.Name(), ".yaml") {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				docs[p] = b
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range testcorpus.Glob(t, testcorpus.Path(t, "conformance"), "*.json", 30) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Cases []struct {
				ID     string                            `json:"id"`
				Inputs map[string]struct{ Text *string } `json:"inputs"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, c := range file.Cases {
			for name, in := range c.Inputs {
				if strings.HasPrefix(name, "governance") && in.Text != nil {
					docs[c.ID+"/"+name] = []byte(*in.Text)
				}
			}
		}
	}
	return docs
}

// baseViewsAgree checks one document as a base the check serves alone and,
// when it is served, compares the graph's view of it read from the check's
// parse (what the snapshot does) with graph.Parse's reading of the bytes
// (what `governanced graph` does). served is false for a document the check
// does not serve: nothing to compare.
func baseViewsAgree(data []byte) (served bool, diff string, err error) {
	u := check.Unit{App: "app", Base: check.File{Display: "apps/app/governance.yaml", Name: "apps/app/governance.yaml", Data: data}}
	res := check.CheckUnit(&u)
	if res.Config == nil {
		return false, "", nil
	}
	fromCheck := baseNode("app", u.Base.Display, res.Base)
	parsed, err := graph.Parse(data, u.Base.Display)
	if err != nil {
		return true, "", err
	}
	parsed.Name = "app"
	// A reading lists its keys in Produces, a configuration lends its
	// pipeline its index of them (and the keys compiled): the keys are
	// compared as Keys reads them.
	opts := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(graph.Pipeline{}), cmpopts.IgnoreFields(graph.Pipeline{}, "Produces")}
	return true, cmp.Diff(parsed.Keys(), fromCheck.Keys(), cmpopts.EquateEmpty()) + cmp.Diff(parsed, fromCheck, opts), nil
}

// TestBaseViewIsGraphParse: for every base the check serves, the pipeline
// the snapshot reads from the check's parse is the one graph.md's loader
// reads from the bytes, so GET /graph is `governanced graph` without
// parsing every file twice.
func TestBaseViewIsGraphParse(t *testing.T) {
	docs := baseDocuments(t)
	compared := 0
	for name, data := range docs {
		served, diff, err := baseViewsAgree(data)
		if err != nil {
			t.Errorf("%s: the check serves it, graph.Parse refuses it: %v", name, err)
		}
		if diff != "" {
			t.Errorf("%s (-graph.Parse +check):\n%s", name, diff)
		}
		if served {
			compared++
		}
	}
	t.Logf("%d documents, %d served and compared", len(docs), compared)
	if compared < 100 {
		t.Errorf("only %d of %d documents were served: the comparison proves little", compared, len(docs))
	}
}

// FuzzBaseViewIsGraphParse is TestBaseViewIsGraphParse over any document.
func FuzzBaseViewIsGraphParse(f *testing.F) {
	for _, data := range baseDocuments(f) {
		f.Add(data)
	}
	f.Add([]byte("sources:\ndepends_on:\nactive: true\n"))
	f.Add([]byte("sources: {a: {}}\ndepends_on:\n  - {dataset: x, external: 'yes', optional: 0, description: ~}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, diff, err := baseViewsAgree(data)
		if err != nil {
			t.Fatalf("the check serves it, graph.Parse refuses it: %v", err)
		}
		if diff != "" {
			t.Fatalf("(-graph.Parse +check):\n%s", diff)
		}
	})
}

// TestGraphNamesAreAppNames: a pipeline is named after the app the snapshot
// serves, so /graph/pipelines/{name} and /apps/{app} agree. For an app
// directory that is a symlink this is where the served graph and the
// command differ: the command names it after the directory it resolves to
// (graph.md §12.1 C5).
func TestGraphNamesAreAppNames(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"elsewhere/b/governance.yaml": "defaults: {}\nsources:\n  x.a: {}\n"})
	if err := os.MkdirAll(filepath.Join(dir, "apps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../elsewhere/b", filepath.Join(dir, "apps", "alias")); err != nil {
		t.Fatal(err)
	}
	in := Inputs{Trees: []string{"."}, Dir: dir}
	s, err := (&Loader{Inputs: in}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := s.Graph().Pipelines[0]
	if p.Name != "alias" || s.App(p.Name) == nil || p.Path != "apps/alias/governance.yaml" {
		t.Errorf("pipeline %q at %s; served apps %v", p.Name, p.Path, s.Apps()[0].Name)
	}
	cmdIn := servedCommand(t, in, nil)
	if got := string(cliOutput(t, cmdIn, cmdIn.Trees, graph.Order, false)); got != "1. b\n" {
		t.Errorf("the command's order: %q, want the resolved directory's name b", got)
	}
}

// TestGraphConcurrentReaders: the merged graph is made on first request;
// readers racing for it get one and the same (go test -race watches the
// rest).
func TestGraphConcurrentReaders(t *testing.T) {
	s, err := (&Loader{Inputs: Inputs{Trees: []string{"."}, Dir: testfs.Tree(t, discoveryTree)}}).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const readers = 8
	graphs := make([]*graph.Graph, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			s.GraphOf(i%2 == 0)
			graphs[i] = s.MergedGraph()
		})
	}
	wg.Wait()
	for i := 1; i < readers; i++ {
		if graphs[i] != graphs[0] {
			t.Fatalf("reader %d got another merged graph", i)
		}
	}
}

// rendered is one reading of s's graph in a format, as `governanced graph`
// renders it.
func rendered(t *testing.T, s *Snapshot, overlays bool, f graph.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := graph.Render(&buf, s.GraphOf(overlays), f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

package graph

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/keyindex"
)

// TestMatches is graph.md §5's list of consequences, held to the matcher
// the graph uses: a dependency looked up in an index of one key.
func TestMatches(t *testing.T) {
	found := func(pattern, key string) bool { return len(lookup(keyindex.New([]string{key}), pattern, nil)) > 0 }
	tests := []struct {
		pattern, key string
		want         bool
	}{
		{"datasets.*_gold.x", "datasets.ds_dev_gold.x", true},
		{"datasets.*_gold.x", "datasets.ds_prod_gold.x", true},
		{"datasets.*_gold.x", "datasets.ds_dev_silver.x", false},
		{"datasets.*_gold.x", "DATASETS.ds_dev_gold.X", false},
		{"datasets.ds_dev_gold.f_one", "datasets.ds_dev_gold.f_*", true},
		{"datasets.*_gold.f_*", "datasets.ds_dev_gold.f_*", true},
		{"datasets.*_gold.x", "datasets.ds_dev_*.x", false},
		{"a.b", "a.b", true},
		{"a.b", "a.c", false},
		{"*", "a/b.c", true},
		{"[a]", "[a]", false}, // a pattern is not always matched by its own text
		{"[a]", "a", true},
		{"[!a]", "b", true},
		{"[^a]", "^", true},  // [^…] is not a negation
		{"a[", "a[", true},   // an unclosed [ is literal
		{`a\*`, `a\b`, true}, // no escape character
	}
	for _, tt := range tests {
		if got := found(tt.pattern, tt.key); got != tt.want {
			t.Errorf("%q matches %q: %v, want %v", tt.pattern, tt.key, got, tt.want)
		}
		if got := found(tt.key, tt.pattern); got != tt.want {
			t.Errorf("%q matches %q: %v, want %v (the relation is symmetric)", tt.key, tt.pattern, got, tt.want)
		}
	}
}

// TestMinutes is graph.md §7.3's examples, and §12 N4.
func TestMinutes(t *testing.T) {
	seq := func(from, to, step int) []int {
		var out []int
		for m := from; m <= to; m += step {
			out = append(out, m)
		}
		return out
	}
	tests := []struct {
		field string
		want  []int
	}{
		{"15", []int{15}},
		{"*/15", []int{0, 15, 30, 45}},
		{"2,12,22", []int{2, 12, 22}},
		{"3-58/5", seq(3, 58, 5)},
		{"20/15", []int{20, 35, 50}},
		{"20/1", []int{20}},
		{"*", seq(0, 59, 1)},
		{"", seq(0, 59, 1)},
		{"*/x", seq(0, 59, 1)},
		{"*/0", []int{}},
		{"MON-FRI", []int{}},
		{"MON", []int{}},
		{"5,*/0", []int{5}},
		{"1_0", []int{}},              // not digits for str.isdigit()
		{"1_0-12", []int{10, 11, 12}}, // but int() reads it in a range
		{"+5-7", []int{5, 6, 7}},
		{"7-5", []int{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, minutes(tt.field)); diff != "" {
			t.Errorf("minutes(%q) (-want +got):\n%s", tt.field, diff)
		}
	}
}

func TestHourly(t *testing.T) {
	for cron, want := range map[string]bool{
		"15 * * * *": true, "*/5  *\t* * *": true, "0 2 * * *": false, "15 * * * * *": false, "15 * * *": false,
		"15\x1c*\x1c*\x1c*\x1c*": true, // Python's split() separates at U+001C
	} {
		if got := hourly(cron); got != want {
			t.Errorf("hourly(%q) = %v, want %v", cron, got, want)
		}
	}
}

// TestDisambiguate is graph.md §4.1's example.
func TestDisambiguate(t *testing.T) {
	got := disambiguate([]string{"/w/oss/apps/grid", "/w/oss/apps/weather", "/w/deployment/apps/grid"})
	want := []string{"oss/apps/grid", "weather", "deployment/apps/grid"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The root counts as a segment: the reference joins it as "/".
	if diff := cmp.Diff([]string{"//grid", "x/grid"}, disambiguate([]string{"/grid", "/x/grid"})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPathText(t *testing.T) {
	for in, want := range map[string]string{
		"./apps//a/": "apps/a", "": ".", ".": ".", "/": "/", "//a": "//a", "///a": "/a", "a/../b": "a/../b",
	} {
		if got := pathStr(in); got != want {
			t.Errorf("pathStr(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGlobOrder is §12.1 C3 and the "**" and hidden-entry rules of check.md
// §3.1 at the level of raw hits.
func TestGlobOrder(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"apps/a/governance.yaml", "apps/a-b/governance.yaml", "apps/a.c/x", "apps/.h/governance.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := fsys{dir: dir}
	tests := map[string][]string{
		"apps/*/":                 {"apps/a-b/", "apps/a.c/", "apps/a/"},
		"apps/*":                  {"apps/a", "apps/a-b", "apps/a.c"},
		"./apps/a*/x":             {"./apps/a.c/x"},
		"apps/.*":                 {"apps/.h"},
		"**/governance.yaml":      {"apps/a-b/governance.yaml", "apps/a/governance.yaml"},
		"apps/**/":                {"apps/", "apps/a-b/", "apps/a.c/", "apps/a/"},
		"apps/a":                  {"apps/a"},
		"apps/nope":               nil,
		"apps/a/governance.yaml/": nil,
	}
	for pattern, want := range tests {
		if diff := cmp.Diff(want, f.pyGlob(pattern)); diff != "" {
			t.Errorf("pyGlob(%q) (-want +got):\n%s", pattern, diff)
		}
	}
}

// g2 is graph.md §10 G2's pipelines.
func g2(t *testing.T) *Graph {
	t.Helper()
	d, err := Discover("testdata/cases/g2-every-finding/tree", []string{"apps/*"})
	if err != nil {
		t.Fatal(err)
	}
	pipelines, _, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	return Build(pipelines, Options{})
}

// TestG2JSON checks what graph.md §10 G2 says of the json rendering.
func TestG2JSON(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, g2(t), JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Pipelines []struct {
			Name      string            `json:"name"`
			Declared  bool              `json:"declared"`
			Produces  []string          `json:"produces"`
			DependsOn []json.RawMessage `json:"depends_on"`
		} `json:"pipelines"`
		Edges []struct {
			Producer, Consumer, Dataset, Pattern string
			Optional                             bool
		} `json:"edges"`
		Tiers    [][]string `json:"tiers"`
		Findings []struct {
			Kind     string  `json:"kind"`
			Pipeline *string `json:"pipeline"`
			Dataset  *string `json:"dataset"`
			Detail   string  `json:"detail"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range doc.Pipelines {
		names = append(names, p.Name)
		undeclared := p.Name == "b" || p.Name == "f"
		if p.Declared == undeclared || (undeclared && (p.DependsOn == nil || len(p.DependsOn) != 0)) {
			t.Errorf("pipeline %s: declared %v, depends_on %v", p.Name, p.Declared, p.DependsOn)
		}
		if p.Name == "e" && (p.Produces == nil || len(p.Produces) != 0) {
			t.Errorf("e produces %v, want []", p.Produces)
		}
	}
	var edges []string
	for _, e := range doc.Edges {
		s := e.Producer + ">" + e.Consumer + " " + e.Dataset + " via " + e.Pattern
		if e.Optional {
			s += " optional"
		}
		edges = append(edges, s)
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	var findings []string
	for _, f := range doc.Findings {
		findings = append(findings, f.Kind+" "+str(f.Pipeline)+" "+str(f.Dataset))
		if f.Detail == "" {
			t.Errorf("%s: no detail", f.Kind)
		}
	}
	for _, part := range []struct {
		name      string
		want, got any
	}{
		{"pipelines", []string{"a", "b", "c", "d", "e", "f", "g"}, names},
		{"edges", []string{
			"b>a datasets.ds_dev_gold.shared via datasets.*_gold.shared",
			"b>c datasets.ds_dev_gold.old via datasets.*_gold.old",
			"d>c datasets.ds_dev_gold.d_out via datasets.ds_dev_gold.d_out",
			"c>d datasets.ds_dev_gold.c_out via datasets.ds_dev_gold.c_out",
			"d>e datasets.ds_dev_gold.d_out via datasets.ds_dev_gold.d_out optional",
			"f>g datasets.ds_dev_gold.f_* via datasets.ds_dev_gold.f_one",
			"f>g datasets.ds_dev_gold.f_* via datasets.*_gold.f_*",
		}, edges},
		{"tiers", [][]string{{"b", "f"}, {"a", "g"}}, doc.Tiers},
		{"findings", []string{
			"unresolved a datasets.*_silver.mteers_data_normalized",
			"multiple-producers null datasets.ds_dev_gold.shared",
			"cycle null null",
			"self-dependency a datasets.*_gold.mine",
			"self-dependency a datasets.*_gold.shared",
			"inactive-producer a datasets.ds_dev_gold.shared",
			"inactive-producer c datasets.ds_dev_gold.old",
			"external-satisfied a datasets.*_gold.shared",
		}, findings},
	} {
		if diff := cmp.Diff(part.want, part.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", part.name, diff)
		}
	}
}

// TestQueries exercises what the server serves: producers and consumers of a
// dataset name, one pipeline's inputs, outputs and tier, and what lies up-
// and downstream of it.
func TestQueries(t *testing.T) {
	g := g2(t)
	if diff := cmp.Diff([]Producer{{"a", "datasets.ds_dev_gold.shared"}, {"b", "datasets.ds_dev_gold.shared"}},
		g.Producers("datasets.ds_dev_gold.shared")); diff != "" {
		t.Errorf("Producers(shared) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Producer{{"f", "datasets.ds_dev_gold.f_*"}}, g.Producers("datasets.ds_dev_gold.f_two")); diff != "" {
		t.Errorf("Producers(f_two), through a glob key (-want +got):\n%s", diff)
	}
	var consumers []string
	for _, c := range g.Consumers("datasets.ds_prod_gold.f_one") {
		consumers = append(consumers, c.Pipeline+" "+c.Dependency.Dataset)
	}
	if diff := cmp.Diff([]string{"g datasets.*_gold.f_*"}, consumers); diff != "" {
		t.Errorf("Consumers(ds_prod_gold.f_one) (-want +got):\n%s", diff)
	}

	n, ok := g.Pipeline("g")
	if !ok || n.Tier != 1 || len(n.Inputs) != 2 || len(n.Outputs) != 0 {
		t.Fatalf("Pipeline(g) = %+v, %v", n, ok)
	}
	if diff := cmp.Diff([]Producer{{"f", "datasets.ds_dev_gold.f_*"}}, n.Inputs[1].Producers); diff != "" {
		t.Errorf("g's second input (-want +got):\n%s", diff)
	}
	b, _ := g.Pipeline("b")
	if len(b.Outputs) != 2 || len(b.Outputs[0].Consumers) != 1 || b.Outputs[0].Consumers[0].Pipeline != "a" ||
		len(b.Outputs[1].Consumers) != 1 || b.Outputs[1].Consumers[0].Pipeline != "c" {
		t.Errorf("b's outputs: %+v", b.Outputs)
	}
	if c, _ := g.Pipeline("c"); c.Tier != -1 {
		t.Errorf("c (in a cycle) has tier %d, want -1", c.Tier)
	}
	if diff := cmp.Diff([]Reach{{"a", 1}, {"c", 1}, {"d", 2}, {"e", 3}}, g.Downstream("b", 0)); diff != "" {
		t.Errorf("Downstream(b) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Reach{{"a", 1}, {"c", 1}}, g.Downstream("b", 1)); diff != "" {
		t.Errorf("Downstream(b, 1) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Reach{{"d", 1}, {"c", 2}, {"b", 3}}, g.Upstream("e", 0)); diff != "" {
		t.Errorf("Upstream(e) (-want +got):\n%s", diff)
	}
	if p := g.Find("e"); p == nil || p.Name != "e" || !p.Declared {
		t.Errorf("Find(e) = %+v", p)
	}
	if p := g.Find("nope"); p != nil {
		t.Errorf("Find(nope) = %+v", p)
	}
	about := func(name string) []string {
		var out []string
		for _, f := range g.FindingsOf(name) {
			out = append(out, string(f.Kind)+" "+f.Dataset)
		}
		return out
	}
	for name, want := range map[string][]string{
		"a": {"unresolved datasets.*_silver.mteers_data_normalized", "multiple-producers datasets.ds_dev_gold.shared",
			"self-dependency datasets.*_gold.mine", "self-dependency datasets.*_gold.shared",
			"inactive-producer datasets.ds_dev_gold.shared", "external-satisfied datasets.*_gold.shared"},
		"b":    {"multiple-producers datasets.ds_dev_gold.shared"},
		"c":    {"cycle ", "inactive-producer datasets.ds_dev_gold.old"},
		"e":    {"cycle "},
		"f":    nil,
		"nope": nil,
	} {
		if diff := cmp.Diff(want, about(name)); diff != "" {
			t.Errorf("FindingsOf(%s) (-want +got):\n%s", name, diff)
		}
	}
	for k, want := range map[Kind]int{Unresolved: 1, SelfDependency: 2, InactiveProducer: 2, Cycle: 1, NotDeployed: 0} {
		if got := g.Count(k); got != want {
			t.Errorf("Count(%s) = %d, want %d", k, got, want)
		}
	}
}

// TestFromConfig is the server's path: a configuration with its overlay
// merged, whose active and depends_on the overlay replaced.
func TestFromConfig(t *testing.T) {
	base, err := governance.Parse([]byte("depends_on: []\nsources:\n  datasets.a: {}\n"), "governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := governance.Parse([]byte("active: false\ndepends_on:\n  - dataset: datasets.b\n"), "governance.x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := FromConfig("x", "apps/x/governance.yaml", governance.MergeConfigs(base, overlay))
	// The keys are read in the configuration's index, not copied into
	// Produces.
	want := Pipeline{Name: "x", Path: "apps/x/governance.yaml", Active: false, Declared: true,
		DependsOn: []governance.Dependency{{Dataset: "datasets.b"}}}
	if diff := cmp.Diff(want, p, cmpopts.IgnoreUnexported(Pipeline{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"datasets.a"}, p.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteJSONMembers: the compact members are the json rendering's
// object, value for value, non-ASCII text included.
func TestWriteJSONMembers(t *testing.T) {
	g := g2(t)
	// A description outside ASCII, and a name that needs escaping.
	desc := "lecture \u00e9t\u00e9 \"quoted\" \U0001F600"
	g = Build(append(append([]Pipeline(nil), g.Pipelines...), Pipeline{Name: "h\tx", Path: "apps/h/governance.yaml", Active: true, Declared: true,
		DependsOn: []governance.Dependency{{Dataset: "datasets.ds_dev_gold.mine", Description: &desc}}}), Options{})
	var pretty, members bytes.Buffer
	if err := Render(&pretty, g, JSON); err != nil {
		t.Fatal(err)
	}
	members.WriteByte('{')
	if err := WriteJSONMembers(&members, g); err != nil {
		t.Fatal(err)
	}
	members.WriteByte('}')
	if bytes.Contains(members.Bytes(), []byte("\n")) {
		t.Errorf("a newline in the compact members:\n%s", members.Bytes())
	}
	var want, got any
	if err := json.Unmarshal(pretty.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(members.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, members.Bytes())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-rendering +members):\n%s", diff)
	}
	if members.Len() >= pretty.Len() {
		t.Errorf("compact %d bytes, rendering %d", members.Len(), pretty.Len())
	}
}

// TestFromSchedules: the four kinds only a deployment's flows produce.
func TestFromSchedules(t *testing.T) {
	var got []Kind
	for _, k := range Kinds() {
		if k.FromSchedules() {
			got = append(got, k)
		}
	}
	if diff := cmp.Diff([]Kind{ScheduleInversion, ScheduleCollision, ScheduleUnverified, NotDeployed}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

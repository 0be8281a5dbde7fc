package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func render(t *testing.T, r *Report, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// riskyHead lowers an access level, offers a glob and edits a description.
func riskyHead(t *testing.T) files {
	const m = "apps/meters/governance.yaml"
	return baseTree.replace(t, m, "    access_level: restricted\n", "    access_level: internal\n").
		replace(t, m, "datasets.public_*:", "datasets.*:").
		replace(t, "apps/grid/governance.yaml", "    title: Lines\n", "    title: Power lines\n")
}

func TestMarkdown(t *testing.T) {
	rep := compareFiles(t, baseTree, riskyHead(t))
	rep.Head.Root = "head"
	md := render(t, rep, "markdown")
	for _, want := range []string{
		"| ⚠️ `access-level-lowered` | 1 |",
		"| `access-level-lowered` | `meters`: `datasets.meters.raw` | `restricted` → `internal` | `head/apps/meters/governance.yaml:17` |",
		"| `dataspace-offered` | `meters`: `datasets.*` | `absent` → `true` | `head/apps/meters/governance.yaml:39` |",
		"| added | `meters` `datasets.*` | `head/apps/meters/governance.yaml:34` |",
		"| `grid`: `datasets.grid.lines` | `title` | `\"Lines\"` → `\"Power lines\"` | `head/apps/grid/governance.yaml:9` |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	order := []string{"| change | count |", "#### Risky changes", "#### Datasets added and removed", "#### Field changes"}
	last := -1
	for _, h := range order {
		i := strings.Index(md, h)
		if i < last {
			t.Errorf("%q comes before what precedes it in %q", h, order)
		}
		last = i
	}
	if strings.Contains(md, "Other derived changes") {
		t.Error("a table with no row is written")
	}
}

func TestMarkdownOfNoChange(t *testing.T) {
	md := render(t, compareFiles(t, baseTree, baseTree), "markdown")
	if !strings.Contains(md, "No change to the served governance.") || strings.Contains(md, "|") {
		t.Errorf("the comment on no change:\n%s", md)
	}
}

// TestMarkdownIsBounded: a table stops at MarkdownRows rows and says how
// many it left out; the JSON lists them all.
func TestMarkdownIsBounded(t *testing.T) {
	var b, h strings.Builder
	b.WriteString("defaults: {row_filters: []}\nsources:\n")
	h.WriteString("defaults: {row_filters: []}\nsources:\n")
	n := MarkdownRows + 7
	for i := range n {
		fmt.Fprintf(&b, "  d%03d: {title: old %d}\n", i, i)
		fmt.Fprintf(&h, "  d%03d: {title: new %d}\n", i, i)
	}
	rep := compareFiles(t, files{"apps/a/governance.yaml": b.String()}, files{"apps/a/governance.yaml": h.String()})
	if len(rep.Datasets) != n {
		t.Fatalf("%d datasets changed, want %d", len(rep.Datasets), n)
	}
	md := render(t, rep, "markdown")
	if rows := strings.Count(md, "| `title` |"); rows != MarkdownRows {
		t.Errorf("%d field rows, want %d", rows, MarkdownRows)
	}
	if !strings.Contains(md, "… and 7 more") {
		t.Errorf("the comment does not say how many rows it left out:\n%s", md)
	}
}

// TestGroupedRows: one statement changing many datasets is one row and one
// annotation.
func TestGroupedRows(t *testing.T) {
	head := baseTree.replace(t, "apps/meters/governance.yaml", "  license: CC-BY-4.0\n", "  license: ODbL-1.0\n")
	rep := compareFiles(t, baseTree, head)
	md := render(t, rep, "markdown")
	want := "| `licence-changed` | 4 datasets of `meters`: `datasets.meters.daily`, `datasets.meters.legacy`, `datasets.meters.raw`, `datasets.public_*` | `CC-BY-4.0` → `ODbL-1.0` | `apps/meters/governance.yaml:3` |"
	if !strings.Contains(md, want) {
		t.Errorf("the comment lacks %q:\n%s", want, md)
	}
	gh := render(t, rep, "github")
	if n := strings.Count(gh, "title=governanced diff%3A licence-changed"); n != 1 {
		t.Errorf("%d licence-changed annotations, want one for the one line:\n%s", n, gh)
	}
}

var annotation = regexp.MustCompile(`^::(error|warning|notice) (file=[^,]+,(line=\d+,)?)?title=[^:]+::.+$`)

func TestGitHub(t *testing.T) {
	head := riskyHead(t).replace(t, "apps/grid/governance.yaml", "  access_level: internal\n", "  access_level: everyone\n")
	rep := compareFiles(t, baseTree, head)
	rep.Head.Root = "head"
	gh := strings.Split(strings.TrimSuffix(render(t, rep, "github"), "\n"), "\n")
	for _, l := range gh[:len(gh)-1] {
		if !annotation.MatchString(l) {
			t.Errorf("not a workflow annotation: %q", l)
		}
	}
	for _, want := range []string{
		"::warning file=head/apps/meters/governance.yaml,line=17,title=governanced diff%3A access-level-lowered::meters / datasets.meters.raw: access_level restricted → internal",
		"::error file=head/apps/grid/governance.yaml,line=5,title=governanced diff%3A new error schema-violation::",
	} {
		found := false
		for _, l := range gh {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no annotation starting %q in\n%s", want, strings.Join(gh, "\n"))
		}
	}
	if last := gh[len(gh)-1]; !strings.HasPrefix(last, "summary: ") || !strings.Contains(last, "new-error=1") {
		t.Errorf("last line %q, want the summary", last)
	}
}

func TestText(t *testing.T) {
	txt := render(t, compareFiles(t, baseTree, riskyHead(t)), "text")
	for _, want := range []string{
		"changed meters datasets.meters.raw\n  ! access-level-lowered: access_level restricted → internal (apps/meters/governance.yaml:17)\n    access_level: \"restricted\" → \"internal\" (apps/meters/governance.yaml:17)\n",
		"added meters datasets.* (apps/meters/governance.yaml:34)\n",
		"summary: dataset-added=1 field-changed=2 catalogue-exposed=1 dataspace-offered=1 access-level-lowered=1\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the text lacks %q:\n%s", want, txt)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	rep := compareFiles(t, baseTree, riskyHead(t))
	var back Report
	if err := json.Unmarshal([]byte(render(t, rep, "json")), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rep, &back, cmp.Comparer(func(a, b json.RawMessage) bool { return sameJSON(a, b) || len(a) == 0 && len(b) == 0 })); d != "" {
		t.Errorf("the JSON does not read back as the report (-want +got):\n%s", d)
	}
	if err := rep.Write(&bytes.Buffer{}, "yaml"); err == nil {
		t.Error("an unknown format is written")
	}
}

func TestParseKinds(t *testing.T) {
	got, err := ParseKinds(" dataspace-offered, risky ,new-warning,")
	if err != nil {
		t.Fatal(err)
	}
	want := append(RiskyKinds(), NewWarning)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kinds (-want +got):\n%s", d)
	}
	if _, err := ParseKinds("dataspace-offerd"); err == nil || !strings.Contains(err.Error(), `"dataspace-offerd"`) {
		t.Errorf("err = %v, want one naming the unknown kind", err)
	}
	rep := compareFiles(t, baseTree, riskyHead(t))
	if got := rep.Occurred([]Kind{NewError, AccessLevelLowered, OwnerChanged}); !cmp.Equal(got, []Kind{AccessLevelLowered}) {
		t.Errorf("occurred %v, want [access-level-lowered]", got)
	}
}

// TestMutateChangesSomething keeps the fuzz target honest: its mutations
// do change what is served.
func TestMutateChangesSomething(t *testing.T) {
	base := files{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  x:\n    expose: true\n    access_level: open\n"}
	head := mutate(base, []byte{1, 3})
	rep, err := Compare(context.Background(), checkTree(t, base), checkTree(t, head))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Datasets) == 0 {
		t.Errorf("mutated\n%s\ninto\n%s\nand nothing changed", base["apps/a/governance.yaml"], head["apps/a/governance.yaml"])
	}
}

// TestScanMembers holds the fast split of rule JSON to the decoder's.
func TestScanMembers(t *testing.T) {
	for _, raw := range []string{
		`{}`, `{"a":1}`, `{"a":"x,y}","b":[1,{"c":"]"}],"d":{"e":null}}`, `{"a":"q\"u,o\"te","b":true}`,
		`{"a\u0041":1}`, `{"a": 1}`, `{"a":1,}`, `{"a"}`, `[1]`, `{"a":{"b":1}`,
	} {
		fast, okFast := scanMembers([]byte(raw))
		dec, okDec := members([]byte(raw))
		if okFast && (!okDec || !cmp.Equal(fast, dec, cmp.AllowUnexported(member{}))) {
			t.Errorf("%s: scanned %v, decoded %v (%v)", raw, fast, dec, okDec)
		}
	}
	if _, ok := scanMembers([]byte(`{"a":"x,y}","b":[1,{"c":"]"}]}`)); !ok {
		t.Error("a compact object is not scanned")
	}
}

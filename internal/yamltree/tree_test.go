package yamltree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	upstream "go.yaml.in/yaml/v3"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// The fork must read every stream exactly as go.yaml.in/yaml/v3 does: the
// same tree (kinds, styles, explicit tags, values, anchors, aliases, lines and
// columns) and the same error at the same document. These tests hold it to
// that against the module itself, on hand-written edge cases, every YAML file
// of the repository and the shared reference, every string of the
// conformance cases, and fuzzed input.

var edgeCases = []string{
	"",
	"\n",
	"# only a comment\n",
	"a: 1",
	"a: 1\n---\nb: 2\n",
	"--- \n...\n",
	"---\n---\n",
	"a: 1\n--- [\n",
	"x: &A {p: 1}\ny: {<<: *A, q: 2}",
	"base: &b {x: 1}\nm:\n  <<: [*b, {y: 2}]\n  x: 2\n",
	"a: &a [*a]\n",
	"a: *nope\n",
	"a: &x 1\nb: &x 2\nc: *x\n",
	"--- &d\na: 1\n--- \nb: *d\n",
	"? complex\n: value\n? [a, b]\n: c\n",
	"!!str 1: !!int '2'\n! x: !custom y\n!<tag:yaml.org,2002:str> z: 1\n",
	"%TAG !e! tag:example.com,2000:\n---\na: !e!foo bar\n",
	"%YAML 1.1\n---\na: 1\n",
	"a: |\n  literal\n   text\nb: >-\n  folded\n  text\n\nc: |+\n  keep\n\n",
	"a: 'single ''quoted'''\nb: \"double\\tquoted\\u00e9\"\nc: plain   with  spaces\n",
	"a:\n  - 1\n  - [2, {3: 4}]\n  - - nested\n",
	"a: 1 # line comment\n# head comment\nb:\n  c: 2\n  # foot comment\n\nd: 3\n",
	"a:\n  b: 1\n  # tail\n# dedented\nc: 2\n",
	"\ufeffa: bom\n",
	"a: 1\r\nb: 2\r\n",
	"a:\tb\n",
	"\ta: 1\n",
	"a: b: c\n",
	"a: [1, 2\n",
	"a: {b\n",
	"- a\nb: c\n",
	"a: 'unterminated\n",
	"a: \"\\x\"\n",
	"a: |0\n x\n",
	"<<: 1\n'<<': 2\n",
	"= : 1\n=: 2\n",
	"a: !!binary aGVsbG8=\n",
	"&a a: *a\n",
	"[a, b]: c\n",
	"datasets:\n  sources:\n    'ds.*':\n      owner: x\n",
	"a: \u2028b\n",
	"a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	strings.Repeat("- ", 50) + "x\n",
}

func TestMatchesYAMLv3(t *testing.T) {
	inputs := map[string][]byte{}
	for i, s := range edgeCases {
		inputs[fmt.Sprintf("edge case %d", i)] = []byte(s)
	}
	for _, root := range []string{"../..", testcorpus.Path(t, "reference")} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				if data, err := os.ReadFile(path); err == nil {
					inputs[path] = data
				}
			}
			return nil
		})
	}
	strs := conformanceStrings(t)
	for i, s := range strs {
		inputs[fmt.Sprintf("conformance string %d", i)] = []byte(s)
	}
	// About 21,800: the repository's YAML files, the reference files and
	// the conformance strings.
	testcorpus.AtLeast(t, "yaml.v3 comparison", len(inputs), 20000)
	t.Logf("%d inputs, %d of them strings of the conformance cases", len(inputs), len(strs))
	for name, data := range inputs {
		if diff := compareStreams(data); diff != "" {
			t.Errorf("%s: %s\ninput: %q", name, diff, truncate(data))
		}
	}
}

func FuzzTree(f *testing.F) {
	for _, s := range edgeCases {
		f.Add([]byte(s))
	}
	for _, p := range testcorpus.Glob(f, testcorpus.Path(f, "reference/celine-pipelines/apps"), "*/governance.yaml", 17) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := compareStreams(data); diff != "" {
			t.Fatal(diff)
		}
	})
}

// TestCompareStreamsSeesDifferences keeps the comparison honest: a tree that
// differs from yaml.v3's in any one respect must be reported.
func TestCompareStreamsSeesDifferences(t *testing.T) {
	data := []byte("a: &x [1, 'b']\nc: *x\n")
	mutations := map[string]func(n *Node){
		"value":  func(n *Node) { n.Content[0].Content[1].Value = "z" },
		"line":   func(n *Node) { n.Content[0].Content[3].Line++ },
		"column": func(n *Node) { n.Content[0].Content[1].Column++ },
		"style":  func(n *Node) { n.Content[0].Content[1].Content[1].Style = 0 },
		"anchor": func(n *Node) { n.Content[0].Content[1].Anchor = "" },
		"alias":  func(n *Node) { n.Content[0].Content[3].Alias = n.Content[0].Content[1].Content[0] },
		"kind":   func(n *Node) { n.Content[0].Content[2].Kind = AliasNode },
		"length": func(n *Node) { n.Content[0].Content = n.Content[0].Content[:2] },
		"tag":    func(n *Node) { n.Content[0].Content[1].Content[1].Tag = "!!int" },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			mine, err := NewDecoder(data).Decode()
			if err != nil {
				t.Fatal(err)
			}
			var theirs upstream.Node
			if err := upstream.NewDecoder(strings.NewReader(string(data))).Decode(&theirs); err != nil {
				t.Fatal(err)
			}
			if diff := compareTrees(mine, &theirs); diff != "" {
				t.Fatalf("unmutated trees differ: %s", diff)
			}
			mutate(mine)
			if compareTrees(mine, &theirs) == "" {
				t.Errorf("a changed %s went unnoticed", name)
			}
		})
	}
}

// compareStreams decodes every document of data with both readers, as
// yaml11 does (until the first error or the end), and describes the first
// difference; "" when there is none.
func compareStreams(data []byte) string {
	mine := NewDecoder(data)
	theirs := upstream.NewDecoder(strings.NewReader(string(data)))
	// One numbering for the stream: an alias may name an earlier document's node.
	c := comparison{mine: map[*Node]int{}, theirs: map[*upstream.Node]int{}}
	for doc := 1; doc <= 20; doc++ {
		m, merr := mine.Decode()
		var tn upstream.Node
		terr := theirs.Decode(&tn)
		switch {
		case errors.Is(merr, io.EOF) && errors.Is(terr, io.EOF):
			return ""
		case merr != nil || terr != nil:
			if fmt.Sprint(merr) != fmt.Sprint(terr) {
				return fmt.Sprintf("document %d: error %v, yaml.v3 %v", doc, merr, terr)
			}
			return ""
		}
		if diff := c.walk(m, &tn, "$"); diff != "" {
			return fmt.Sprintf("document %d: %s", doc, diff)
		}
	}
	return ""
}

func compareTrees(mine *Node, theirs *upstream.Node) string {
	c := comparison{mine: map[*Node]int{}, theirs: map[*upstream.Node]int{}}
	return c.walk(mine, theirs, "$")
}

// comparison numbers the nodes of both trees in document order, so that an
// alias can be checked to point at the node in the same place.
type comparison struct {
	mine   map[*Node]int
	theirs map[*upstream.Node]int
}

func (c *comparison) walk(m *Node, t *upstream.Node, path string) string {
	if m == nil || t == nil {
		if m == nil && t == nil {
			return ""
		}
		return fmt.Sprintf("%s: node %v, yaml.v3 %v", path, m, t)
	}
	c.mine[m] = len(c.mine)
	c.theirs[t] = len(c.theirs)
	switch {
	case uint32(m.Kind) != uint32(t.Kind):
		return fmt.Sprintf("%s: kind %d, yaml.v3 %d", path, m.Kind, t.Kind)
	case uint32(m.Style) != uint32(t.Style):
		return fmt.Sprintf("%s: style %d, yaml.v3 %d", path, m.Style, t.Style)
	case m.Value != t.Value:
		return fmt.Sprintf("%s: value %q, yaml.v3 %q", path, m.Value, t.Value)
	case m.Anchor != t.Anchor:
		return fmt.Sprintf("%s: anchor %q, yaml.v3 %q", path, m.Anchor, t.Anchor)
	case m.Line != t.Line || m.Column != t.Column:
		return fmt.Sprintf("%s: at %d:%d, yaml.v3 %d:%d", path, m.Line, m.Column, t.Line, t.Column)
	case (m.Tag != "" || m.Style&TaggedStyle != 0) && m.Tag != t.Tag:
		// An untagged plain scalar's tag is left unresolved (Node).
		return fmt.Sprintf("%s: tag %q, yaml.v3 %q", path, m.Tag, t.Tag)
	case m.Tag == "" && m.Kind != ScalarNode && m.Kind != AliasNode && m.Kind != DocumentNode:
		return fmt.Sprintf("%s: a collection without a tag, yaml.v3 %q", path, t.Tag)
	case len(m.Content) != len(t.Content):
		return fmt.Sprintf("%s: %d children, yaml.v3 %d", path, len(m.Content), len(t.Content))
	case (m.Alias == nil) != (t.Alias == nil):
		return fmt.Sprintf("%s: alias %v, yaml.v3 %v", path, m.Alias != nil, t.Alias != nil)
	}
	if m.Alias != nil {
		mi, mok := c.mine[m.Alias]
		ti, tok := c.theirs[t.Alias]
		if !mok || !tok || mi != ti {
			return fmt.Sprintf("%s: alias to node %d (seen %v), yaml.v3 to node %d (seen %v)", path, mi, mok, ti, tok)
		}
	}
	for i := range m.Content {
		if diff := c.walk(m.Content[i], t.Content[i], fmt.Sprintf("%s[%d]", path, i)); diff != "" {
			return diff
		}
	}
	return ""
}

// conformanceStrings is every JSON string of the conformance cases long
// enough to be a document: inputs, expected outputs and messages alike. Any
// text is a fair input for the comparison.
func conformanceStrings(t *testing.T) []string {
	files := testcorpus.Glob(t, testcorpus.Path(t, "conformance"), "*.json", 31)
	var out []string
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) > 2 {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				collect(e)
			}
		case map[string]any:
			for _, e := range v {
				collect(e)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		collect(v)
	}
	return out
}

func truncate(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

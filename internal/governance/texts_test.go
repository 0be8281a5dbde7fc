package governance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ruleTexts is a rule's title and description as a test compares them.
type ruleTexts struct {
	Title, Description         string
	HasTitle, HasDescription   bool
	TitleSet, DescriptionSet   bool
	TitleLine, DescriptionLine int32
}

func textsOf(r *Rule) ruleTexts {
	var t ruleTexts
	t.Title, t.HasTitle = r.Title()
	t.Description, t.HasDescription = r.Description()
	t.TitleSet, t.DescriptionSet = r.Set.Has(FieldTitle), r.Set.Has(FieldDescription)
	t.TitleLine, t.DescriptionLine = r.Origin(FieldTitle).Line, r.Origin(FieldDescription).Line
	return t
}

// TestTexts: a title or description reads back as written, whatever its
// length (the length before each text takes one, two or three bytes), a
// null as none that was stated, an empty string as a text; parsed alone
// (ParseRule) or in a document, with shared values or without.
func TestTexts(t *testing.T) {
	long := strings.Repeat("x", 200)
	longer := strings.Repeat("é", 9000) // 18 000 bytes
	cfgText := fmt.Sprintf(`
defaults:
  description: shared by every source
sources:
  a: {title: A}
  b: {title: null, description: ""}
  c: {description: %s}
  d: {title: %s, license: MIT}
  e: {license: MIT}
  f: {title: "Ünïcode ✓", description: "two\nlines"}
`, long, longer)
	want := map[string]ruleTexts{
		"a": {Title: "A", HasTitle: true, TitleSet: true, TitleLine: 5},
		"b": {HasDescription: true, TitleSet: true, DescriptionSet: true, TitleLine: 6, DescriptionLine: 6},
		"c": {Description: long, HasDescription: true, DescriptionSet: true, DescriptionLine: 7},
		"d": {Title: longer, HasTitle: true, TitleSet: true, TitleLine: 8},
		"e": {},
		"f": {Title: "Ünïcode ✓", Description: "two\nlines", HasTitle: true, HasDescription: true, TitleSet: true, DescriptionSet: true, TitleLine: 10, DescriptionLine: 10},
	}
	for _, shared := range []*Values{nil, NewValues()} {
		cfg := parseWith(t, shared, "governance.yaml", cfgText)
		if d, ok := cfg.Defaults.Description(); !ok || d != "shared by every source" {
			t.Errorf("defaults' description %q, %v", d, ok)
		}
		for _, s := range cfg.Sources {
			if diff := cmp.Diff(want[s.Key], textsOf(s.Rule)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", s.Key, diff)
			}
			if s.Rule.texts != nil && s.Rule.texts != cfg.Defaults.texts {
				t.Errorf("%s reads its texts in a block of its own, not its document's", s.Key)
			}
			body, _ := s.Rule.MarshalJSON()
			if s.Key == "b" && !strings.Contains(string(body), `"title":null,"description":""`) {
				t.Errorf("b renders %s", body)
			}
		}
	}
	r := parseRuleText(t, "r.yaml", "title: T\ndescription: "+long+"\n")
	if diff := cmp.Diff(ruleTexts{Title: "T", Description: long, HasTitle: true, HasDescription: true,
		TitleSet: true, DescriptionSet: true, TitleLine: 1, DescriptionLine: 2}, textsOf(r)); diff != "" {
		t.Errorf("ParseRule (-want +got):\n%s", diff)
	}
}

// TestTextsKeptOnce: a text an alias or a merge key repeats across many
// blocks is kept once in its document's texts, so a document cannot
// multiply a long text by the number of its blocks; and the texts are a
// copy, not the YAML reader's strings.
func TestTextsKeptOnce(t *testing.T) {
	long := strings.Repeat("a long description ", 1000) // 19 000 bytes
	var b strings.Builder
	fmt.Fprintf(&b, "x-text: &t %q\nx-block: &blk {title: %q}\nsources:\n", long, long+"!")
	for i := range 1000 {
		fmt.Fprintf(&b, "  s%d: {description: *t, <<: *blk}\n", i)
	}
	cfg := parseWith(t, NewValues(), "governance.yaml", b.String())
	block := cfg.Sources[0].Rule.texts
	for _, s := range cfg.Sources {
		if got, _ := s.Rule.Description(); got != long {
			t.Fatalf("%s: description of %d bytes, want %d", s.Key, len(got), len(long))
		}
		if got, _ := s.Rule.Title(); got != long+"!" {
			t.Fatalf("%s: title of %d bytes, want %d", s.Key, len(got), len(long)+1)
		}
		if s.Rule.texts != block {
			t.Fatalf("%s reads its texts in a block of its own", s.Key)
		}
	}
	if n, most := len(block.title), 2*len(long)+10; n > most {
		t.Errorf("the document's texts take %d bytes, more than the %d of its two texts", n, most)
	}
}

// TestMergedTexts: a merge reads each text in the block of the side it
// took it from, sharing an operand's block when one holds both; neither
// operand changes.
func TestMergedTexts(t *testing.T) {
	base := parseRuleText(t, "base.yaml", "title: Base title\ndescription: Base description\n")
	titled := parseRuleText(t, "title.yaml", "title: Overlay title\n")
	described := parseRuleText(t, "desc.yaml", "\ndescription: Overlay description\n")
	both := parseRuleText(t, "both.yaml", "title: T2\ndescription: D2\n")
	nulled := parseRuleText(t, "null.yaml", "description: null\n")
	untexted := parseRuleText(t, "none.yaml", "license: MIT\n")
	before := []ruleTexts{textsOf(base), textsOf(titled), textsOf(described), textsOf(both)}
	tests := []struct {
		name           string
		base, override *Rule
		title, desc    string
		hasDesc        bool
		sharedBlock    *Rule // whose block the merge reads, nil for its own
	}{
		{"no texts stated over", base, untexted, "Base title", "Base description", true, base},
		{"both stated over", base, both, "T2", "D2", true, both},
		{"the title stated over", base, titled, "Overlay title", "Base description", true, nil},
		{"the description stated over", base, described, "Base title", "Overlay description", true, nil},
		{"the description nulled", base, nulled, "Base title", "", false, base},
		{"texts over none", untexted, both, "T2", "D2", true, both},
		{"a title over none", untexted, titled, "Overlay title", "", false, titled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := MergeRules(tt.base, tt.override)
			title, _ := m.Title()
			desc, hasDesc := m.Description()
			if title != tt.title || desc != tt.desc || hasDesc != tt.hasDesc {
				t.Errorf("merged %q, %q (%v); want %q, %q (%v)", title, desc, hasDesc, tt.title, tt.desc, tt.hasDesc)
			}
			switch {
			case tt.sharedBlock != nil && m.texts != tt.sharedBlock.texts:
				t.Error("the merge has a block of its own, where an operand's holds both its texts")
			case tt.sharedBlock == nil && (m.texts == tt.base.texts || m.texts == tt.override.texts):
				t.Error("the merge reads both its texts in one operand's block")
			}
		})
	}
	after := []ruleTexts{textsOf(base), textsOf(titled), textsOf(described), textsOf(both)}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("an operand changed (-before +after):\n%s", diff)
	}
}

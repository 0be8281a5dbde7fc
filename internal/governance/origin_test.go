package governance

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/yaml11"
)

func parseRuleText(t *testing.T, file, text string) *Rule {
	t.Helper()
	node, err := yaml11.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRule(node, file)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// place is an Origin as a test compares it: the file instead of the layer.
type place struct {
	File         string
	Line, Column int32
}

func placeOf(r *Rule, f Field) place {
	o := r.Origin(f)
	if o.Layer == nil {
		return place{Line: o.Line, Column: o.Column}
	}
	return place{File: o.Layer.File, Line: o.Line, Column: o.Column}
}

// TestOriginsThroughMerges holds Rule.Origin to the file and position each
// field's value came from, through merges of up to four files: a merge must
// neither lose a layer nor change the rules it merged, which share their
// layer lists and positions with it.
func TestOriginsThroughMerges(t *testing.T) {
	a := parseRuleText(t, "a.yaml", "title: A\nlicense: L\ntags: [x]\n")
	b := parseRuleText(t, "b.yaml", "\nlicense: L2\nexpose: true\n")
	c := parseRuleText(t, "c.yaml", "\n\ntags: [y]\n")
	d := parseRuleText(t, "d.yaml", "\n\n\nclassification: red\n")

	ab := MergeRules(a, b)
	abc := MergeRules(ab, c)
	abd := MergeRules(ab, d) // shares ab's layers with abc
	abcd := MergeRules(abc, d)

	fields := []Field{FieldTitle, FieldLicense, FieldExpose, FieldTags, FieldClassification, FieldDescription}
	tests := []struct {
		name string
		rule *Rule
		want []place
	}{
		{"a", a, []place{{"a.yaml", 1, 8}, {"a.yaml", 2, 10}, {}, {"a.yaml", 3, 7}, {}, {}}},
		{"b", b, []place{{}, {"b.yaml", 2, 10}, {"b.yaml", 3, 9}, {}, {}, {}}},
		{"a+b", ab, []place{{"a.yaml", 1, 8}, {"b.yaml", 2, 10}, {"b.yaml", 3, 9}, {"a.yaml", 3, 7}, {}, {}}},
		{"a+b+c", abc, []place{{"a.yaml", 1, 8}, {"b.yaml", 2, 10}, {"b.yaml", 3, 9}, {"c.yaml", 3, 7}, {}, {}}},
		{"a+b+d", abd, []place{{"a.yaml", 1, 8}, {"b.yaml", 2, 10}, {"b.yaml", 3, 9}, {"a.yaml", 3, 7}, {"d.yaml", 4, 17}, {}}},
		{"a+b+c+d", abcd, []place{{"a.yaml", 1, 8}, {"b.yaml", 2, 10}, {"b.yaml", 3, 9}, {"c.yaml", 3, 7}, {"d.yaml", 4, 17}, {}}},
	}
	// Rules read from one block share its layer list.
	if a2 := parseRuleText(t, "x.yaml", "title: A\n"); a2.layers == nil || len(*a2.layers) != 1 {
		t.Errorf("a parsed rule's layers: %v", a2.layers)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []place
			for _, f := range fields {
				got = append(got, placeOf(tt.rule, f))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("origins of %v (-want +got):\n%s", fields, diff)
			}
		})
	}
}

// TestOriginsOfManyLayers merges a rule from many files, each stating its
// own field, and asks every field for its file; then branches two merges off
// the same rule, so that one branch writing into the other's layers or
// positions would show.
func TestOriginsOfManyLayers(t *testing.T) {
	keys := []string{"title", "description", "license", "attribution", "access_level"}
	r := &Rule{}
	for i, k := range keys {
		r = MergeRules(r, parseRuleText(t, fmt.Sprintf("%d.yaml", i), k+": v\n"))
	}
	left := MergeRules(r, parseRuleText(t, "left.yaml", "classification: v\n"))
	right := MergeRules(r, parseRuleText(t, "right.yaml", "classification: v\n"))
	check := func(name string, r *Rule, key, file string) {
		t.Helper()
		if got, want := placeOf(r, KnownKeys[key]), (place{file, 1, int32(len(key) + 3)}); got != want {
			t.Errorf("%s: %s's origin %+v, want %+v", name, key, got, want)
		}
	}
	for _, b := range []struct {
		name string
		rule *Rule
	}{{"trunk", r}, {"left", left}, {"right", right}} {
		for i, k := range keys {
			check(b.name, b.rule, k, fmt.Sprintf("%d.yaml", i))
		}
	}
	check("left", left, "classification", "left.yaml")
	check("right", right, "classification", "right.yaml")
	if got := r.Origin(FieldClassification).Layer; got != nil {
		t.Errorf("trunk: classification has a layer, %+v, though no file of it stated one", got)
	}
}

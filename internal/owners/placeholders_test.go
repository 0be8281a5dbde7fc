package owners

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// TestReadPlaceholders: well-formed entries are read whatever else the map
// holds; every other entry is an error at its key, naming the file, the
// line, the column and the key; a root that is not a mapping is one error.
func TestReadPlaceholders(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]string
		errs      []string // Error() of each
	}{
		{"strings", "data-team: org.celine.data\nops: org.celine.ops\n",
			map[string]string{"data-team": "org.celine.data", "ops": "org.celine.ops"}, nil},
		{"a number, a list", "ok: a\n7: b\nbad: [c]\n",
			map[string]string{"ok": "a"},
			[]string{"deploy/placeholders.yaml:2:1: 7: placeholder 7: 'b' must map a string name to a string owner id",
				"deploy/placeholders.yaml:3:1: bad: placeholder 'bad': ['c'] must map a string name to a string owner id"}},
		{"a list", "- a\n", nil,
			[]string{"deploy/placeholders.yaml:1:1: placeholders must map ownership names to owner ids"}},
	}
	for _, tc := range tests {
		root, err := yaml11.Parse([]byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, errs := ReadPlaceholders(root, "deploy/placeholders.yaml")
		var texts []string
		for _, e := range errs {
			texts = append(texts, e.Error())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: map (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.errs, texts); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, diff)
		}
	}
}

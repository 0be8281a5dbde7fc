package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTree(t *testing.T) {
	dir := Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {}\n", "owners.yaml": ""})
	for name, want := range map[string]string{"apps/a/governance.yaml": "defaults: {}\n", "owners.yaml": ""} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestAppendAndReplace(t *testing.T) {
	dir := Tree(t, map[string]string{"a.yaml": "x: 1\nx: 1\n"})
	Append(t, dir, "a.yaml", "# end\n")
	Replace(t, dir, "a.yaml", "x: 1", "x: 2")
	got, err := os.ReadFile(filepath.Join(dir, "a.yaml"))
	if err != nil || string(got) != "x: 2\nx: 1\n# end\n" {
		t.Errorf("%q, %v", got, err)
	}
	ReplaceAll(t, dir, "a.yaml", "x: ", "y: ")
	got, err = os.ReadFile(filepath.Join(dir, "a.yaml"))
	if err != nil || string(got) != "y: 2\ny: 1\n# end\n" {
		t.Errorf("after ReplaceAll: %q, %v", got, err)
	}
}

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

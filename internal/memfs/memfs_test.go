package memfs

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestFS(t *testing.T) {
	var f FS
	for name, data := range map[string]string{
		"apps/a/governance.yaml":      "defaults: {}\n",
		"apps/a/governance.prod.yaml": "sources: {}\n",
		"owners.yaml":                 "owners: []\n",
	} {
		if err := f.Add(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.AddDir("empty/dir"); err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(&f, "apps/a/governance.yaml", "apps/a/governance.prod.yaml", "owners.yaml", "empty/dir"); err != nil {
		t.Fatal(err)
	}
	if n := f.Files(); n != 3 {
		t.Errorf("Files() = %d, want 3", n)
	}
}

func TestCollisions(t *testing.T) {
	var f FS
	if err := f.Add("a/b", nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		add  func() error
	}{
		{"a file twice", func() error { return f.Add("a/b", nil) }},
		{"a file below a file", func() error { return f.Add("a/b/c", nil) }},
		{"a directory where a file is", func() error { return f.AddDir("a/b") }},
		{"a file where a directory is", func() error { return f.Add("a", nil) }},
	} {
		if err := tc.add(); !errors.Is(err, ErrExist) {
			t.Errorf("%s: %v, want ErrExist", tc.name, err)
		}
	}
	for _, bad := range []string{"../x", "/x", "a//b", ""} {
		if err := f.Add(bad, nil); err == nil {
			t.Errorf("Add(%q) accepted an invalid name", bad)
		}
	}
}

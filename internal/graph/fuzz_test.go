package graph

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/keyindex"
)

// matches is graph.md §5 read literally: a depends_on pattern names a
// sources key when either of the two, read as a Python fnmatchcase pattern,
// matches the whole of the other read as text. lookup must agree with it.
func matches(pattern, key string) bool {
	return fnmatch(key, pattern) || fnmatch(pattern, key)
}

// fnmatch is Python's fnmatchcase(text, pattern). A pattern is not always
// matched by its own text: "[a]" matches only "a".
func fnmatch(text, pattern string) bool {
	if !keyindex.HasMeta(pattern) {
		return text == pattern
	}
	return keyindex.Compile(pattern).Match(text)
}

// naiveLookup is what lookup must return: every entry matches accepts, by
// comparing the query with each.
func naiveLookup(texts []string, q string) []int32 {
	var out []int32
	for i, t := range texts {
		if matches(q, t) {
			out = append(out, int32(i))
		}
	}
	return out
}

func checkLookup(t *testing.T, texts []string, q string) {
	t.Helper()
	got := lookup(keyindex.New(texts), q, nil)
	if len(got) == 0 {
		got = nil
	}
	if diff := cmp.Diff(naiveLookup(texts, q), got); diff != "" {
		t.Fatalf("lookup(%q) in %q (-naive +index):\n%s", q, texts, diff)
	}
}

// TestMatchIndexAgainstPairs compares the index with the comparison of every
// pair on small random strings over an alphabet dense in metacharacters.
func TestLookupAgainstPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab.*?[]!-"
	word := func() string {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		texts := make([]string, rng.IntN(12))
		for i := range texts {
			texts[i] = word()
		}
		checkLookup(t, texts, word())
	}
}

// FuzzMatch checks the dependency matcher: the index finds exactly the
// entries that matches accepts, and matches is symmetric.
func FuzzMatch(f *testing.F) {
	f.Add("datasets.*_gold.x", "datasets.ds_dev_gold.x\ndatasets.ds_dev_*.x\ndatasets.ds_dev_gold.f_*")
	f.Add("datasets.ds_dev_gold.f_one", "datasets.ds_dev_gold.f_*\ndatasets.ds_dev_gold.f_one")
	f.Add("[a]", "[a]\na\n[!a]")
	f.Add("a[", "a[\na[b]")
	f.Add("*", "")
	f.Add("\xff*", "\xff\xfe\n\xffa")
	f.Fuzz(func(t *testing.T, q, entries string) {
		if len(q) > 200 || len(entries) > 2000 {
			return
		}
		texts := strings.Split(entries, "\n")
		for _, e := range texts {
			if matches(q, e) != matches(e, q) {
				t.Fatalf("matches(%q, %q) is not symmetric", q, e)
			}
		}
		checkLookup(t, texts, q)
	})
}

// FuzzParse checks the loader of a document's graph view (active,
// depends_on entries, sources keys): it never panics, a failure is a
// *LoadError naming the file, and an undeclared depends_on has no entries.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("testdata/cases/*/tree/apps/*/governance.yaml")
	if err != nil || len(seeds) < 150 {
		f.Fatalf("%d seed documents under testdata/cases (want at least 150): %v", len(seeds), err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a case's dangling link (c4-dangling-symlink)
		}
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "depends_on:\n", "depends_on: {}\n", "depends_on: [{dataset: a, external: 'yes', optional: 0, description: ~}]\n",
		"depends_on: [{dataset: 5}]\n", "depends_on: [a]\n", "sources: {1: {}}\n", "sources: []\n", "active: yes\n",
		"- a\n", "a: [\n", "depends_on: &x [{dataset: a}]\nsources: {<<: {b: 1}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "f.yaml")
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "f.yaml" || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
			return
		}
		if !p.Declared && p.DependsOn != nil {
			t.Fatalf("undeclared depends_on with entries %v", p.DependsOn)
		}
		if p.Declared && p.DependsOn == nil {
			t.Fatal("declared depends_on is nil, want empty")
		}
	})
}

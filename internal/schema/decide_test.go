package schema

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// deciderSchemas are every published schema and the block the tree check
// validates on its own.
func deciderSchemas(t testing.TB) []*Schema {
	t.Helper()
	var out []*Schema
	for _, name := range append(schemas.Names(), "governance#/$defs/governanceBlock") {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// libraryValid is the library's verdict on n.
func libraryValid(s *Schema, n *yaml11.Node) bool {
	return s.sch.Validate(instance(n)) == nil
}

// TestEverySchemaHasADecider: the published schemas use only keywords the
// decider applies; a keyword added to one would silently send every
// document of a tree to the library.
func TestEverySchemaHasADecider(t *testing.T) {
	for _, s := range deciderSchemas(t) {
		if s.decide == nil {
			t.Errorf("schema %s compiles to no decider: it uses a keyword decide.go does not apply", s.Name())
		}
	}
}

// TestDeciderAgreesWithTheLibrary holds the decider to the library's
// verdict on every YAML file of the repository's test data and on
// variations of them with values of every kind put in place of others.
func TestDeciderAgreesWithTheLibrary(t *testing.T) {
	var docs []*yaml11.Node
	root := testcorpus.Root(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n, err := yaml11.Parse(data); err == nil {
			docs = append(docs, Document(n))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testcorpus.AtLeast(t, "YAML documents", len(docs), 50)
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(docs)
	for i := 0; i < n; i++ {
		for k := 0; k < 20; k++ {
			docs = append(docs, mutate(rng, docs[i]))
		}
	}
	valid, invalid := 0, 0
	for _, s := range deciderSchemas(t) {
		for i, d := range docs {
			want := libraryValid(s, d)
			if got := s.decide.valid(d); got != want {
				t.Errorf("%s, document %d: the decider says valid=%t, the library %t:\n%s", s.Name(), i, got, want, yaml11.PyRepr(d))
			}
			if want {
				valid++
			} else {
				invalid++
			}
		}
	}
	// Both verdicts must be exercised, or the test could not fail.
	testcorpus.AtLeast(t, "valid documents", valid, 100)
	testcorpus.AtLeast(t, "invalid documents", invalid, 100)
}

// values are what mutate puts in place of a value: one of every kind and
// type the schemas tell apart.
var mutations = []string{
	"null", "true", "0", "1", "-3", "1.0", "1.5", ".nan", ".inf", "2024-01-01", "2024-01-01 10:00:00",
	"''", "x", "open", "secret", "green", "gold", "use", "did:web:x", "a-b", "[]", "[x]", "[1]", "{}",
	"{handler: direct_user_match}", "{spec: x}", "{spec: x, spec_file: y}", "{name: a, type: b}",
	"{dataset: a}", "{start: x}", "{1: 2}", "123456789012345678901234567890",
}

// mutate returns a copy of n with one value (or key) replaced by one of
// mutations, or a key added or dropped.
func mutate(rng *rand.Rand, n *yaml11.Node) *yaml11.Node {
	var places []**yaml11.Node
	var maps []*yaml11.Node
	var copyNode func(n *yaml11.Node) *yaml11.Node
	copyNode = func(n *yaml11.Node) *yaml11.Node {
		c := *n
		switch n.Kind {
		case yaml11.Map:
			c.Pairs = make([]yaml11.Pair, len(n.Pairs))
			for i, p := range n.Pairs {
				c.Pairs[i] = yaml11.Pair{Key: copyNode(p.Key), Value: copyNode(p.Value)}
				places = append(places, &c.Pairs[i].Value)
			}
			maps = append(maps, &c)
		case yaml11.Seq:
			c.Items = make([]*yaml11.Node, len(n.Items))
			for i, it := range n.Items {
				c.Items[i] = copyNode(it)
				places = append(places, &c.Items[i])
			}
		}
		return &c
	}
	out := copyNode(n)
	value := func() *yaml11.Node {
		v, err := yaml11.Parse([]byte(mutations[rng.IntN(len(mutations))]))
		if err != nil {
			panic(err)
		}
		return v
	}
	switch r := rng.IntN(10); {
	case r < 6 && len(places) > 0:
		*places[rng.IntN(len(places))] = value()
	case r < 8 && len(maps) > 0:
		m := maps[rng.IntN(len(maps))]
		keys := []string{"title", "expose", "tags", "handler", "args", "spec", "dataset", "name", "type", "bogus", "owners", "sources", "defaults"}
		k := &yaml11.Node{Kind: yaml11.String, Str: keys[rng.IntN(len(keys))]}
		if rng.IntN(5) == 0 {
			k = &yaml11.Node{Kind: yaml11.Int, Int: 1}
		}
		if m.Get(k.Str) == nil || k.Kind != yaml11.String {
			m.Pairs = append(m.Pairs, yaml11.Pair{Key: k, Value: value()})
		}
	case len(maps) > 0:
		m := maps[rng.IntN(len(maps))]
		if len(m.Pairs) > 0 {
			i := rng.IntN(len(m.Pairs))
			m.Pairs = append(m.Pairs[:i:i], m.Pairs[i+1:]...)
		}
	}
	return out
}

func FuzzDecider(f *testing.F) {
	for _, seed := range []string{
		"defaults: {}\nsources: {}\n",
		"defaults: {access_level: 5, dcat: {temporal: {start: 2024-01-01}}}\nsources: {a: , 1: x}\n",
		"defaults: {ontology: {spec: x, spec_file: y}, retention_days: 1.0}\nsources: {a: {row_filters: [{handler: x, args: {}}]}}\n",
		"owners: [{id: a, type: schema:NGO, name: n, organization: {attributes: {1: 2}}}]\n",
		"- a\n", "", ".nan\n", "&a [*a]\n", "a: &x {b: 1}\nc: *x\n",
	} {
		f.Add(seed)
	}
	all := deciderSchemas(f)
	f.Fuzz(func(t *testing.T, src string) {
		root, err := yaml11.Parse([]byte(src))
		if err != nil {
			return
		}
		doc := Document(root)
		if expandedSize(doc, MaxValues) > MaxValues {
			return
		}
		for _, s := range all {
			if got, want := s.decide.valid(doc), libraryValid(s, doc); got != want {
				t.Fatalf("%s: the decider says valid=%t, the library %t", s.Name(), got, want)
			}
		}
	})
}

func BenchmarkDecider(b *testing.B) {
	s, docs := realGovernanceDocs(b)
	for _, via := range []string{"decider", "library"} {
		b.Run(via, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					ok := via == "decider" && s.decide.valid(d) || via == "library" && libraryValid(s, d)
					if !ok {
						b.Fatalf("%s: invalid", via)
					}
				}
			}
		})
	}
}

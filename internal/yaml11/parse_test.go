package yaml11

import (
	"errors"
	"os"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

func TestParseScalars(t *testing.T) {
	tests := []struct {
		text string
		want string // JSON of the loaded value
	}{
		{"a: yes", `{"a":true}`},
		{"a: 'yes'", `{"a":"yes"}`},
		{"a: y", `{"a":"y"}`},
		{"a: tRue", `{"a":"tRue"}`},
		{"a: 017", `{"a":15}`},
		{"a: 08", `{"a":"08"}`},
		{"a: 0777", `{"a":511}`},
		{"a: 1:30", `{"a":90}`},
		{"a: 1_000", `{"a":1000}`},
		{"a: 0x1F", `{"a":31}`},
		{"a: 0b101", `{"a":5}`},
		{"a: 1e3", `{"a":"1e3"}`},
		{"a: 1.0e+3", `{"a":1000.0}`},
		{"a: 1.5", `{"a":1.5}`},
		{"a: .inf", `{"a":null}`},
		{"a: 1:30.5", `{"a":90.5}`},
		{"a: ~", `{"a":null}`},
		{"a:", `{"a":null}`},
		{"a: 2024-01-01", `{"a":"2024-01-01"}`},
		{"a: 2024-01-01 10:00:00", `{"a":"2024-01-01T10:00:00"}`},
		{"a: 2024-01-01T10:00:00Z", `{"a":"2024-01-01T10:00:00+00:00"}`},
		{"a: 2024-1-1 10:00:00.5 +02:00", `{"a":"2024-01-01T10:00:00.500000+02:00"}`},
		{"a: 2024-1-1", `{"a":"2024-1-1"}`},
		{"a: 123456789012345678901234567890", `{"a":123456789012345678901234567890}`},
		{"1: x\ntrue: y", `{"1":"y"}`},
		{"a: 1\na: 2\nb: 3", `{"a":2,"b":3}`},
		{"x: &A {p: 1, q: 2}\ny:\n  <<: *A\n  q: 3", `{"x":{"p":1,"q":2},"y":{"p":1,"q":3}}`},
		{"y:\n  q: 3\n  <<: [{q: 1, r: 1}, {r: 2, s: 2}]", `{"y":{"r":1,"s":2,"q":3}}`},
		{"y:\n  <<: {a: 1}\n  <<: {a: 2}", `{"y":{"a":2}}`},
		{"'<<': 1", `{"<<":1}`},
		{"=: 1", `{"=":1}`},
		{"a: !!str 12", `{"a":"12"}`},
		{"a: !!int '12'", `{"a":12}`},
		{"", `null`},
		{"# only a comment\n", `null`},
	}
	for _, tt := range tests {
		n, err := Parse([]byte(tt.text))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.text, err)
			continue
		}
		got, _ := n.MarshalJSON()
		if string(got) != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"a: 1\n---\nb: 2\n",
		"a: =",
		"a: !foo x",
		"a: !!binary aGk=",
		"a: !!set {x}",
		"a:\n  <<: 1",
		"a:\n  <<: [1]",
		"? [1, 2]\n: x",
		"a: [1, 2",
		"a: 2024-02-30",
	} {
		_, err := Parse([]byte(text))
		var ye *Error
		if !errors.As(err, &ye) {
			t.Errorf("Parse(%q) = %v, want *Error", text, err)
		}
	}
}

func TestDuplicateKeyWarning(t *testing.T) {
	_, warnings, err := ParseWithWarnings([]byte("a: 1\nb: 2\na: 3\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Pos.Line != 3 {
		t.Fatalf("warnings = %+v, want one at line 3", warnings)
	}
}

func TestAliasesShareAndAreBounded(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	// By default the bomb is refused (limits_test.go); unbounded, it loads
	// shared, without copying a single alias.
	if _, err := Parse([]byte(laughs)); err == nil {
		t.Fatal("a billion laughs loaded within the default limits")
	}
	n, _, err := ParseWithWarnings([]byte(laughs), Limits{MaxAliasValues: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n.Get("i").Items[0] != n.Get("h") {
		t.Fatal("an alias must share its anchor's node, not copy it")
	}
}

func TestPyRepr(t *testing.T) {
	tests := []struct{ text, want string }{
		{"1e+20", ""},
	}
	_ = tests
	floats := map[float64]string{30: "30.0", 0.0001: "0.0001", 1e15: "1000000000000000.0", 1e16: "1e+16", 1e-5: "1e-05", 1.5e-7: "1.5e-07", 1.5: "1.5"}
	for f, want := range floats {
		if got := PyFloat(f); got != want {
			t.Errorf("PyFloat(%v) = %s, want %s", f, got, want)
		}
	}
	quotes := map[string]string{"a": "'a'", "it's": `"it's"`, `'"`: `'\'"'`, "é": "'é'", "\u00a0": `'\xa0'`, "\t": `'\t'`}
	for s, want := range quotes {
		if got := PyQuote(s); got != want {
			t.Errorf("PyQuote(%q) = %s, want %s", s, got, want)
		}
	}
	n, _ := Parse([]byte("- [a, 1, 2024-01-01, 2024-01-01 10:00:00+05:30, null, true]"))
	want := "[['a', 1, datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1, 10, 0, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800))), None, True]]"
	if got := PyRepr(n); got != want {
		t.Errorf("PyRepr = %s\nwant     %s", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1", "x: &A {p: 1}\ny: {<<: *A, q: 2}", "- [1, 2]", "a: 2024-01-01 10:00:00Z", "1: 2\ntrue: 3"} {
		f.Add([]byte(s))
	}
	// The real documents this reader exists for, and a bomb it must refuse.
	refs := testcorpus.ReferenceApps(f)
	for _, p := range append(refs, testcorpus.Path(f, "reference/dataset-api/owners.yaml")) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(laughs(9)))
	// One arena for every input, as a tree check reuses one: a document read
	// into it equals the same document read onto the heap.
	var arena Arena
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse(data)
		arena.Reset()
		in, arenaErr := ParseDocumentIn(data, Limits{}, &arena)
		if (err == nil) != (arenaErr == nil) {
			t.Fatalf("heap: %v; arena: %v", err, arenaErr)
		}
		if err != nil {
			var ye *Error
			if !errors.As(err, &ye) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if diff := nodeDiff(n, in.Root); diff != "" {
			t.Fatalf("read into an arena (-heap +arena):\n%s", diff)
		}
		if _, err := n.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
		_ = PyRepr(n)
	})
}

func TestDuplicateAfterMergedKeyWarns(t *testing.T) {
	n, warnings, err := ParseWithWarnings([]byte("base: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n  x: 3\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Pos.Line != 5 || warnings[0].First.Pos.Line != 4 || warnings[0].Mapping != n.Get("m") {
		t.Fatalf("warnings = %+v, want one at line 5 naming line 4 in mapping m", warnings)
	}
	if got := n.Get("m").Get("x"); got.Int != 3 {
		t.Fatalf("x = %d, want 3", got.Int)
	}
}

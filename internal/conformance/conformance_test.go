package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/testcorpus"
)

// caseFile is one conformance file (celine-governance-conformance/1).
type caseFile struct {
	Format string  `json:"format"`
	Cases  []*Case `json:"cases"`
}

// Case is one input → expected-output pair.
type Case struct {
	ID            string                     `json:"id"`
	Category      string                     `json:"category"`
	Operation     string                     `json:"operation"`
	Description   string                     `json:"description"`
	Inputs        map[string]caseInput       `json:"inputs"`
	Args          map[string]json.RawMessage `json:"args"`
	Expected      json.RawMessage            `json:"expected"`
	ExpectedError *struct {
		Class  string `json:"class"`
		Python string `json:"python"`
	} `json:"expected_error"`
	Tags []string `json:"tags"`
	Note string   `json:"note"`

	sharedDir string
}

type caseInput struct {
	Text *string `json:"text"`
	Ref  *string `json:"ref"`
}

// File returns the bytes of the named input and whether it exists (an argument
// naming a key absent from inputs means the file does not exist).
func (c *Case) File(name string) ([]byte, bool, error) {
	in, ok := c.Inputs[name]
	if !ok {
		return nil, false, nil
	}
	switch {
	case in.Text != nil:
		return []byte(*in.Text), true, nil
	case in.Ref != nil:
		b, err := os.ReadFile(filepath.Join(c.sharedDir, filepath.FromSlash(*in.Ref)))
		return b, err == nil, err
	}
	return nil, false, fmt.Errorf("input %q has neither text nor ref", name)
}

// WriteInputs materialises every input under dir and returns dir; for operations
// that take paths rather than bytes.
func (c *Case) WriteInputs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name := range c.Inputs {
		b, _, err := c.File(name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// StringArg decodes a string argument ("" when absent).
func (c *Case) StringArg(name string) string {
	var s string
	if raw, ok := c.Args[name]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// HasArg reports whether the argument is present.
func (c *Case) HasArg(name string) bool { _, ok := c.Args[name]; return ok }

// Arg decodes an argument into v.
func (c *Case) Arg(name string, v any) error {
	raw, ok := c.Args[name]
	if !ok {
		return fmt.Errorf("case %s: missing argument %q", c.ID, name)
	}
	return json.Unmarshal(raw, v)
}

// operation runs one case and returns a JSON-encodable result, or an error whose
// class classify can name.
type operation func(t *testing.T, c *Case) (any, error)

// operations is filled by the ops_*_test.go files, one per domain package.
var operations = map[string]operation{}

// errorClassifiers name the conformance error class of an error ("" when the
// classifier does not know it). Each ops file registers its packages' errors.
var errorClassifiers []func(error) string

func classify(err error) string {
	for _, f := range errorClassifiers {
		if c := f(err); c != "" {
			return c
		}
	}
	return "unclassified"
}

// corpus is the conformance suite: testdata/conformance, or the directory
// GOVERNANCE_CONFORMANCE_DIR names. The files a case refers to ("ref") are
// read relative to the suite directory's parent, which holds reference/.
var corpus = testcorpus.Corpus{Env: "GOVERNANCE_CONFORMANCE_DIR", Rel: "conformance", Count: 1194}

func conformanceDir(t *testing.T) (casesDir, sharedDir string) {
	dir := corpus.Dir(t)
	return dir, filepath.Dir(dir)
}

func loadCases(t *testing.T) []*Case {
	t.Helper()
	dir, shared := conformanceDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no conformance files in %s", dir)
	}
	sort.Strings(files)
	var all []*Case
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf caseFile
		if err := json.Unmarshal(b, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if cf.Format != "celine-governance-conformance/1" {
			t.Fatalf("%s: unknown format %q", f, cf.Format)
		}
		for _, c := range cf.Cases {
			c.sharedDir = shared
			all = append(all, c)
		}
	}
	corpus.Check(t, len(all))
	return all
}

func TestConformance(t *testing.T) {
	cases := loadCases(t)
	var passed, failed, skipped int
	skippedOps := map[string]int{}
	for _, c := range cases {
		op, ok := operations[c.Operation]
		if !ok {
			skipped++
			skippedOps[c.Operation]++
			continue
		}
		ok = t.Run(c.ID, func(t *testing.T) { runCase(t, c, op) })
		if ok {
			passed++
		} else {
			failed++
		}
	}
	for op, n := range skippedOps {
		t.Errorf("%d cases of operation %q: no operation of that name is implemented", n, op)
	}
	line := fmt.Sprintf("conformance: %d cases, %d passed, %d failed", len(cases), passed, failed)
	if skipped > 0 {
		line += fmt.Sprintf(", %d skipped", skipped)
	}
	t.Log(line)
	fmt.Println(line)
}

func runCase(t *testing.T, c *Case, op operation) {
	got, err := op(t, c)
	if c.ExpectedError != nil {
		if err == nil {
			t.Fatalf("%s\nwant error class %s, got result %s", c.Description, c.ExpectedError.Class, mustJSON(got))
		}
		if cls := classify(err); cls != c.ExpectedError.Class {
			t.Fatalf("%s\nwant error class %s, got %s: %v", c.Description, c.ExpectedError.Class, cls, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s\nunexpected error (%s): %v", c.Description, classify(err), err)
	}
	var want, have any
	if err := decodeNumbers(c.Expected, &want); err != nil {
		t.Fatal(err)
	}
	if err := decodeNumbers(mustJSON(got), &have); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, have, numbersByValue); diff != "" {
		t.Errorf("%s\n(-want +got):\n%s", c.Description, diff)
	}
}

func mustJSON(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(fmt.Sprintf("%q", "unencodable: "+err.Error()))
	}
	return bytes.TrimSpace(buf.Bytes())
}

func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// numbersByValue compares JSON numbers by value: 30 and 30.0 are equal.
var numbersByValue = cmp.Comparer(func(a, b json.Number) bool {
	if a == b {
		return true
	}
	if strings.ContainsAny(string(a)+string(b), ".eE") {
		fa, errA := a.Float64()
		fb, errB := b.Float64()
		return errA == nil && errB == nil && (fa == fb || math.Abs(fa-fb) < 1e-12*math.Max(1, math.Abs(fa)))
	}
	return false
})

package check

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// fuzzTree lays out one app (base and overlay), an owners registry and a
// placeholder map in a fresh directory and runs the check on it with every
// option that reads them.
func fuzzTree(t *testing.T, base, overlay, owners, placeholders []byte) *Report {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"apps/a/governance.yaml":   base,
		"apps/a/governance.a.yaml": overlay,
		"owners.yaml":              owners,
		"placeholders.yaml":        placeholders,
	}
	for name, data := range files {
		if data == nil {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ph := "placeholders.yaml"
	rep, err := Run(context.Background(), Options{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, PlaceholdersFile: &ph, Dir: dir, Dataspace: true})
	if err != nil {
		t.Fatalf("the check refused its options: %v", err)
	}
	return rep
}

// holdReport: whatever the files held, the report renders in every format,
// its ok agrees with its findings, and every error names where it is.
func holdReport(t *testing.T, rep *Report) {
	t.Helper()
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := rep.Write(&buf, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if (format == "json" || format == "sarif") && !json.Valid(buf.Bytes()) {
			t.Fatalf("%s report is not JSON:\n%s", format, buf.Bytes())
		}
	}
	if rep.OK == rep.HasErrors() {
		t.Fatalf("ok %v with errors %v", rep.OK, rep.HasErrors())
	}
	for _, f := range rep.Findings {
		if f.Severity == Error && f.File == "" && f.Code != CodePathNoMatch {
			t.Fatalf("an error that names no file: %+v", f)
		}
	}
}

func readReference(f *testing.F, rel string) []byte {
	data, err := os.ReadFile(filepath.Join(testcorpus.Path(f, "reference"), rel))
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzPlaceholders feeds the placeholder map reader (check.md: a mapping of
// ownership names to owner ids) arbitrary bytes, beside the reference owners
// registry and a reference app.
func FuzzPlaceholders(f *testing.F) {
	owners := readReference(f, "dataset-api/owners.yaml")
	base := readReference(f, "celine-pipelines/apps/rec_metering/governance.yaml")
	for _, s := range []string{
		"rec: rec\n", "rec: celine-rec\nweather: open-data\n", "{}", "", "- a\n", "rec: [1, 2]\n",
		"a: &a x\nb: *a\n", "1: 2\n", "rec: rec\nrec: other\n", "? [a]\n: b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		holdReport(t, fuzzTree(t, base, nil, owners, data))
	})
}

// FuzzCheck feeds the whole tree check a base and an overlay: the governance
// reader, the schemas, the document and semantic rules, the overlay merge and
// the ownership resolution. Seeded with reference apps.
func FuzzCheck(f *testing.F) {
	owners := readReference(f, "dataset-api/owners.yaml")
	for _, app := range []string{"rec_metering", "weather", "grid", "om"} {
		f.Add(readReference(f, "celine-pipelines/apps/"+app+"/governance.yaml"), []byte("defaults: {access_level: restricted}\n"))
	}
	f.Add([]byte("defaults: {}\nsources:\n  ds.*: {expose: true, row_filters: []}\n"), []byte("sources:\n  ds.x: {dataspace: {expose: true}}\n"))
	f.Add([]byte("sources: ["), []byte(""))
	// Documents the parser refuses, each for a rule to name first.
	for _, refused := range []string{
		"defaults: {access_level: 7}\n", "sources:\n  ds.x: {expose: maybe}\n", "sources:\n  1: {}\n",
		"sources: [a]\n", "defaults: {ownership: [{owner: 1}]}\n", "depends_on: {a: b}\n",
	} {
		f.Add([]byte(refused), []byte(refused))
	}
	f.Fuzz(func(t *testing.T, base, overlay []byte) {
		rep := fuzzTree(t, base, overlay, owners, []byte("rec: celine-rec\n"))
		holdReport(t, rep)
		holdRulesCoverParser(t, rep, "apps/a/governance.yaml", base, governance.ParseDocument)
		holdRulesCoverParser(t, rep, "apps/a/governance.a.yaml", overlay, governance.ParseOverlayDocument)
	})
}

// holdRulesCoverParser: when the rule model's parser refuses a loadable
// document, a schema or document rule has said why, with its position.
// parseFile's guard turns a refusal the rules missed into a bare load error
// rather than a skip; this holds that the guard never has to.
func holdRulesCoverParser(t *testing.T, rep *Report, file string, data []byte,
	parse func(*yaml11.Node, string) (*governance.Config, error)) {
	t.Helper()
	if data == nil {
		return
	}
	l, _ := parseYAML(data, nil, file, func(Finding) {}, nil)
	if l == nil {
		return // not loadable: the load error is the rule that says so
	}
	_, err := parse(l.root, file)
	if err == nil {
		return
	}
	for _, f := range rep.Findings {
		if f.File == file && f.Severity == Error && f.Code != CodeLoadError {
			return
		}
	}
	t.Fatalf("the parser refuses %s (%v) and no rule says why; findings: %+v", file, err, rep.Findings)
}

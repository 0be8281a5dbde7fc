package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
)

// The worked cases of check.md §12 are generated from the specification's own
// text, so the fixtures and the expected reports are exactly what it says:
//
//	go test ./internal/cli -run TestRegenerateCases -regen
//
// writes testdata/check-cases/<id>/case.json and testdata/check-cases/<id>/tree/
// at the repository's top.
var regen = flag.Bool("regen", false, "regenerate testdata/check-cases from the check specification")

const specPath = "../../testdata/spec/check.md"

// specCase is one worked case as case.json stores it. Summary and OK are
// absent for a case the specification gives as "Findings: none".
type specCase struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Args       []string          `json:"args"`
	Exit       int               `json:"exit"`
	UsageError bool              `json:"usage_error"`
	Findings   []specFinding     `json:"findings"`
	Summary    *check.Summary    `json:"summary,omitempty"`
	OK         *bool             `json:"ok,omitempty"`
	Files      map[string]string `json:"-"`
}

type specFinding struct {
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	File     *string `json:"file"`
	Line     *int    `json:"line"`
	Column   *int    `json:"column"`
	Path     *string `json:"path"`
	Dataset  *string `json:"dataset"`
	Subject  *string `json:"subject"`
}

var (
	reCase       = regexp.MustCompile(`^#### (C\d+) — (.*)$`)
	reFixture    = regexp.MustCompile(`^\*\*(\w+)\*\*$`)
	reFileBlock  = regexp.MustCompile("^`([^`]+)`$")
	reFileFix    = regexp.MustCompile("^`([^`]+)`: fixture \\*\\*(\\w+)\\*\\*$")
	reInvocation = regexp.MustCompile("^Invocation: `validate ?([^`]*)` → \\*\\*exit (\\d)\\*\\*$")
	reRow        = regexp.MustCompile(`^\| (\d+) \|(.*)\|$`)
	reSummary    = regexp.MustCompile("^Summary: errors (\\d+), warnings (\\d+), infos (\\d+); bases (\\d+), overlays (\\d+), owners_files (\\d+), datasets (\\d+); ok `(true|false)`")
)

func parseSpecCases(text string) ([]specCase, error) {
	lines := strings.Split(text, "\n")
	fixtures := map[string]string{}
	// readBlock returns the fenced block starting at or after line i.
	readBlock := func(i int) (string, int, error) {
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
		if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
			return "", i, fmt.Errorf("line %d: expected a fenced block", i+1)
		}
		var b strings.Builder
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			b.WriteString(lines[i])
			b.WriteByte('\n')
		}
		return b.String(), i, nil
	}
	var cases []specCase
	var cur *specCase
	inCases := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "### Cases":
			inCases = true
			continue
		case strings.HasPrefix(l, "## 12a"):
			inCases = false
		}
		if m := reFixture.FindStringSubmatch(l); m != nil && !inCases {
			body, j, err := readBlock(i + 1)
			if err != nil {
				return nil, err
			}
			fixtures[m[1]] = body
			i = j
			continue
		}
		if !inCases {
			continue
		}
		if m := reCase.FindStringSubmatch(l); m != nil {
			cases = append(cases, specCase{ID: m[1], Title: m[2], Files: map[string]string{}, Findings: []specFinding{}})
			cur = &cases[len(cases)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := reFileFix.FindStringSubmatch(l); m != nil {
			body, ok := fixtures[m[2]]
			if !ok {
				return nil, fmt.Errorf("%s: unknown fixture %s", cur.ID, m[2])
			}
			cur.Files[m[1]] = body
			continue
		}
		if m := reFileBlock.FindStringSubmatch(l); m != nil {
			body, j, err := readBlock(i + 1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cur.ID, err)
			}
			cur.Files[m[1]] = body
			i = j
			continue
		}
		if strings.HasPrefix(l, "Files: as in the previous case.") {
			prev := cases[len(cases)-2]
			for k, v := range prev.Files {
				cur.Files[k] = v
			}
			continue
		}
		if m := reInvocation.FindStringSubmatch(l); m != nil {
			cur.Args = strings.Fields(m[1])
			if cur.Args == nil {
				cur.Args = []string{}
			}
			cur.Exit, _ = strconv.Atoi(m[2])
			continue
		}
		if strings.HasPrefix(l, "Usage error; no report.") {
			cur.UsageError = true
			continue
		}
		if m := reRow.FindStringSubmatch(l); m != nil {
			cells := strings.Split(m[2], "|")
			if len(cells) != 7 {
				return nil, fmt.Errorf("%s: row %q has %d cells", cur.ID, l, len(cells))
			}
			cell := func(k int) *string {
				s := strings.TrimSpace(cells[k])
				if s == "—" {
					return nil
				}
				s = strings.Trim(s, "`")
				if s == `""` {
					s = ""
				}
				return &s
			}
			f := specFinding{Severity: *cell(0), Code: *cell(1), File: cell(2), Path: cell(4), Dataset: cell(5), Subject: cell(6)}
			if lc := cell(3); lc != nil {
				a, b, _ := strings.Cut(*lc, ":")
				ln, _ := strconv.Atoi(a)
				col, _ := strconv.Atoi(b)
				f.Line, f.Column = &ln, &col
			}
			cur.Findings = append(cur.Findings, f)
			continue
		}
		if m := reSummary.FindStringSubmatch(l); m != nil {
			n := func(k int) int { v, _ := strconv.Atoi(m[k]); return v }
			cur.Summary = &check.Summary{Errors: n(1), Warnings: n(2), Infos: n(3), Bases: n(4), Overlays: n(5), OwnersFiles: n(6), Datasets: n(7)}
			ok := m[8] == "true"
			cur.OK = &ok
		}
	}
	return cases, nil
}

func TestRegenerateCases(t *testing.T) {
	if !*regen {
		t.Skip("pass -regen to regenerate testdata/check-cases from " + specPath)
	}
	text, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := parseSpecCases(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 48 {
		t.Fatalf("found %d cases in the specification, want 48", len(cases))
	}
	// The directory is found before it is removed: casesDir wants it there.
	root := casesDir(t)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Args == nil {
			t.Fatalf("%s: no invocation", c.ID)
		}
		dir := filepath.Join(root, c.ID)
		for name, body := range c.Files {
			p := filepath.Join(dir, "tree", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "case.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package diff

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/treegen"
)

// FuzzCompare diffs a generated tree against a copy mutated by the fuzzer's
// program, and holds the report to its invariants (checkInvariants: what it
// lists and leaves out against both trees' own resolution, the field
// changes applied to the base giving the head), to the reverse diff (what
// one adds the other removes; the same datasets change), and to rendering
// in every format.
func FuzzCompare(f *testing.F) {
	f.Add(uint64(1), []byte{})
	f.Add(uint64(2), []byte{0, 5, 1, 9, 2, 3})
	f.Add(uint64(3), []byte{5, 1, 5, 2, 6, 7, 1, 1})
	f.Add(uint64(4), []byte{7, 0, 7, 4, 4, 2, 3, 8})
	f.Add(uint64(5), []byte{2, 2, 2, 3, 2, 4, 2, 5, 2, 6, 1, 10})
	f.Fuzz(func(t *testing.T, seed uint64, program []byte) {
		if len(program) > 64 {
			return
		}
		gen := treegen.Generate(treegen.Options{Apps: 3, Sources: 24, Owners: 4, Seed: seed, OverlayShare: 0.5, GlobShare: 0.25})
		base := files{}
		for name, b := range gen.Files {
			base[name] = string(b)
		}
		head := mutate(base, program)
		const overlay = "deploy"
		b, h := checkTreeNamed(t, base, overlay), checkTreeNamed(t, head, overlay)
		rep, err := Compare(context.Background(), b, h)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, b, h, rep)
		back, err := Compare(context.Background(), h, b)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, h, b, back)
		if got, want := statusSet(back, Added), statusSet(rep, Removed); !slices.Equal(got, want) {
			t.Errorf("head → base adds %v; base → head removes %v", got, want)
		}
		if got, want := statusSet(back, Changed), statusSet(rep, Changed); !slices.Equal(got, want) {
			t.Errorf("head → base changes %v; base → head %v", got, want)
		}
		if len(rep.Findings.Added) != len(back.Findings.Resolved) || len(rep.Findings.Resolved) != len(back.Findings.Added) {
			t.Errorf("findings added/resolved %d/%d one way, %d/%d the other", len(rep.Findings.Added), len(rep.Findings.Resolved), len(back.Findings.Added), len(back.Findings.Resolved))
		}
		for _, format := range Formats {
			var out bytes.Buffer
			if err := rep.Write(&out, format); err != nil || out.Len() == 0 {
				t.Errorf("format %s: %v (%d bytes)", format, err, out.Len())
			}
		}
	})
}

func statusSet(r *Report, status string) []string {
	var out []string
	for _, d := range r.Datasets {
		if d.Status == status {
			out = append(out, d.App+" "+d.Dataset)
		}
	}
	sort.Strings(out)
	return out
}

// mutate applies a program of two-byte instructions to a copy of fs: each
// picks a file and a line of it and edits the line the way a pull request
// might (or breaks it, as one might too).
func mutate(fs files, program []byte) files {
	out := fs.with()
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	swaps := [][2]string{
		{"true", "false"}, {"false", "true"}, {"open", "restricted"}, {"internal", "open"}, {"restricted", "internal"},
		{"green", "red"}, {"red", "pii"}, {"yellow", "green"}, {"org_000", "org_001"}, {"org_001", "org_002"},
		{"_*", "*"}, {"rec_registry", "direct_user_match"}, {"device_id", "meter_id"}, {"CC-BY-4.0", "ODbL-1.0"},
	}
	for i := 0; i+1 < len(program); i += 2 {
		op, arg := program[i], int(program[i+1])
		name := names[arg%len(names)]
		lines := strings.SplitAfter(out[name], "\n")
		at := (arg * 7) % len(lines)
		switch op % 6 {
		case 0: // delete a line
			lines = slices.Delete(lines, at, at+1)
		case 1, 2: // a value swapped for another
			for k := range swaps {
				s := swaps[(int(op)+arg+k)%len(swaps)]
				if strings.Contains(lines[at], s[0]) {
					lines[at] = strings.Replace(lines[at], s[0], s[1], 1)
					break
				}
			}
		case 3: // a line moved down
			if at+1 < len(lines) {
				lines[at], lines[at+1] = lines[at+1], lines[at]
			}
		case 4: // offered into the dataspace
			indent := len(lines[at]) - len(strings.TrimLeft(lines[at], " "))
			lines = slices.Insert(lines, at+1, strings.Repeat(" ", indent)+"dataspace: {expose: true, consent_required: true}\n")
		case 5: // a line given twice
			lines = slices.Insert(lines, at, lines[at])
		}
		out[name] = strings.Join(lines, "")
	}
	return out
}

package propagate

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/celine-eu/governanced/internal/sarif"
)

// formats are the audit report's formats.
var formats = reportformat.Set[*Report]{
	{Name: "text", Write: (*Report).WriteText},
	{Name: "json", Write: (*Report).WriteJSON},
	{Name: "markdown", Write: (*Report).WriteMarkdown},
	{Name: "sarif", Write: (*Report).WriteSARIF},
}

// Formats are the names of the audit report's formats, text (the default)
// first.
var Formats = formats.Names()

// Write renders the report in a format of Formats.
func (r *Report) Write(w io.Writer, format string) error { return formats.Write(w, r, format) }

// message is a finding in one sentence.
func (f *Finding) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s carries %s", f.Relation, f.Column, f.Inferred)
	if !f.Complete {
		b.WriteString(" at least")
	}
	fmt.Fprintf(&b, ", above the %s its dataset %s declares", f.Declared, f.Dataset)
	if len(f.Exposed) > 0 {
		b.WriteString(", and the dataset is ")
		b.WriteString(exposedText(f.Exposed))
	}
	if len(f.Path) > 0 {
		fmt.Fprintf(&b, "; from %s", pathText(f.Path, f.PathOmitted))
	}
	if len(f.Through) > 0 {
		fmt.Fprintf(&b, " (through %s)", strings.Join(f.Through, ", "))
	}
	return b.String()
}

func exposedText(exposed []string) string {
	var parts []string
	for _, e := range exposed {
		switch e {
		case "catalogue":
			parts = append(parts, "listed in the catalogue")
		case "dataspace":
			parts = append(parts, "offered into the dataspace")
		}
	}
	return strings.Join(parts, " and ")
}

// pathText is "raw_customers.first_name → stg_customers.first_name
// (direct_passthrough) → …".
func pathText(path []Hop, omitted int) string {
	var parts []string
	for i, h := range path {
		part := h.Relation + "." + h.Column
		if h.Mechanism != "" {
			part += " (" + h.Mechanism + ")"
		}
		parts = append(parts, part)
		if i == 0 && omitted > 0 {
			parts = append(parts, fmt.Sprintf("… (%d hops omitted)", omitted))
		}
	}
	return strings.Join(parts, " → ")
}

func (r *Report) resultLine() string {
	result := "pass"
	if len(r.Findings) > 0 {
		result = "fail"
	}
	return fmt.Sprintf("result: %s (findings=%d, exposed=%d, relations=%d, columns=%d, incomplete=%d)",
		result, r.Summary.Findings, r.Summary.Exposed, r.Summary.Relations, r.Summary.Columns, r.Summary.Incomplete)
}

// notes are what the audit could not judge, one line each.
func (r *Report) notes() []string {
	var out []string
	for _, u := range r.Ungoverned {
		out = append(out, fmt.Sprintf("%s (%s) matches no governance rule and carries sensitive data in %d columns: %s",
			u.Relation, u.Dataset, len(u.Columns), strings.Join(u.Columns, ", ")))
	}
	for _, u := range r.Unanalysed {
		out = append(out, fmt.Sprintf("%s (%s) is governed but its lineage is unknown (%s): its columns were not audited", u.Relation, u.Dataset, u.Reason))
	}
	return out
}

// WriteText renders each finding with its path, one hop a line, then the
// notes and the result line.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s.%s: %s: %s", f.Relation, f.Column, f.Code(), f.Inferred)
		if !f.Complete {
			b.WriteString(" (at least)")
		}
		fmt.Fprintf(&b, " above declared %s [%s]", f.Declared, f.Dataset)
		if len(f.Exposed) > 0 {
			fmt.Fprintf(&b, "; %s", exposedText(f.Exposed))
		}
		b.WriteByte('\n')
		for i, h := range f.Path {
			b.WriteString("  ")
			if i > 0 {
				b.WriteString("→ ")
			}
			fmt.Fprintf(&b, "%s.%s", h.Relation, h.Column)
			switch {
			case h.Declared != nil:
				fmt.Fprintf(&b, "  declared %s [%s]", h.Declared, h.Dataset)
			default:
				b.WriteString("  " + h.Mechanism)
			}
			if len(h.Through) > 0 {
				fmt.Fprintf(&b, " through %s", strings.Join(h.Through, ", "))
			}
			b.WriteByte('\n')
			if i == 0 && f.PathOmitted > 0 {
				fmt.Fprintf(&b, "  … %d hops omitted\n", f.PathOmitted)
			}
		}
	}
	for _, n := range r.notes() {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString(r.resultLine())
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON renders the Report object.
func (r *Report) WriteJSON(w io.Writer) error {
	return reportformat.JSON(w, r)
}

// WriteMarkdown renders a heading, a table of the findings and each
// finding's path, for a pull-request comment or a job summary.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	if len(r.Findings) == 0 {
		fmt.Fprintf(&b, "### Lineage audit: PASS — no column carries data above its dataset's governance (%d governed relations, %d columns)\n",
			r.Summary.Relations, r.Summary.Columns)
	} else {
		fmt.Fprintf(&b, "### Lineage audit: %d %s above declared governance, %d in exposed datasets\n\n",
			len(r.Findings), plural(len(r.Findings), "column", "columns"), r.Summary.Exposed)
		b.WriteString("| column | carries | declared | exposed | from |\n|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			carries := f.Inferred.String()
			if !f.Complete {
				carries += " (at least)"
			}
			exposed := strings.Join(f.Exposed, ", ")
			if exposed == "" {
				exposed = "—"
			}
			from := "—"
			if len(f.Path) > 0 {
				from = "`" + mdCell(f.Path[0].Relation+"."+f.Path[0].Column) + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", mdCell(f.Relation+"."+f.Column), carries, f.Declared, exposed, from)
		}
		b.WriteString("\n<details><summary>Paths</summary>\n\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- `%s`: %s\n", mdCell(f.Relation+"."+f.Column), mdCell(pathText(f.Path, f.PathOmitted)))
		}
		b.WriteString("\n</details>\n")
	}
	if notes := r.notes(); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + mdCell(n) + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// mdCell keeps text inside one table cell or list item.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "`", "'").Replace(s)
}

// sarifResultProps are a result's properties: the finding's details.
type sarifResultProps struct {
	Dataset     string   `json:"dataset"`
	Inferred    Levels   `json:"inferred"`
	Declared    Levels   `json:"declared"`
	Exposed     []string `json:"exposed"`
	Complete    bool     `json:"complete"`
	Through     []string `json:"through"`
	Path        []Hop    `json:"path"`
	PathOmitted int      `json:"path_omitted,omitempty"`
}

var ruleDescriptions = map[string]string{
	CodeAboveDeclared: "A column carries data of a higher classification or access level than its dataset declares.",
	CodeExposed:       "A column of a dataset listed in the catalogue or offered into the dataspace carries data of a higher classification or access level than the dataset declares.",
}

// WriteSARIF renders a SARIF 2.1.0 log with one run, shaped as the tree
// check's: a result per finding, located at the file that defines the
// relation (line 1: the finding is about the whole model) and, logically,
// at relation.column. A finding in an exposed dataset is an error, any
// other a warning.
func (r *Report) WriteSARIF(w io.Writer) error {
	run := sarif.NewRun(map[string]any{
		"thresholds": r.Thresholds, "rowset": r.RowSet, "summary": r.Summary,
		"ungoverned": r.Ungoverned, "unanalysed": r.Unanalysed,
	})
	for i := range r.Findings {
		f := &r.Findings[i]
		code, level := f.Code(), "warning"
		if code == CodeExposed {
			level = "error"
		}
		k := run.Rule(code, ruleDescriptions[code], level)
		file := f.File
		if file == "" {
			file = "."
		}
		loc := sarif.FileLocation(file, "", sarif.Region{StartLine: 1})
		loc.LogicalLocations = []sarif.LogicalLocation{{Name: f.Column, FullyQualifiedName: f.Relation + "." + f.Column, Kind: "member"}}
		run.Results = append(run.Results, sarif.Result{
			RuleID: code, RuleIndex: k, Level: level, Message: sarif.Text{Text: f.message()},
			Locations: []sarif.Location{loc},
			Properties: sarifResultProps{Dataset: f.Dataset, Inferred: f.Inferred, Declared: f.Declared, Exposed: f.Exposed,
				Complete: f.Complete, Through: f.Through, Path: f.Path, PathOmitted: f.PathOmitted},
		})
	}
	return sarif.Write(w, run)
}

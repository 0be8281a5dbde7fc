package diff

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/reportformat"
)

// MarkdownRows caps each table of the Markdown rendering: a comment on a
// pull request that offers ten thousand datasets says so in a line, and
// the JSON report lists them all.
const MarkdownRows = 50

// markdownValue caps a value in a table cell.
const markdownValue = 80

// writeMarkdown renders the report as a pull-request comment: a summary
// table by kind, the risky changes first (dataset, old → new, file:line),
// then the other derived changes, the datasets added and removed, every
// field change, and the check's new findings.
func (r *Report) writeMarkdown(b *bytes.Buffer) {
	riskyCount := 0
	for _, k := range r.Kinds {
		if k.Risky {
			riskyCount += k.Count
		}
	}
	b.WriteString("### Governance diff\n\n")
	fmt.Fprintf(b, "Base `%s` → head `%s`. ", shortRevision(r.Base.Revision), shortRevision(r.Head.Revision))
	if r.Head.OK {
		fmt.Fprintf(b, "The head tree passes its check (warnings: %d).\n\n", r.Head.Warnings)
	} else {
		fmt.Fprintf(b, "**The head tree fails its check** (errors: %d, warnings: %d): a server would refuse it and go on serving the base.\n\n", r.Head.Errors, r.Head.Warnings)
	}
	if r.Empty() {
		b.WriteString("No change to the served governance.\n")
		return
	}
	if riskyCount > 0 {
		fmt.Fprintf(b, "**%d risky change(s)** — listed first.\n\n", riskyCount)
	}

	b.WriteString("| change | count |\n|---|---:|\n")
	for _, k := range r.Kinds {
		mark := ""
		if k.Risky {
			mark = "⚠️ "
		}
		fmt.Fprintf(b, "| %s`%s` | %d |\n", mark, k.Kind, k.Count)
	}
	b.WriteByte('\n')

	var unresolved []string
	for _, a := range r.Apps {
		if a.Status == AppUnresolved {
			unresolved = append(unresolved, fmt.Sprintf("- app `%s` is not materialised in the %s tree (its check has errors): its datasets are not compared.\n", cell(a.App), a.Unresolved))
		}
	}
	if len(unresolved) > 0 {
		b.WriteString(strings.Join(unresolved, ""))
		b.WriteByte('\n')
	}

	derivedTable := func(title string, risky bool) {
		t := newTable(b, title, "change", "datasets", "old → new", "where")
		for _, g := range r.derivedGroups(func(k Kind) bool { return k.Risky() == risky }) {
			t.row("`"+string(g.kind)+"`", g.datasetsCell(), code(cut(g.old, markdownValue))+" → "+code(cut(g.new, markdownValue)), code(g.where))
		}
		if risky {
			for _, f := range r.Findings.Added {
				if f.Severity == check.Error {
					t.row("`new-error`", findingDataset(f), code(f.Code)+": "+cell(cut(reportformat.OneLine(f.Message), 2*markdownValue)), code(r.findingPlace(f, r.headFile)))
				}
			}
		}
		t.end()
	}
	derivedTable("Risky changes", true)
	derivedTable("Other derived changes", false)

	t := newTable(b, "Datasets added and removed", "", "dataset", "where")
	for i := range r.Datasets {
		d := &r.Datasets[i]
		if d.Status != Changed {
			t.row(d.Status, datasetCell(d), code(r.keyPlace(d)))
		}
	}
	t.end()

	t = newTable(b, "Field changes", "datasets", "field", "old → new", "where")
	for _, g := range r.fieldGroups() {
		t.row(g.datasetsCell(), code(g.field), code(g.old)+" → "+code(g.new), code(g.where))
	}
	t.end()

	t = newTable(b, "Check findings", "", "finding", "dataset", "where", "message")
	for _, f := range r.Findings.Added {
		t.row("new "+string(f.Severity), code(f.Code), findingDataset(f), code(r.findingPlace(f, r.headFile)), cell(cut(reportformat.OneLine(f.Message), 2*markdownValue)))
	}
	for _, f := range r.Findings.Resolved {
		t.row("resolved "+string(f.Severity), code(f.Code), findingDataset(f), code(r.findingPlace(f, r.baseFile)), cell(cut(reportformat.OneLine(f.Message), 2*markdownValue)))
	}
	t.end()
}

func (r *Report) findingPlace(f check.Finding, file func(string) string) string {
	if f.File == "" {
		return ""
	}
	if f.Line == 0 {
		return file(f.File)
	}
	return fmt.Sprintf("%s:%d", file(f.File), f.Line)
}

func findingDataset(f check.Finding) string {
	if f.Dataset == nil {
		return ""
	}
	return code(*f.Dataset)
}

func datasetCell(d *DatasetChange) string {
	return code(d.App) + " " + code(d.Dataset)
}

// groupNames caps the datasets a grouped row names.
const groupNames = 5

func (g *group) datasetsCell() string {
	var parts []string
	for i, d := range g.datasets {
		if i == groupNames {
			parts = append(parts, fmt.Sprintf("and %d more", len(g.datasets)-groupNames))
			break
		}
		parts = append(parts, code(d))
	}
	prefix := ""
	if len(g.datasets) > 1 {
		prefix = fmt.Sprintf("%d datasets of ", len(g.datasets))
	}
	return prefix + code(g.app) + ": " + strings.Join(parts, ", ")
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// code renders text as inline code in a table cell; "" stays empty. A
// backtick inside is not code-spanned but escaped.
func code(s string) string {
	if s == "" {
		return ""
	}
	if strings.Contains(s, "`") {
		return cell(strings.ReplaceAll(s, "`", "\\`"))
	}
	return "`" + cell(s) + "`"
}

// table writes a Markdown table under a heading, MarkdownRows rows at most,
// nothing at all when it gets no row.
type table struct {
	b       *bytes.Buffer
	title   string
	columns []string
	rows    int
}

func newTable(b *bytes.Buffer, title string, columns ...string) *table {
	return &table{b: b, title: title, columns: columns}
}

func (t *table) row(cells ...string) {
	if t.rows == 0 {
		fmt.Fprintf(t.b, "#### %s\n\n|", t.title)
		for _, c := range t.columns {
			t.b.WriteString(" " + c + " |")
		}
		t.b.WriteString("\n|")
		for range t.columns {
			t.b.WriteString("---|")
		}
		t.b.WriteByte('\n')
	}
	t.rows++
	if t.rows > MarkdownRows {
		return
	}
	t.b.WriteByte('|')
	for _, c := range cells {
		t.b.WriteString(" " + c + " |")
	}
	t.b.WriteByte('\n')
}

func (t *table) end() {
	if t.rows == 0 {
		return
	}
	if more := t.rows - MarkdownRows; more > 0 {
		fmt.Fprintf(t.b, "\n… and %d more (`governanced diff --format json` lists every one).\n", more)
	}
	t.b.WriteByte('\n')
}

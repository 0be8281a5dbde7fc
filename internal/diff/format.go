package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/reportformat"
)

// formats are the renderings of a report.
var formats = reportformat.Set[*Report]{
	{Name: "text", Write: reportformat.Buffered((*Report).writeText)},
	{Name: "json", Write: func(r *Report, w io.Writer) error { return reportformat.JSON(w, r) }},
	{Name: "markdown", Write: reportformat.Buffered((*Report).writeMarkdown)},
	{Name: "github", Write: reportformat.Buffered((*Report).writeGitHub)},
	{Name: "sarif", Write: func(r *Report, w io.Writer) error { return r.WriteSARIF(w, nil) }},
}

// Formats are the names of the renderings, text (the default) first.
var Formats = formats.Names()

// Write renders the report in one of Formats.
func (r *Report) Write(w io.Writer, format string) error { return formats.Write(w, r, format) }

// inRoot puts a tree's root in front of a file path of the report, for
// people: a path a reader can open from where the command ran.
func inRoot(root, file string) string {
	switch {
	case root == "" || root == "." || file == "" || path.IsAbs(file):
		return file
	case strings.HasSuffix(root, ":"):
		return root + file // a git ref's tree: REF:path, as git show takes it
	}
	return path.Join(root, file)
}

func (r *Report) headFile(f string) string { return inRoot(r.Head.Root, f) }
func (r *Report) baseFile(f string) string { return inRoot(r.Base.Root, f) }

// place is where a head statement is, "" for none.
func (r *Report) place(o *Origin) string {
	if o == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", r.headFile(o.File), o.Line)
}

// basePlace is where a base statement is, marked as the base's.
func (r *Report) basePlace(o *Origin) string {
	if o == nil {
		return ""
	}
	return fmt.Sprintf("base %s:%d", r.baseFile(o.File), o.Line)
}

// where is the place a change of d (a derived change or a field's) is best
// shown at: where the head states it, else where the base did, else d's key.
func (r *Report) where(d *DatasetChange, origin, baseOrigin *Origin) string {
	switch {
	case origin != nil:
		return r.place(origin)
	case baseOrigin != nil:
		return r.basePlace(baseOrigin)
	}
	return r.keyPlace(d)
}

// keyPlace is where the dataset's key is declared: in the head, else in
// the base.
func (r *Report) keyPlace(d *DatasetChange) string {
	switch {
	case d.Head != nil:
		return fmt.Sprintf("%s:%d", r.headFile(d.Head.File), d.Head.Line)
	case d.Base != nil:
		return fmt.Sprintf("base %s:%d", r.baseFile(d.Base.File), d.Base.Line)
	}
	return ""
}

// value renders a field's JSON value for people: compact, "(unset)" when
// the rule does not state the field, cut at max runes (0: never).
func value(raw json.RawMessage, max int) string {
	if raw == nil {
		return "(unset)"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		b.Reset()
		b.Write(raw)
	}
	return cut(b.String(), max)
}

func cut(s string, max int) string {
	if max <= 0 {
		return s
	}
	rs := []rune(s)
	if len(rs) <= max {
		return s
	}
	return string(rs[:max-1]) + "…"
}

func shortRevision(rev string) string {
	rev = strings.TrimPrefix(rev, "sha256:")
	if rev == "" {
		return "(none)"
	}
	return cut(rev, 13)
}

func checkLine(s Side) string {
	result := "pass"
	if !s.OK {
		result = "fail"
	}
	return fmt.Sprintf("%s (errors=%d, warnings=%d)", result, s.Errors, s.Warnings)
}

func (r *Report) summaryLine() string {
	if len(r.Kinds) == 0 {
		return "summary: no change"
	}
	parts := make([]string, len(r.Kinds))
	for i, k := range r.Kinds {
		parts[i] = fmt.Sprintf("%s=%d", k.Kind, k.Count)
	}
	return "summary: " + strings.Join(parts, " ")
}

func (r *Report) writeText(b *bytes.Buffer) {
	fmt.Fprintf(b, "base %s → head %s\n", shortRevision(r.Base.Revision), shortRevision(r.Head.Revision))
	fmt.Fprintf(b, "head check: %s\n", checkLine(r.Head))
	if !r.Head.OK {
		b.WriteString("  the head tree fails its check: a server would refuse it and go on serving the base\n")
	}
	for _, a := range r.Apps {
		switch a.Status {
		case AppUnresolved:
			fmt.Fprintf(b, "app %s: not materialised in the %s tree (its check has errors): its datasets are not compared\n", a.App, a.Unresolved)
		case AppRemoved:
			fmt.Fprintf(b, "app %s: removed (%s)\n", a.App, r.baseFile(a.File))
		default:
			fmt.Fprintf(b, "app %s: %s (%s)\n", a.App, a.Status, r.headFile(a.File))
		}
	}
	for i := range r.Datasets {
		d := &r.Datasets[i]
		fmt.Fprintf(b, "%s %s %s", d.Status, d.App, d.Dataset)
		if d.Status != Changed {
			fmt.Fprintf(b, " (%s)", r.keyPlace(d))
		}
		b.WriteByte('\n')
		for j := range d.Derived {
			x := &d.Derived[j]
			mark := " "
			if x.Kind.Risky() {
				mark = "!"
			}
			fmt.Fprintf(b, "  %s %s: %s %s → %s", mark, x.Kind, x.Field, x.Old, x.New)
			if w := r.where(d, x.Origin, x.BaseOrigin); w != "" {
				fmt.Fprintf(b, " (%s)", w)
			}
			b.WriteByte('\n')
		}
		for j := range d.Fields {
			f := &d.Fields[j]
			fmt.Fprintf(b, "    %s: %s → %s", f.Field, value(f.Old, 200), value(f.New, 200))
			if w := r.where(d, f.Origin, f.BaseOrigin); w != "" {
				fmt.Fprintf(b, " (%s)", w)
			}
			b.WriteByte('\n')
		}
	}
	for _, f := range r.Findings.Added {
		fmt.Fprintf(b, "new %s\n", r.findingText(f, r.headFile))
	}
	for _, f := range r.Findings.Resolved {
		fmt.Fprintf(b, "resolved %s\n", r.findingText(f, r.baseFile))
	}
	b.WriteString(r.summaryLine())
	b.WriteByte('\n')
}

func (r *Report) findingText(f check.Finding, file func(string) string) string {
	loc := "-"
	if f.File != "" {
		loc = file(f.File)
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d:%d", loc, f.Line, f.Column)
		}
	}
	s := fmt.Sprintf("%s %s: %s", f.Severity, loc, f.Code)
	if f.Dataset != nil {
		s += " [" + *f.Dataset + "]"
	}
	return s + ": " + reportformat.OneLine(f.Message)
}

// writeGitHub renders workflow commands: an annotation on the head tree's
// line for every derived change, added or removed dataset and new finding
// (risky kinds and warnings as warnings, errors as errors, the rest as
// notices), then the summary line.
func (r *Report) writeGitHub(b *bytes.Buffer) {
	annotate := func(level string, o *Origin, file string, line int, title, msg string) {
		var props []string
		if o != nil {
			file, line = o.File, o.Line
		}
		if file != "" {
			props = append(props, "file="+reportformat.GitHubProperty(r.headFile(file)))
			if line > 0 {
				props = append(props, "line="+strconv.Itoa(line))
			}
		}
		props = append(props, "title="+reportformat.GitHubProperty(title))
		fmt.Fprintf(b, "::%s %s::%s\n", level, strings.Join(props, ","), reportformat.GitHubData(msg))
	}
	for _, a := range r.Apps {
		if a.Status == AppUnresolved && a.Unresolved != "base" {
			annotate("warning", nil, a.File, 0, "governanced diff: app not compared",
				fmt.Sprintf("app %s is not materialised in the head tree (its check has errors): its datasets are not compared", a.App))
		}
	}
	for i := range r.Datasets {
		d := &r.Datasets[i]
		name := d.App + " / " + d.Dataset
		switch {
		case d.Status == Added:
			annotate("notice", nil, d.Head.File, d.Head.Line, "governanced diff: dataset-added", name+" is added")
		case d.Status == Removed:
			annotate("notice", nil, "", 0, "governanced diff: dataset-removed",
				fmt.Sprintf("%s is removed (it was declared at %s)", name, r.keyPlace(d)))
		}
	}
	// One annotation per statement: a defaults edit changing a thousand
	// datasets is one line of the head tree.
	for _, g := range r.derivedGroups(func(Kind) bool { return true }) {
		level := "notice"
		if g.kind.Risky() {
			level = "warning"
		}
		annotate(level, nil, g.file, g.line, "governanced diff: "+string(g.kind),
			fmt.Sprintf("%s: %s %s → %s", g.names(), g.field, g.old, g.new))
	}
	for _, f := range r.Findings.Added {
		level := "warning"
		if f.Severity == check.Error {
			level = "error"
		}
		msg := f.Message
		if f.Dataset != nil {
			msg = "[" + *f.Dataset + "] " + msg
		}
		annotate(level, nil, f.File, f.Line, "governanced diff: new "+string(f.Severity)+" "+f.Code, msg)
	}
	b.WriteString(r.summaryLine())
	b.WriteByte('\n')
}

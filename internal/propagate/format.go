package propagate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Formats are the audit report's formats.
var Formats = []string{"text", "json", "markdown", "sarif"}

// Write renders the report in a format of Formats.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text", "":
		return r.WriteText(w)
	case "json":
		return r.WriteJSON(w)
	case "markdown":
		return r.WriteMarkdown(w)
	case "sarif":
		return r.WriteSARIF(w)
	}
	return fmt.Errorf("unknown report format %q", format)
}

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
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
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

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool      `json:"tool"`
	Results    []sarifResult  `json:"results"`
	Properties map[string]any `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	ShortDescription     sarifText   `json:"shortDescription"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string           `json:"ruleId"`
	RuleIndex  int              `json:"ruleIndex"`
	Level      string           `json:"level"`
	Message    sarifText        `json:"message"`
	Locations  []sarifLocation  `json:"locations"`
	Properties sarifResultProps `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical     `json:"physicalLocation"`
	LogicalLocations []sarifLogicalLoc `json:"logicalLocations"`
}

type sarifLogicalLoc struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

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
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "governanced",
			InformationURI: "https://github.com/celine-eu/governanced",
			Rules:          []sarifRule{},
		}},
		Results: []sarifResult{},
		Properties: map[string]any{
			"thresholds": r.Thresholds, "rowset": r.RowSet, "summary": r.Summary,
			"ungoverned": r.Ungoverned, "unanalysed": r.Unanalysed,
		},
	}
	ruleIndex := map[string]int{}
	for i := range r.Findings {
		f := &r.Findings[i]
		code, level := f.Code(), "warning"
		if code == CodeExposed {
			level = "error"
		}
		k, ok := ruleIndex[code]
		if !ok {
			k = len(run.Tool.Driver.Rules)
			ruleIndex[code] = k
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
				ID: code, ShortDescription: sarifText{ruleDescriptions[code]}, DefaultConfiguration: sarifConfig{level}})
		}
		file := f.File
		if file == "" {
			file = "."
		}
		name := f.Relation + "." + f.Column
		run.Results = append(run.Results, sarifResult{
			RuleID: code, RuleIndex: k, Level: level, Message: sarifText{f.message()},
			Locations: []sarifLocation{{
				PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uriReference(file)}, Region: sarifRegion{StartLine: 1}},
				LogicalLocations: []sarifLogicalLoc{{Name: f.Column, FullyQualifiedName: name, Kind: "member"}},
			}},
			Properties: sarifResultProps{Dataset: f.Dataset, Inferred: f.Inferred, Declared: f.Declared, Exposed: f.Exposed,
				Complete: f.Complete, Through: f.Through, Path: f.Path, PathOmitted: f.PathOmitted},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// uriReference writes a relative file path as a URI reference: escaped as
// a URI path, and "./" before a first segment holding a colon, which would
// read as a scheme.
func uriReference(p string) string {
	return (&url.URL{Path: p}).String()
}

package check

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/celine-eu/governanced/internal/sarif"
)

// formats are the report formats the CLI and the service offer (check.md §11).
var formats = reportformat.Set[*Report]{
	{Name: "text", Write: (*Report).WriteText},
	{Name: "json", Write: (*Report).WriteJSON},
	{Name: "sarif", Write: (*Report).WriteSARIF},
	{Name: "github", Write: (*Report).WriteGitHub},
}

// Formats are the names of the report formats, text (the default) first.
var Formats = formats.Names()

// Write renders the report in a format: text, json, sarif or github.
func (r *Report) Write(w io.Writer, format string) error { return formats.Write(w, r, format) }

// location is a finding's place as text: file:line:column, file, or "-".
func (f Finding) location() string {
	switch {
	case f.File == "":
		return "-"
	case f.Line == 0:
		return f.File
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}

// WriteText renders one line per finding and the result line (check.md §11.2).
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, f := range r.Findings {
		b.WriteString(f.location())
		b.WriteString(": ")
		b.WriteString(string(f.Severity))
		b.WriteString(": ")
		b.WriteString(f.Code)
		if f.Dataset != nil {
			b.WriteString(" [" + *f.Dataset + "]")
		}
		b.WriteString(": ")
		b.WriteString(reportformat.OneLine(f.Message))
		b.WriteByte('\n')
	}
	b.WriteString(r.resultLine())
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

func (r *Report) resultLine() string {
	result, strict := "pass", "off"
	if !r.OK {
		result = "fail"
	}
	if r.Strict {
		strict = "on"
	}
	return fmt.Sprintf("result: %s (errors=%d, warnings=%d, infos=%d, strict=%s)",
		result, r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, strict)
}

// WriteJSON renders the report object of check.md §11.1.
func (r *Report) WriteJSON(w io.Writer) error {
	return reportformat.JSON(w, r)
}

// WriteGitHub renders one GitHub Actions workflow command per finding, then
// the text result line (check.md §2.1).
func (r *Report) WriteGitHub(w io.Writer) error {
	var b bytes.Buffer
	for _, f := range r.Findings {
		cmd := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}[f.Severity]
		var props []string
		if f.File != "" {
			props = append(props, "file="+reportformat.GitHubProperty(f.File))
			if f.Line != 0 {
				props = append(props, "line="+strconv.Itoa(f.Line), "col="+strconv.Itoa(f.Column))
			}
		}
		props = append(props, "title="+reportformat.GitHubProperty(f.Code))
		msg := f.Message
		if f.Dataset != nil {
			msg = "[" + *f.Dataset + "] " + msg
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), reportformat.GitHubData(msg))
	}
	b.WriteString(r.resultLine())
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// CodeDescription is one sentence saying what a finding code means, as SARIF
// rules carry it; "" for a code the check does not issue.
func CodeDescription(code string) string { return codeDescriptions[code] }

// Code descriptions, for SARIF rules and documentation.
var codeDescriptions = map[string]string{
	CodePathNoMatch:                 "A PATH argument matches no governance file.",
	CodeNoGovernanceInDir:           "A directory reached through a glob holds no governance.yaml.",
	CodeOverlayDirNotFound:          "The overlay directory does not exist.",
	CodeLoadError:                   "A file cannot be loaded as one YAML document.",
	CodeNotAMapping:                 "The document root is not a mapping.",
	CodeDuplicateKey:                "A key is written twice in one mapping; the earlier value silently disappears.",
	CodeSchemaViolation:             "The governance document violates its JSON Schema.",
	CodeUnknownKey:                  "A key the governance grammar does not define is ignored.",
	CodeIgnoredKey:                  "A key beside a nested governance: block is ignored.",
	CodeNonStringKey:                "A mapping key that is not a string makes consumers refuse the file.",
	CodeLegacyRowFilterInvalid:      "user_filter_column is neither null nor a non-empty string.",
	CodeAccessLevelSecret:           "access_level: secret is read differently by different consumers.",
	CodeOverlayConflict:             "Two overlays apply to one base; they are refused rather than merged.",
	CodeOverlayUnused:               "An overlay applies to no checked base.",
	CodeSemanticSkipped:             "The served (merged) rules of a unit were not checked because of earlier errors.",
	CodeRowFilterUnknownHandler:     "A row filter names a handler the consumer does not know.",
	CodeRowFilterMissingArg:         "A row filter lacks a required argument.",
	CodeRowFilterUnknownArg:         "A row filter passes an argument its handler does not take.",
	CodeRowFilterInvalidArg:         "http_in_list method is neither GET nor POST.",
	CodeExposureConflict:            "A dataspace offer is withheld from the catalogue.",
	CodeRowPolicyUndeclared:         "A served dataset declares no row policy and is served whole.",
	CodeLegacyRowFilter:             "The row policy exists only in the legacy user_filter_column.",
	CodeLegacyRowFilterShadowed:     "user_filter_column is ignored because row_filters is set.",
	CodeConsentWithoutSubjectFilter: "A consent-requiring offer has no filter mapping subjects to rows.",
	CodeConsentFilterNotDelegable:   "A consent-requiring offer uses a filter that refuses delegated requests.",
	CodeOwnerUnresolved:             "An ownership name of a dataspace offer resolves to no owner.",
	CodeOwnerDIDMissing:             "An owner of an organization-narrowed dataspace offer has no DID.",
	CodeOwnersFileNotFound:          "An owners file does not exist.",
	CodeOwnersSchemaViolation:       "An owners file violates the strict owners schema.",
	CodeOwnersDuplicateID:           "An owner id is written twice in one owners file.",
	CodeOwnersShadowed:              "A later owners file replaces an owner whole.",
	CodeOwnersAliasShadowsID:        "An owner alias equals an owner id and is ignored.",
	CodeOwnersAliasConflict:         "An owner alias is claimed by two owners; the first keeps it.",
	CodePlaceholdersInvalid:         "The placeholder map is missing or holds a non-string entry.",
	CodeOwnersNotLoaded:             "The owners registry was not built; ownership names were not checked.",
	CodeOwnersNotChecked:            "Dataspace offers were found but no owners registry was given.",
}

// sarifRunProps are a run's properties: the report's outcome.
type sarifRunProps struct {
	OK       bool    `json:"ok"`
	ExitCode int     `json:"exit_code"`
	Strict   bool    `json:"strict"`
	Summary  Summary `json:"summary"`
}

// sarifProps are a result's properties: what the finding is about.
type sarifProps struct {
	Path    *string `json:"path"`
	Dataset *string `json:"dataset"`
	Subject *string `json:"subject"`
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// defaultSeverity is each code's severity (check.md §9.1), for the rules'
// default configuration.
var defaultSeverity = map[string]Severity{
	CodeNoGovernanceInDir: Info, CodeSemanticSkipped: Info, CodeOwnersShadowed: Info,
	CodeOwnersNotLoaded: Info, CodeOwnersNotChecked: Info,
	CodeUnknownKey: Warning, CodeIgnoredKey: Warning, CodeAccessLevelSecret: Warning,
	CodeOverlayUnused: Warning, CodeRowFilterUnknownArg: Warning, CodeRowPolicyUndeclared: Warning,
	CodeLegacyRowFilter: Warning, CodeLegacyRowFilterShadowed: Warning, CodeConsentFilterNotDelegable: Warning,
	CodeOwnersDuplicateID: Warning, CodeOwnersAliasShadowsID: Warning, CodeOwnersAliasConflict: Warning,
}

// SRCROOT is the SARIF uri base id of a repository's root, the one GitHub
// code scanning places results against.
const SRCROOT = "%SRCROOT%"

// SARIFBases say which root each file of a SARIF log is relative to, for a
// log read away from the files (a server's: its paths are relative to the
// tree it serves, which is a checkout of the repository).
type SARIFBases struct {
	// Descriptions are the uri base ids Locate uses, each with a sentence
	// saying what it stands for: the run's originalUriBaseIds.
	Descriptions map[string]string
	// Locate is a report's file (a display path) as a base id from
	// Descriptions and the path relative to it.
	Locate func(file string) (baseID, rel string)
}

// WriteSARIF renders a SARIF 2.1.0 log with one run (check.md §11.2a),
// every file as the report names it.
//
// GitHub code scanning refuses a result without a physical location, and
// places one only with a region start line, so every result gets both where
// check.md §11.2a would leave them out: a finding about the whole run (no
// file) is anchored at the first PATH argument, and a finding about a whole
// file at its line 1. The finding's own path, dataset and subject stay in
// properties.
func (r *Report) WriteSARIF(w io.Writer) error { return r.WriteSARIFIn(w, nil) }

// WriteSARIFIn is WriteSARIF with each file's location relative to a uri
// base (nil: as WriteSARIF): the run declares the bases in
// originalUriBaseIds, each result names its base in uriBaseId.
func (r *Report) WriteSARIFIn(w io.Writer, bases *SARIFBases) error {
	run := sarif.NewRun(sarifRunProps{OK: r.OK, ExitCode: r.ExitCode, Strict: r.Strict, Summary: r.Summary})
	if bases != nil {
		run.OriginalURIBaseIDs = map[string]sarif.ArtifactLocation{}
		for id, d := range bases.Descriptions {
			run.OriginalURIBaseIDs[id] = sarif.ArtifactLocation{Description: &sarif.Text{Text: d}}
		}
	}
	runAnchor := "."
	if len(r.Inputs.Paths) > 0 {
		runAnchor = r.Inputs.Paths[0]
	}
	for _, f := range r.Findings {
		sev, known := defaultSeverity[f.Code]
		if !known {
			sev = Error
		}
		desc := codeDescriptions[f.Code]
		if desc == "" {
			desc = f.Code
		}
		i := run.Rule(f.Code, desc, sarifLevel(sev))
		file := f.File
		if file == "" {
			file = runAnchor
		}
		region := sarif.Region{StartLine: 1}
		if f.Line > 0 {
			region = sarif.Region{StartLine: f.Line, StartColumn: f.Column}
		}
		msg := f.Message
		if f.Dataset != nil {
			msg = "[" + *f.Dataset + "] " + msg
		}
		baseID := ""
		if bases != nil {
			baseID, file = bases.Locate(file)
		}
		run.Results = append(run.Results, sarif.Result{
			RuleID: f.Code, RuleIndex: i, Level: sarifLevel(f.Severity), Message: sarif.Text{Text: msg},
			Locations:  []sarif.Location{sarif.FileLocation(file, baseID, region)},
			Properties: sarifProps{Path: f.Path(), Dataset: f.Dataset, Subject: f.Subject},
		})
	}
	return sarif.Write(w, run)
}

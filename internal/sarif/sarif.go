// Package sarif writes SARIF 2.1.0 logs, the format code scanning reads: the
// tree check's report and the lineage audit are written through it, each a
// run of governanced with its own rules, results and properties.
//
// It holds only what the project's logs use. A location always has a
// region (GitHub places a result only with a start line), and a file is a
// relative URI reference (URIReference).
package sarif

import (
	"io"
	"strings"

	"github.com/celine-eu/governanced/internal/reportformat"
)

// Log is a SARIF log.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []*Run `json:"runs"`
}

// Run is one run of a tool: its rules, its results, and properties of the
// tool's own (a value that encodes as a JSON object).
type Run struct {
	Tool               Tool                        `json:"tool"`
	OriginalURIBaseIDs map[string]ArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Results            []Result                    `json:"results"`
	Properties         any                         `json:"properties"`

	ruleIndex map[string]int
}

// Tool is the tool that made a run.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver names the tool and lists the rules its results refer to.
type Driver struct {
	Name           string `json:"name"`
	InformationURI string `json:"informationUri"`
	Rules          []Rule `json:"rules"`
}

// Rule is a kind of result: a finding code.
type Rule struct {
	ID                   string `json:"id"`
	ShortDescription     Text   `json:"shortDescription"`
	DefaultConfiguration Config `json:"defaultConfiguration"`
}

// Config is a rule's default configuration.
type Config struct {
	Level string `json:"level"`
}

// Text is a message.
type Text struct {
	Text string `json:"text"`
}

// Result is one finding.
type Result struct {
	RuleID     string     `json:"ruleId"`
	RuleIndex  int        `json:"ruleIndex"`
	Level      string     `json:"level"`
	Message    Text       `json:"message"`
	Locations  []Location `json:"locations"`
	Properties any        `json:"properties"`
}

// Location is where a result is: a place in a file and, optionally, the
// names it is about.
type Location struct {
	PhysicalLocation PhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// LogicalLocation is a name a result is about (a relation's column).
type LogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// PhysicalLocation is a region of a file.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           Region           `json:"region"`
}

// ArtifactLocation is a file, relative to a uri base when URIBaseID is
// set; as a run's original uri base it has only a description.
type ArtifactLocation struct {
	URI         string `json:"uri,omitempty"`
	URIBaseID   string `json:"uriBaseId,omitempty"`
	Description *Text  `json:"description,omitempty"`
}

// Region is where in a file: a start line, and a column when known.
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// NewRun is a run of governanced with no rules or results yet.
func NewRun(properties any) *Run {
	return &Run{
		Tool: Tool{Driver: Driver{
			Name:           "governanced",
			InformationURI: "https://github.com/celine-eu/governanced",
			Rules:          []Rule{},
		}},
		Results:    []Result{},
		Properties: properties,
		ruleIndex:  map[string]int{},
	}
}

// Rule is the index of the rule id among the run's rules, added with its
// description and default level the first time it is asked for, so that
// the rules are listed in the order the results first use them.
func (r *Run) Rule(id, description, level string) int {
	if i, ok := r.ruleIndex[id]; ok {
		return i
	}
	i := len(r.Tool.Driver.Rules)
	r.ruleIndex[id] = i
	r.Tool.Driver.Rules = append(r.Tool.Driver.Rules, Rule{ID: id, ShortDescription: Text{description}, DefaultConfiguration: Config{level}})
	return i
}

// FileLocation is a location at a region of a file given by its display
// path, relative to the uri base baseID when that is not "".
func FileLocation(file, baseID string, region Region) Location {
	return Location{PhysicalLocation: PhysicalLocation{
		ArtifactLocation: ArtifactLocation{URI: URIReference(file), URIBaseID: baseID},
		Region:           region,
	}}
}

// Write writes a log of the runs as indented JSON, with <, > and & as they
// are.
func Write(w io.Writer, runs ...*Run) error {
	return reportformat.JSON(w, Log{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    runs,
	})
}

// URIReference writes a display path as a relative URI reference: every
// byte outside RFC 3986's path characters is percent-encoded (a glob's "["
// and a space included), "/" kept as the separator, and a colon in the
// first segment, which would read as a scheme, encoded too.
func URIReference(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=@/", c) >= 0:
			b.WriteByte(c)
		case c == ':' && strings.Contains(p[:i], "/"):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

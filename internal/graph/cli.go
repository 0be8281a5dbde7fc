package graph

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Synopsis is the graph command line (graph.md §2).
const Synopsis = `usage: graph [PATH...] [--format|-f tree|order|json|mermaid] [--schedules FILE] [--strict]
             [--overlays [--overlay-name NAME]]

Show which pipelines feed which, from every governance.yaml matched: sources
say what a pipeline produces, depends_on what it reads.

  PATH                 a glob naming pipelines (directories) or governance files; default apps/*
  --format, -f FORMAT  tree (default), order, json or mermaid
  --schedules FILE     a deployment's scheduled flows, to check the crons against the graph
  --strict             exit 1 when any finding but external-satisfied and schedule-unverified is reported
  --overlays           merge each file's deployer overlay (governance.<app>.yaml beside it) first
  --overlay-name NAME  with --overlays: the overlay governance.NAME.yaml instead of the app's

Exit status: 0, 1 when nothing matched, a file cannot be loaded or --strict
fails, 2 for an unknown format, a missing schedules file or a usage error.
`

// CLIOptions are a parsed graph command line.
type CLIOptions struct {
	Patterns  []string // default apps/*
	Format    string   // checked when rendering (§2 step 4), default tree
	Schedules string   // "" for none (§12.1 C1)
	Strict    bool
	// Overlays builds from each base merged with its deployer overlay
	// instead of the base alone; OverlayName names the overlay (default:
	// the app directory's name, as the server and validate pair them).
	Overlays    bool
	OverlayName string
	// Dir is the working directory patterns and the schedules file are
	// taken against; "" means the process's.
	Dir  string
	Help bool
}

// UsageError is a command line that cannot be parsed: exit status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ParseArgs reads the arguments that follow "graph" as the reference's
// command line reads them: options anywhere among the paths, "--" ending
// them, --opt=value and -fVALUE forms, a repeated option's last value
// winning.
func ParseArgs(args []string) (CLIOptions, error) {
	o := CLIOptions{Format: string(Tree)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.Patterns = append(o.Patterns, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			o.Patterns = append(o.Patterns, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			name, value, hasValue = a[:2], a[2:], len(a) > 2
		}
		var target *string
		switch name {
		case "--format", "-f":
			target = &o.Format
		case "--schedules":
			target = &o.Schedules
		case "--overlay-name":
			target = &o.OverlayName
		case "--strict", "--overlays", "--help", "-h":
			if hasValue {
				return o, &UsageError{Msg: fmt.Sprintf("Option '%s' does not take a value.", name)}
			}
			switch name {
			case "--strict":
				o.Strict = true
			case "--overlays":
				o.Overlays = true
			default:
				o.Help = true
			}
			continue
		default:
			return o, &UsageError{Msg: fmt.Sprintf("No such option: %s", name)}
		}
		if !hasValue {
			if i+1 >= len(args) {
				return o, &UsageError{Msg: fmt.Sprintf("Option '%s' requires an argument.", name)}
			}
			i++
			value = args[i]
		}
		*target = value
	}
	if o.OverlayName != "" && !o.Overlays {
		return o, &UsageError{Msg: "--overlay-name needs --overlays"}
	}
	return o, nil
}

// RunCLI is the graph command (graph.md §2): discover, load, check the
// schedules, render on stdout, summarise on stderr, decide the exit status.
// Every message is the reference's, so that a CI job written for it keeps
// working.
func RunCLI(o CLIOptions, stdout, stderr io.Writer) int {
	if o.Help {
		io.WriteString(stdout, Synopsis)
		return 0
	}
	patterns := o.Patterns
	if len(patterns) == 0 {
		patterns = []string{"apps/*"}
	}
	d, err := Discover(o.Dir, patterns)
	if err != nil {
		echo(stderr, err.Error())
		return 1
	}
	if len(d.Files) == 0 {
		echo(stderr, "No governance.yaml matched: "+strings.Join(patterns, ", "))
		return 1
	}

	var pipelines []Pipeline
	var missing []Missing
	skipped := d.SkippedOverlays
	if o.Overlays {
		var merged map[string]bool
		pipelines, missing, merged, err = LoadMerged(d, o.OverlayName)
		skipped = d.Unmerged(merged)
	} else {
		pipelines, missing, err = Load(d)
	}
	for _, m := range missing {
		// The reference's logging line, word for word (§12.1 C4).
		echo(stderr, "WARNING:celine.governance.resolver:Governance config file not found at "+m.File)
	}
	if err != nil {
		echo(stderr, err.Error())
		return 1
	}

	opts := Options{}
	if o.Schedules != "" {
		f := fsys{dir: d.dir}
		shown := pathStr(o.Schedules)
		if !f.isRegular(shown) {
			echo(stderr, "No such schedules file: "+shown)
			return 2
		}
		flows, err := LoadFlows(f.abs(shown), shown)
		if err != nil {
			echo(stderr, err.Error())
			return 1
		}
		opts = Options{CheckSchedules: true, Flows: flows}
	}
	g := Build(pipelines, opts)

	format, ok := ParseFormat(o.Format)
	if !ok {
		echo(stderr, fmt.Sprintf("Unknown format '%s'. Use tree, order, json or mermaid.", o.Format))
		return 2
	}
	var out bytes.Buffer
	Render(&out, g, format)
	stdout.Write(stripANSI(out.Bytes()))
	if format != JSON {
		out.Reset()
		WriteSummary(&out, g, skipped)
		stderr.Write(stripANSI(out.Bytes()))
	}
	if o.Strict && g.Actionable() {
		return 1
	}
	return 0
}

// echo writes a line as the reference's click.echo does.
func echo(w io.Writer, line string) {
	w.Write(stripANSI([]byte(line + "\n")))
}

// ansiStyle is what click.echo removes from text written to anything but a
// terminal; the reference's output, compared byte for byte, went through it.
var ansiStyle = regexp.MustCompile("\x1b\\[[;?0-9]*[a-zA-Z]")

func stripANSI(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	return ansiStyle.ReplaceAll(b, nil)
}

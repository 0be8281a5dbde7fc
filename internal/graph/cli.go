package graph

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
)

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
	Dir string
}

// RunCLI is the graph command (graph.md §2): discover, load, check the
// schedules, render on stdout, summarise on stderr, decide the exit status.
// Every message is the reference's, so that a CI job written for it keeps
// working.
func RunCLI(o CLIOptions, stdout, stderr io.Writer) int {
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
// terminal; the reference output the tests compare byte for byte passed
// through it.
var ansiStyle = regexp.MustCompile("\x1b\\[[;?0-9]*[a-zA-Z]")

func stripANSI(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	return ansiStyle.ReplaceAll(b, nil)
}

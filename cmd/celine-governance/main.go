// Command celine-governance keeps existing CI lines working: it accepts
// `celine-governance validate …`, the gate the Python library shipped on its
// thin core (ADR-0005), and `celine-governance graph …`, the library's
// dependency graph, and runs governanced's with the same command lines,
// reports and exit statuses.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/graph"
)

const usage = `usage: celine-governance validate PATH... [options]
       celine-governance graph [PATH...] [options]

Run "celine-governance validate --help" or "celine-governance graph --help" for the options.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "validate":
		return check.RunCLI(args[1:], stdout, stderr)
	case "graph":
		opts, err := graph.ParseArgs(args[1:])
		if err != nil {
			fmt.Fprintf(stderr, "celine-governance graph: %s\n%s", err, graph.Synopsis)
			return 2
		}
		return graph.RunCLI(opts, stdout, stderr)
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "celine-governance: unknown command %q (validate and graph are provided)\n%s", args[0], usage)
	return 2
}

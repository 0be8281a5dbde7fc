// Command celine-governance keeps existing CI lines working: it accepts
// exactly `celine-governance validate …`, the gate the Python library shipped
// on its thin core (ADR-0005), and runs governanced's check with the same
// command line and report.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/celine-eu/governanced/internal/check"
)

const usage = `usage: celine-governance validate PATH... [options]

Run "celine-governance validate --help" for the options.
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
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "celine-governance: unknown command %q (only validate is provided)\n%s", args[0], usage)
	return 2
}

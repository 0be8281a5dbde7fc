package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/celine-eu/governanced/internal/graph"
)

// parseGraphFlags reads the arguments that follow "graph". The command line is
// the reference's (graph.md §2), shared with celine-governance through
// graph.ParseArgs so that the two can never disagree.
func parseGraphFlags(args []string) (graph.CLIOptions, error) {
	opts, err := graph.ParseArgs(args)
	var ue *graph.UsageError
	if errors.As(err, &ue) {
		return opts, &usageError{msg: fmt.Sprintf("graph: %s\n%s", ue.Msg, graph.Synopsis)}
	}
	return opts, err
}

// runGraph is `governanced graph`: the pipeline dependency graph of the
// governance files the patterns name, rendered on stdout with its summary and
// findings on stderr. The exit status is graph.md's; the report is already
// written when it is not 0.
func runGraph(_ context.Context, opts graph.CLIOptions, stdout, stderr io.Writer) error {
	if code := graph.RunCLI(opts, stdout, stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

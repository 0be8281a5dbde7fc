package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/celine-eu/governanced/internal/snapshot"
)

const resolveUsage = `usage: governanced resolve [--tree DIR]... [--overlay-name NAME] [--overlay-dir DIR]
                          [--owners FILE]... [--placeholders FILE] [--app NAME] [--explain] DATASET

Prints the body GET /datasets/{DATASET}/rule would answer for the same inputs:
the tree is checked and materialised exactly as serve does. --tree defaults to
the working directory. --app resolves inside one app (falling back to its
defaults); --explain adds where every field came from.

Exit status: 0 resolved, 1 not found, ambiguous or the tree failed its check,
2 usage error.

flags:
`

func runResolve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("resolve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, resolveUsage)
		fs.PrintDefaults()
	}
	var in snapshot.Inputs
	var app string
	var explain bool
	fs.Var(&listFlag{values: &in.Trees}, "tree", "a tree root (repeatable)")
	fs.StringVar(&in.OverlayName, "overlay-name", getenv("GOVERNANCE_OVERLAY_NAME"), "the overlay name to look for beside each base ($GOVERNANCE_OVERLAY_NAME)")
	fs.StringVar(&in.OverlayDir, "overlay-dir", "", "a directory of deployer overlays")
	fs.Var(&listFlag{values: &in.Owners}, "owners", "an owners registry file (repeatable)")
	fs.StringVar(&in.Placeholders, "placeholders", "", "the deployment's placeholder map")
	fs.StringVar(&app, "app", "", "resolve inside this app only")
	fs.BoolVar(&explain, "explain", false, "add the provenance of every field")

	// Flags may follow the dataset name, as in the other subcommands.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return &usageError{msg: "resolve: " + err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		return &usageError{msg: "resolve: name exactly one DATASET\n" + resolveUsage}
	}
	name := positional[0]
	if len(in.Trees) == 0 {
		in.Trees = []string{"."}
	}

	snap, err := (&snapshot.Loader{Inputs: in}).Build(ctx)
	var rej *snapshot.Rejection
	switch {
	case errors.As(err, &rej):
		_ = rej.Report.WriteText(stderr)
		return &exitError{code: 1, err: fmt.Errorf("resolve: %w", err)}
	case err != nil:
		return &exitError{code: 1, err: fmt.Errorf("resolve: %w", err)}
	}
	var d *snapshot.Dataset
	if app != "" {
		d, err = snap.ResolveIn(app, name)
	} else {
		d, err = snap.Resolve(name)
	}
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("resolve %s: %w", name, err)}
	}
	var buf bytes.Buffer
	snap.AppendRuleBody(&buf, name, d, explain)
	buf.WriteByte('\n')
	_, err = stdout.Write(buf.Bytes())
	return err
}

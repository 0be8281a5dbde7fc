package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// resolveOptions are resolve's command line.
type resolveOptions struct {
	inputs  snapshot.Inputs
	app     string
	explain bool
	dataset string
}

func newResolveCmd(env *cli.Env) *cobra.Command {
	var o resolveOptions
	c := &cobra.Command{
		Use:   "resolve DATASET [flags]",
		Short: "Resolve one dataset name as GET /datasets/{id}/rule would",
		Long: `Prints the body GET /datasets/{DATASET}/rule would answer for the same inputs:
the tree is checked and materialised exactly as serve does. --tree defaults to
the working directory. --app resolves inside one app (falling back to its
defaults); --explain adds where every field came from.

Exit status: 0 resolved, 1 not found, ambiguous or the tree failed its check,
2 usage error.`,
		Example: `  governanced resolve --tree ./celine-pipelines --owners owners.yaml datasets.ds_dev_gold.meters_data_15m
  governanced resolve --app meters --explain datasets.demo_gold.unknown`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("overlay-name") {
				o.inputs.OverlayName = env.Getenv("GOVERNANCE_OVERLAY_NAME")
			}
			o.dataset = args[0]
			o.inputs.Dir = env.Dir
			return runResolve(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringArrayVar(&o.inputs.Trees, "tree", nil, "a tree root (repeatable; default the working directory)")
	f.StringVar(&o.inputs.OverlayName, "overlay-name", "", "the overlay name to look for beside each base (default $GOVERNANCE_OVERLAY_NAME)")
	f.StringVar(&o.inputs.OverlayDir, "overlay-dir", "", "a directory of deployer overlays")
	f.StringArrayVar(&o.inputs.Owners, "owners", nil, "an owners registry file (repeatable)")
	f.StringVar(&o.inputs.Placeholders, "placeholders", "", "the deployment's placeholder map")
	f.StringVar(&o.app, "app", "", "resolve inside this app only")
	f.BoolVar(&o.explain, "explain", false, "add the provenance of every field")
	return c
}

func runResolve(ctx context.Context, o resolveOptions, stdout, stderr io.Writer) error {
	in := o.inputs
	if len(in.Trees) == 0 {
		in.Trees = []string{"."}
	}
	snap, err := (&snapshot.Loader{Inputs: in}).Build(ctx)
	var rej *snapshot.Rejection
	switch {
	case errors.As(err, &rej):
		_ = rej.Report.WriteText(stderr)
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve: %w", err)}
	case err != nil:
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve: %w", err)}
	}
	var d *snapshot.Dataset
	if o.app != "" {
		d, err = snap.ResolveIn(o.app, o.dataset)
	} else {
		d, err = snap.Resolve(o.dataset)
	}
	if err != nil {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve %s: %w", o.dataset, err)}
	}
	var buf bytes.Buffer
	snap.AppendRuleBody(&buf, o.dataset, d, o.explain)
	buf.WriteByte('\n')
	_, err = stdout.Write(buf.Bytes())
	return err
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// resolveOptions are resolve's command line.
type resolveOptions struct {
	trees   []string
	check   cli.CheckFlags
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
the tree is checked and materialised exactly as serve does, with serve's
check options, read from the same environment (every flag also reads
GOVERNANCED_<FLAG>; GOVERNANCE_OVERLAY_NAME is the overlay name when none is
given). --tree defaults to the working directory. --app resolves inside one
app (falling back to its defaults); --explain adds where every field came
from.

--discover resolves in the one file the library's auto_discover would load
(GOVERNANCE_CONFIG_PATH, then PIPELINES_ROOT/apps/<app>/governance.yaml, then
governance.yaml beside the project directory), alone and inside its app; when
it finds nothing every name resolves to the empty rule, as the library's
empty configuration does, and a note on standard error says so.

Exit status: 0 resolved, 1 not found, ambiguous or the tree failed its check,
2 usage error.`,
		Example: `  governanced resolve --tree ./celine-pipelines --owners owners.yaml datasets.ds_dev_gold.meters_data_15m
  governanced resolve --app meters --explain datasets.demo_gold.unknown
  PIPELINES_ROOT=/srv/pipelines governanced resolve --discover-app meters datasets.ds_dev_gold.meters_data_15m`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cli.BindEnv(cmd.Flags(), env.Getenv); err != nil {
				return err
			}
			cfg, err := o.check.Config(env)
			if err != nil {
				return err
			}
			for _, n := range cfg.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", cmd.CommandPath(), n)
			}
			o.dataset = args[0]
			trees := o.trees
			if len(trees) == 0 && cfg.Discovered == nil {
				trees = []string{"."}
			}
			in, err := checkInputs(trees, cfg, env.Dir)
			if errors.Is(err, errNothingDiscovered) {
				return writeEmptyRule(o.dataset, cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if cfg.Discovered != nil && o.app == "" {
				// The library resolves inside the one file it found.
				o.app = discoveredApp(in)
			}
			return runResolve(cmd.Context(), o, in, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringArrayVar(&o.trees, "tree", nil, "a tree root (repeatable; default the working directory)")
	o.check.Declare(f, true)
	f.StringVar(&o.app, "app", "", "resolve inside this app only")
	f.BoolVar(&o.explain, "explain", false, "add the provenance of every field")
	return c
}

// discoveredApp is the name the discovered file's app is served under.
func discoveredApp(in snapshot.Inputs) string {
	if in.TreeName != "" {
		return in.TreeName
	}
	return snapshot.DirName(in.Base, in.Dir)
}

func runResolve(ctx context.Context, o resolveOptions, in snapshot.Inputs, stdout, stderr io.Writer) error {
	snap, err := (&snapshot.Loader{Inputs: in}).Build(ctx)
	var rej *snapshot.Rejection
	var missing *snapshot.MissingRootError
	switch {
	case errors.As(err, &rej):
		_ = rej.Report.WriteText(stderr)
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve: %w", err)}
	case errors.As(err, &missing):
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve: --tree %s does not exist", missing.Root)}
	case err != nil:
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve: %w", err)}
	}
	d, err := snap.ResolveScoped(o.app, o.dataset)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("resolve %s: %w", o.dataset, err)}
	}
	var buf bytes.Buffer
	api.AppendRuleBody(&buf, snap, o.dataset, d, o.explain)
	buf.WriteByte('\n')
	_, err = stdout.Write(buf.Bytes())
	return err
}

// writeEmptyRule prints what a name resolves to in the library's empty
// configuration, which auto_discover returns when it finds nothing: the
// empty rule, matched as the defaults, in no app and no revision.
func writeEmptyRule(dataset string, stdout io.Writer) error {
	var buf bytes.Buffer
	api.AppendEmptyRuleBody(&buf, dataset)
	buf.WriteByte('\n')
	_, err := stdout.Write(buf.Bytes())
	return err
}

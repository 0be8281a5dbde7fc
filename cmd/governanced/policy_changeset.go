package main

import (
	"context"
	"io"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/dbt"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/spf13/cobra"
)

// Changeset precisions (policy-gate.md §4.2): column is level 2 (§8.8),
// model is level 1 (§8.4–§8.7).
const (
	precisionColumn = "column"
	precisionModel  = "model"
)

// buildChangeset builds the changeset of a pull request's artifacts at the
// precision asked for; column falls back to model level per model where the
// SQL cannot be read, and says so in the warnings.
func buildChangeset(ctx context.Context, in dbt.Inputs, precision string) (*policy.Changeset, []string, error) {
	if precision == precisionModel {
		return dbt.Build(ctx, in)
	}
	return dbt.BuildLevel2(ctx, in)
}

func newPolicyChangesetCmd(env *cli.Env) *cobra.Command {
	o := &policyCheckOptions{}
	c := &cobra.Command{
		Use:   "changeset [flags]",
		Short: "Print the changeset policy check would evaluate, as JSON",
		Long: `Print, as JSON, the changeset policy check would evaluate on the same dbt
artifacts, so that a policy author sees what the rules see.`,
		Example: `  governanced policy changeset --base-manifest base/manifest.json --base-catalog base/catalog.json \
    --manifest target/manifest.json --catalog target/catalog.json`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(false); err != nil {
				return err
			}
			return runPolicyChangeset(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().SortFlags = false
	addArtifactFlags(c.Flags(), o)
	return c
}

// runPolicyChangeset prints, as JSON, the changeset `policy check` would
// evaluate on the same artifacts, so a policy author sees what rules see.
func runPolicyChangeset(ctx context.Context, o *policyCheckOptions, stdout, stderr io.Writer) error {
	failed := func(err error) error { return &cli.ExitError{Code: 2, Err: err} }
	cs, err := openChangeset(ctx, o, stderr)
	if err != nil {
		return failed(err)
	}
	return reportformat.JSON(stdout, cs)
}

package cli

import (
	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/graph"
)

// NewGraphCmd is the pipeline dependency graph (graph.md §2): which
// pipelines feed which, from every governance.yaml matched.
func NewGraphCmd(env *Env) *cobra.Command {
	o := graph.CLIOptions{}
	c := &cobra.Command{
		Use:   "graph [PATH...] [flags]",
		Short: "Show which pipelines feed which, from depends_on and sources",
		Long: `Show which pipelines feed which, from every governance.yaml matched: sources
say what a pipeline produces, depends_on what it reads. The graph goes to
standard output, its summary to standard error.

A PATH is a glob naming pipelines (directories) or governance files; the
default is apps/*.

Exit status: 0, 1 when nothing matched, a file cannot be loaded or --strict
fails, 2 for an unknown format, a missing schedules file or a usage error.`,
		Example: `  governanced graph
  governanced graph 'apps/*' --format mermaid
  governanced graph --schedules flows.yaml --strict`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.OverlayName != "" && !o.Overlays {
				return Usagef("--overlay-name needs --overlays")
			}
			o.Patterns, o.Dir = args, env.Dir
			if code := graph.RunCLI(o, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &ExitError{Code: code}
			}
			return nil
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVarP(&o.Format, "format", "f", string(graph.Tree), "tree, order, json or mermaid")
	f.StringVar(&o.Schedules, "schedules", "", "a deployment's scheduled flows, to check the crons against the graph")
	f.BoolVar(&o.Strict, "strict", false, "exit 1 when any finding but external-satisfied and schedule-unverified is reported")
	f.BoolVar(&o.Overlays, "overlays", false, "merge each file's deployer overlay (governance.<app>.yaml beside it) first")
	f.StringVar(&o.OverlayName, "overlay-name", "", "with --overlays: the overlay governance.NAME.yaml instead of the app's")
	return c
}

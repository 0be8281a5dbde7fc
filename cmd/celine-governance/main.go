// Command celine-governance keeps existing CI lines working: it accepts
// `celine-governance validate …`, the gate the Python library shipped on its
// thin core (seed ADR-0005), and `celine-governance graph …`, the library's
// dependency graph, and runs governanced's own commands with the same
// command lines, reports and exit statuses.
package main

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	env := &cli.Env{Getenv: os.Getenv}
	root := &cobra.Command{
		Use:   "celine-governance",
		Short: "The celine-utils governance command lines, run by governanced",
		Args:  cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cli.Usagef("name a command: validate or graph")
		},
	}
	root.AddCommand(cli.NewValidateCmd(env), cli.NewGraphCmd(env))
	root.CompletionOptions.DisableDefaultCmd = true
	return cli.Execute(ctx, root, args, stdout, stderr)
}

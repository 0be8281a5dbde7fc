// Command governanced serves CELINE governance trees over HTTP, checks them in
// CI (`governanced validate`), says what a change to them does to the served
// governance (`governanced diff`), gates dbt pull requests (`governanced
// policy check`), answers column-lineage questions (`governanced lineage`)
// and shows the pipeline dependency graph (`governanced graph`).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=…"; a
// binary built by `go install …@vX` reports its module version instead.
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it with their own args,
// environment and writers, and get the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return cli.Execute(ctx, newRootCmd(&cli.Env{Getenv: getenv}), args, stdout, stderr)
}

// newRootCmd is the whole command line. With no command it serves, as the
// container image runs it.
func newRootCmd(env *cli.Env) *cobra.Command {
	serve := newServeCmd(env.Getenv)
	root := &cobra.Command{
		Use:   "governanced",
		Short: "CELINE governance as a service, a CI gate and a dbt policy gate",
		Long: `governanced serves CELINE governance trees over HTTP, checks them in CI,
gates dbt pull requests and shows the pipeline dependency graph.

With no command it runs serve.`,
		Version: buildVersion(),
		Args:    cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve.RunE(serve, args)
		},
	}
	root.SetVersionTemplate("governanced {{.Version}}\n")
	root.AddCommand(
		serve,
		cli.NewValidateCmd(env),
		newDiffCmd(env),
		newResolveCmd(env),
		newPolicyCmd(env),
		newLineageCmd(),
		cli.NewGraphCmd(env),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cli.Args(cobra.NoArgs),
			Run: func(cmd *cobra.Command, _ []string) {
				cmd.Println("governanced", buildVersion())
			},
		},
	)
	return root
}

// buildVersion is the stamped version, else the module version the binary
// was built at (go install …@v1.2.3), else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

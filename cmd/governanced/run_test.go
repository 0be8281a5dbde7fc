package main

import (
	"context"
	"io"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/spf13/pflag"
)

// runE is run returning what the command returned, for tests that look at
// the error itself.
func runE(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return cli.Run(ctx, newRootCmd(&cli.Env{Getenv: getenv}), args, stdout, stderr)
}

// exitCode is the exit status run gives for err, its message on stderr.
func exitCode(err error, stderr io.Writer) int {
	return cli.Status(newRootCmd(&cli.Env{}), nil, err, stderr)
}

// parseServeArgs reads serve's command line and environment as the serve
// command does, without serving.
func parseServeArgs(args []string, getenv func(string) string, _ io.Writer) (*serveConfig, error) {
	sf := &serveFlags{}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addServeFlags(fs, sf)
	if err := fs.Parse(args); err != nil {
		return nil, &cli.UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := cli.BindEnv(fs, getenv); err != nil {
		return nil, err
	}
	return sf.config(fs, getenv)
}

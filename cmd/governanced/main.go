// Command governanced serves CELINE governance trees over HTTP, checks them in CI
// (`governanced validate`), gates dbt pull requests (`governanced policy check`)
// and shows the pipeline dependency graph (`governanced graph`).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitError carries a process exit code through run without printing anything
// more: the subcommand has already written its report.
type exitError struct {
	code int
	err  error // optional cause, printed to stderr when non-nil
}

func (e *exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", e.code)
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "governanced:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "governanced:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

const usage = `usage: governanced <command> [flags]

commands:
  serve      serve governance trees over HTTP (the default; a demo tree when no tree is named)
  validate   check governance trees as they will be served (the CI gate)
  resolve    resolve one dataset name against a governance file
  policy     run the dbt pull-request policy gate ("policy check", "policy changeset")
  lineage    column lineage of a dbt project: what a column reaches, or is made of
  graph      show which pipelines feed which, from depends_on and sources
  version    print the version
`

// run is main without the process: tests call it with their own args and writers.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runServe(ctx, nil, getenv, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], getenv, stdout, stderr)
	case "validate":
		return runValidate(ctx, args[1:], getenv, stdout, stderr)
	case "resolve":
		return runResolve(ctx, args[1:], getenv, stdout, stderr)
	case "policy":
		return runPolicy(ctx, args[1:], getenv, stdout, stderr)
	case "lineage":
		return runLineageCommand(ctx, args[1:], stdout, stderr)
	case "graph":
		opts, err := parseGraphFlags(args[1:])
		if err != nil {
			return err
		}
		return runGraph(ctx, opts, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "governanced", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return &usageError{msg: fmt.Sprintf("unknown command %q\n%s", args[0], usage)}
}

// Package cli holds what every governanced command line shares: the exit
// statuses and how errors reach them, reading GOVERNANCED_* variables into
// flags, and the commands both binaries run — validate (check.md §2.1) and
// graph (graph.md §2) — so that `governanced validate` and
// `celine-governance validate` cannot disagree.
//
// Commands are github.com/spf13/cobra commands: one flag style (--name
// value, --name=value, -x value for the few short forms), help on standard
// output, completion scripts. Exit status: 0 success, 1 a failed check or
// gate, 2 a usage error.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// UsageError is a command line that cannot be run: exit status 2, the
// message on standard error, nothing on standard output.
type UsageError struct {
	Msg     string
	Command string // the command path it was given to ("governanced validate"); Run fills it in
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitError ends a command with a status and, when Err is set, a message on
// standard error; a command that already wrote its report sets no Err.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *ExitError) Unwrap() error { return e.Err }

// Env is what a command reads from its process: the working directory
// relative paths start from ("" is the process's) and the environment.
type Env struct {
	Dir    string
	Getenv func(string) string
}

// Execute runs root with args and returns the exit status: help and
// reports go to stdout, errors to stderr prefixed with the program's name.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	return Status(root, args, Run(ctx, root, args, stdout, stderr), stderr)
}

// Run runs root with args and returns what its command returned.
func Run(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) error {
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Msg: err.Error(), Command: c.CommandPath()}
	})
	cmd, err := root.ExecuteContextC(ctx)
	var ue *UsageError
	switch {
	case errors.As(err, &ue):
		if ue.Command == "" && cmd != nil {
			ue.Command = cmd.CommandPath()
		}
	case err != nil && isCobraUsage(err):
		path := root.Name()
		if cmd != nil {
			path = cmd.CommandPath()
		}
		err = &UsageError{Msg: err.Error(), Command: path}
	}
	return err
}

// Status is the exit status of what a command returned, with its message
// written to stderr: 0 for nil, an ExitError's code, 2 for a usage error
// (and a hint at --help), else 1.
func Status(root *cobra.Command, args []string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", root.Name(), ee.Err)
		}
		return ee.Code
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		path := ue.Command
		if path == "" {
			path = root.Name()
		}
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", path, ue.Msg, path)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", root.Name(), err)
	return 1
}

// isCobraUsage reports the errors cobra itself returns for a command line
// it cannot route: an unknown command, a wrong number of arguments.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// Args wraps a cobra positional-argument check so that its complaint is a
// usage error.
func Args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &UsageError{Msg: err.Error(), Command: c.CommandPath()}
		}
		return nil
	}
}

// EnvName is the variable a flag reads: GOVERNANCED_ and the flag's name in
// upper snake case (--max-body-bytes → GOVERNANCED_MAX_BODY_BYTES).
func EnvName(flag string) string {
	return "GOVERNANCED_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// BindEnv gives every flag of fs that the command line did not set the
// value of its GOVERNANCED_* variable, when that is set: the flag wins over
// the environment. A repeatable flag reads a list separated by the path
// list separator (":" on Unix). A value the flag refuses is a usage error
// naming the variable.
func BindEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || getenv == nil || f.Name == "help" {
			return
		}
		v := getenv(EnvName(f.Name))
		if v == "" {
			return
		}
		values := []string{v}
		if _, ok := f.Value.(pflag.SliceValue); ok {
			values = filepath.SplitList(v)
		}
		for _, s := range values {
			if err := f.Value.Set(s); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %v", EnvName(f.Name), v, err))
				return
			}
		}
	})
	if len(errs) > 0 {
		return &UsageError{Msg: errors.Join(errs...).Error()}
	}
	return nil
}

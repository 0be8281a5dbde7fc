package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/celine-eu/governanced/internal/check"
)

// NewValidateCmd is the CI gate (check.md §2.1): check governance trees as
// they will be served, print the report, exit 1 when it fails. Its check
// options are every command's (CheckFlags), read from the environment as
// serve reads them; what the environment decided is said on standard
// error, so that a verdict an environment variable changed is never
// silent.
func NewValidateCmd(env *Env) *cobra.Command {
	v := &validateFlags{}
	c := &cobra.Command{
		Use:   "validate PATH... [flags]",
		Short: "Check governance trees as they will be served (the CI gate)",
		Long: `Check governance trees as they will be served: every base merged with its
overlay, owners resolved. The report goes to standard output.

A PATH is a governance file, a directory holding governance.yaml, a tree
(a directory holding apps/<app>/governance.yaml, or the apps directory
itself), or a glob such as 'apps/*'.

The check's options are serve's, with the same environment: every flag also
reads GOVERNANCED_<FLAG> (the flag wins), and GOVERNANCE_OVERLAY_NAME is the
overlay name when none is given, as the library reads it; a note on
standard error says when it was.

Exit status: 0 when the check passes, 1 when it fails, 2 on a usage error.`,
		Example: `  governanced validate apps --owners owners.yaml
  governanced validate 'apps/*' --overlay-name prod --strict --format sarif
  governanced validate apps --output sarif=governance.sarif --output json=report.json`,
		Args: Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := BindEnv(cmd.Flags(), env.Getenv); err != nil {
				return err
			}
			inv, err := v.invocation(cmd.Flags(), args, env)
			if err != nil {
				return err
			}
			for _, n := range inv.notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", cmd.CommandPath(), n)
			}
			rep, err := check.Run(cmd.Context(), inv.opts)
			if err != nil {
				if ue, ok := err.(*check.UsageError); ok {
					return &UsageError{Msg: ue.Msg}
				}
				return err
			}
			if err := writeOutputs(inv.outputs, env.Dir, rep.Write); err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			if err := rep.Write(cmd.OutOrStdout(), inv.format); err != nil {
				// A report that could not be written did not pass anything.
				return &ExitError{Code: 1, Err: fmt.Errorf("writing the report: %w", err)}
			}
			if rep.ExitCode != 0 {
				return &ExitError{Code: rep.ExitCode}
			}
			return nil
		},
	}
	v.declare(c.Flags())
	return c
}

// validateFlags are validate's flags as given.
type validateFlags struct {
	check   CheckFlags
	format  string
	outputs []string
}

func (v *validateFlags) declare(f *pflag.FlagSet) {
	f.SortFlags = false
	v.check.Declare(f, false)
	f.StringVar(&v.format, "format", "text", "the report on standard output: text, json, sarif or github")
	f.StringArrayVar(&v.outputs, "output", nil, "also write the report as FORMAT=FILE (repeatable), e.g. sarif=governance.sarif")
}

// invocation is a validate command line, checked: the check's options,
// the format of standard output, the --output files, and what the
// environment decided.
type invocation struct {
	opts    check.Options
	format  string
	outputs []output
	notes   []string
}

func (v *validateFlags) invocation(_ *pflag.FlagSet, args []string, env *Env) (invocation, error) {
	inv := invocation{format: v.format}
	cfg, err := v.check.Config(env)
	if err != nil {
		return inv, err
	}
	inv.opts, inv.notes = cfg.Options(args, env.Dir), cfg.Notes
	if !slices.Contains(check.Formats, v.format) {
		return inv, Usagef("--format must be one of %s, not %q", strings.Join(check.Formats, ", "), v.format)
	}
	if inv.outputs, err = parseOutputs(v.outputs, check.Formats); err != nil {
		return inv, err
	}
	return inv, nil
}

// output is one --output FORMAT=FILE.
type output struct{ format, file string }

// parseOutputs reads --output values against the formats a command writes.
func parseOutputs(values, formats []string) ([]output, error) {
	var out []output
	for _, v := range values {
		format, file, ok := strings.Cut(v, "=")
		if !ok || file == "" {
			return nil, Usagef("--output %q: write it as FORMAT=FILE, e.g. sarif=report.sarif", v)
		}
		if !slices.Contains(formats, format) {
			return nil, Usagef("--output %q: the format must be one of %s", v, strings.Join(formats, ", "))
		}
		out = append(out, output{format, file})
	}
	return out, nil
}

// writeOutputs writes each --output file, relative paths against dir.
func writeOutputs(files []output, dir string, write func(w io.Writer, format string) error) error {
	for _, o := range files {
		var buf bytes.Buffer
		if err := write(&buf, o.format); err != nil {
			return fmt.Errorf("writing %s: %w", o.file, err)
		}
		p := o.file
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing --output %s: %w", o.file, err)
		}
	}
	return nil
}

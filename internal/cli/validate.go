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
// they will be served, print the report, exit 1 when it fails. The
// environment is deliberately not read: a gate whose verdict depends on
// GOVERNANCE_OVERLAY_NAME is not reproducible (check.md D4).
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

Exit status: 0 when the check passes, 1 when it fails, 2 on a usage error.`,
		Example: `  governanced validate apps --owners owners.yaml
  governanced validate 'apps/*' --overlay-name prod --strict --format sarif
  governanced validate apps --output sarif=governance.sarif --output json=report.json`,
		Args: Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			inv, err := v.invocation(cmd.Flags(), args, env)
			if err != nil {
				return err
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
	opts                                  check.Options
	overlayDir, overlayName, placeholders string
	format                                string
	outputs                               []string
}

func (v *validateFlags) declare(f *pflag.FlagSet) {
	f.SortFlags = false
	f.Var(&once{value: &v.overlayDir}, "overlay-dir", "a directory of deployer overlays, paired with bases by app name (at most once)")
	f.Var(&once{value: &v.overlayName}, "overlay-name", "the overlay name to look for beside each base instead of the app name (at most once)")
	f.StringArrayVar(&v.opts.Owners, "owners", nil, "an owners registry; repeatable, later files shadow earlier ones by id")
	f.Var(&once{value: &v.placeholders}, "placeholders", "the deployment's placeholder map (name -> owner id); needs --owners")
	f.BoolVar(&v.opts.Dataspace, "dataspace", false, "require a DID for owners of organization-narrowed dataspace offers; needs --owners")
	f.BoolVar(&v.opts.Strict, "strict", false, "warnings fail the run")
	f.StringVar(&v.format, "format", "text", "the report on standard output: text, json, sarif or github")
	f.StringArrayVar(&v.outputs, "output", nil, "also write the report as FORMAT=FILE (repeatable), e.g. sarif=governance.sarif")
}

// invocation is a validate command line, checked: the check's options,
// the format of standard output and the --output files.
type invocation struct {
	opts    check.Options
	format  string
	outputs []output
}

func (v *validateFlags) invocation(flags *pflag.FlagSet, args []string, env *Env) (invocation, error) {
	inv := invocation{opts: v.opts, format: v.format}
	inv.opts.Paths = args
	if flags.Changed("overlay-dir") {
		inv.opts.OverlayDir = &v.overlayDir
	}
	if flags.Changed("overlay-name") {
		if !check.ValidOverlayName(v.overlayName) {
			return inv, Usagef("invalid --overlay-name %q: it must be non-empty, not . or .., and contain no / or \\", v.overlayName)
		}
		inv.opts.OverlayName = &v.overlayName
	}
	if flags.Changed("placeholders") {
		inv.opts.PlaceholdersFile = &v.placeholders
	}
	if !slices.Contains(check.Formats, v.format) {
		return inv, Usagef("--format must be one of %s, not %q", strings.Join(check.Formats, ", "), v.format)
	}
	var err error
	if inv.outputs, err = parseOutputs(v.outputs, check.Formats); err != nil {
		return inv, err
	}
	inv.opts.Dir = env.Dir
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

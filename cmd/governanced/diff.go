package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// diffOptions are the flags of `governanced diff`.
type diffOptions struct {
	base, head string
	check      cli.CheckFlags
	format     string
	failOn     []string
	outputs    []string

	cfg   cli.CheckConfig // check, read
	kinds []diff.Kind     // failOn, read
	dir   string          // the working directory relative paths start from; "" is the process's
}

func newDiffCmd(env *cli.Env) *cobra.Command {
	o := &diffOptions{}
	c := &cobra.Command{
		Use:   "diff --base DIR|REF [--head DIR] [flags]",
		Short: "What a change to a governance tree does to the served governance",
		Long: `What changes for the data from the base tree to the head tree, each checked
as it will be served (overlays merged, owners resolved): datasets added and
removed, every resolved field that changed with the head's file and line, the
changes a reviewer must not miss (catalogue-exposed, dataspace-offered,
row-policy-removed, access-level-lowered, owner-changed, …) and the check
findings the head gains or loses. docs/diff.md defines every kind.

--base and --head are tree roots, as serve --tree takes them. --base may
instead name a git ref (HEAD, main, origin/main, a commit): the base is then
that commit's tree at --head's place in its repository, read with git
archive (git must be installed, and --head inside the repository). A
relative --overlay-dir, --owners or --placeholders is read in each tree's
root, so each side has its own (an absolute one is the same file for both).
The check's options are validate's, read from the same environment. File
paths in the JSON report are relative to the roots; text, markdown and
github put the root in front (REF: for a ref, as git show takes it).

Exit status: 0; 1 when a --fail-on kind occurred; 2 on a usage error or a
tree that cannot be read.`,
		Example: `  governanced diff --base origin/main --owners owners.yaml
  governanced diff --base ../main --owners owners.yaml
  governanced diff --base base --head . --owners owners.yaml --format github \
    --output markdown=governance-diff.md --fail-on risky`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.BindEnv(cmd.Flags(), env.Getenv); err != nil {
				return err
			}
			if err := o.validate(env); err != nil {
				return err
			}
			for _, n := range o.cfg.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", cmd.CommandPath(), n)
			}
			o.dir = env.Dir
			return runDiff(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&o.base, "base", "", "the base tree's root (the pull request's target, checked out beside), or a git ref of the head's repository")
	f.StringVar(&o.head, "head", ".", "the head tree's root")
	o.check.Declare(f, false)
	f.StringVar(&o.format, "format", "text", "the report on standard output: "+strings.Join(diff.Formats, ", "))
	f.StringArrayVar(&o.outputs, "output", nil, "also write the report as FORMAT=FILE (repeatable), e.g. markdown=governance-diff.md")
	f.StringArrayVar(&o.failOn, "fail-on", nil, `exit 1 when one of these kinds occurs: a comma-separated list, "risky" or "any"; repeatable`)
	return c
}

// validate refuses a command line that cannot describe a diff, and reads
// the check's options.
func (o *diffOptions) validate(env *cli.Env) error {
	switch {
	case o.base == "":
		return cli.Usagef("--base is required: the base tree's root")
	case !slices.Contains(diff.Formats, o.format):
		return cli.Usagef("--format %q is not one of %s", o.format, strings.Join(diff.Formats, ", "))
	}
	var err error
	if o.cfg, err = o.check.Config(env); err != nil {
		return err
	}
	for _, v := range o.outputs {
		format, file, ok := strings.Cut(v, "=")
		if !ok || file == "" || !slices.Contains(diff.Formats, format) {
			return cli.Usagef("--output %q: write it as FORMAT=FILE with FORMAT one of %s", v, strings.Join(diff.Formats, ", "))
		}
	}
	for _, v := range o.failOn {
		ks, err := diff.ParseKinds(v)
		if err != nil {
			return cli.Usagef("--fail-on: %v", err)
		}
		o.kinds = append(o.kinds, ks...)
	}
	return nil
}

// path is p read from the working directory.
func (o *diffOptions) path(p string) string {
	if o.dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(o.dir, p)
}

// loader is one side's tree: its root as a tree root, every relative path
// read in it, and display paths relative to it, so that both sides name
// the same file alike (their findings match, and the head reuses the
// base's unchanged units).
func (o *diffOptions) loader(root string) (*snapshot.Loader, error) {
	in, err := checkInputs([]string{"."}, o.cfg, o.path(root))
	// A tree of one governance.yaml is served under its directory's name,
	// the app's: both sides take the head's, so the app compares with
	// itself wherever the base was checked out.
	in.TreeName = snapshot.DirName(filepath.Join(o.head, "governance.yaml"), o.dir)
	return &snapshot.Loader{Inputs: in}, err
}

// runDiff checks the base, then the head reusing the base's unchanged units,
// compares them and writes the report.
func runDiff(ctx context.Context, o *diffOptions, stdout, stderr io.Writer) error {
	if info, err := os.Stat(o.path(o.head)); err != nil || !info.IsDir() {
		return cli.Usagef("--head %s is not a directory", o.head)
	}
	// --base names a directory, else a git ref of the repository holding
	// the head: its tree at the head's place, read with git archive.
	baseRoot, baseName := o.base, o.base
	if info, err := os.Stat(o.path(o.base)); err != nil || !info.IsDir() {
		dir, treeish, cleanup, err := checkoutRef(ctx, o.base, o.path(o.head))
		if err != nil {
			return err
		}
		defer cleanup()
		baseRoot, baseName = dir, treeish
	}
	failed := func(err error) error { return &cli.ExitError{Code: 2, Err: fmt.Errorf("diff: %w", err)} }
	checkTree := func(side, root string, prev *snapshot.Checked) (*snapshot.Checked, error) {
		l, err := o.loader(root)
		if err != nil {
			return nil, err
		}
		c, err := l.Check(ctx, prev)
		var ue *check.UsageError
		switch {
		case errors.As(err, &ue):
			return nil, cli.Usagef("%s", ue.Msg)
		case err != nil:
			return nil, failed(fmt.Errorf("the %s tree: %w", side, err))
		}
		return c, nil
	}
	base, err := checkTree("base", baseRoot, nil)
	if err != nil {
		return err
	}
	head, err := checkTree("head", o.head, base)
	if err != nil {
		return err
	}
	rep, err := diff.Compare(ctx, base.Tree(baseName), head.Tree(o.head))
	if err != nil {
		return failed(err)
	}
	for _, v := range o.outputs {
		format, file, _ := strings.Cut(v, "=")
		var buf bytes.Buffer
		if err := rep.Write(&buf, format); err != nil {
			return failed(err)
		}
		if err := os.WriteFile(o.path(file), buf.Bytes(), 0o644); err != nil {
			return failed(fmt.Errorf("--output: %w", err))
		}
	}
	if err := rep.Write(stdout, o.format); err != nil {
		return failed(fmt.Errorf("writing the report: %w", err))
	}
	if occurred := rep.Occurred(o.kinds); len(occurred) > 0 {
		parts := make([]string, len(occurred))
		for i, k := range occurred {
			parts[i] = fmt.Sprintf("%s (%d)", k, rep.Count(k))
		}
		fmt.Fprintf(stderr, "governanced diff: fails on %s\n", strings.Join(parts, ", "))
		return &cli.ExitError{Code: 1}
	}
	return nil
}

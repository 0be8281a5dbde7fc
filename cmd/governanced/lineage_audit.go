package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/propagate"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// auditOptions are the flags of `governanced lineage audit`.
type auditOptions struct {
	manifest, catalog string
	governance        []string
	format            string
	minClassification string
	minAccessLevel    string
	rowSet            bool
}

func newLineageAuditCmd() *cobra.Command {
	o := &auditOptions{}
	c := &cobra.Command{
		Use:   "audit --manifest FILE --catalog FILE --governance TREE [flags]",
		Short: "Find the columns that carry more sensitive data than their dataset declares",
		Long: `Infers the governance every column of the project carries from the columns
it is computed from, along column lineage: the strongest classification
(green < yellow < red < pii) and the strictest access level (open <
internal < restricted) of its sources, each relation's own from the
governance trees (looked up by database.schema.alias, as --governance of
policy check does). Reports every column of a governed model whose
inferred classification or access level is above what its dataset
declares and at or above the thresholds (default red and restricted:
sensitive or personal data, or data needing explicit authorisation),
with the path the data took and whether the dataset is listed in the
catalogue or offered into the dataspace.

Columns a model uses only to choose rows (WHERE, JOIN … ON, GROUP BY, …)
carry no value and count only with --rowset.

Exit status: 1 when there is a finding, 0 when there is none, 2 for bad
input (an artifact or tree that cannot be read, a tree with errors, a
relation of the project that several apps declare).`,
		Example: `  governanced lineage audit --manifest target/manifest.json --catalog target/catalog.json \
    --governance governance/
  governanced lineage audit --manifest target/manifest.json --catalog target/catalog.json \
    --governance governance/ --format sarif > lineage-audit.sarif`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case o.manifest == "":
				return cli.Usagef("--manifest is required")
			case len(o.governance) == 0:
				return cli.Usagef("--governance is required: the tree whose rules declare each dataset's governance")
			case !slices.Contains(propagate.Formats, o.format):
				return cli.Usagef("--format %q is not one of %s", o.format, strings.Join(propagate.Formats, ", "))
			}
			return runLineageAudit(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&o.manifest, "manifest", "", "the project's manifest.json")
	f.StringVar(&o.catalog, "catalog", "", "the project's catalog.json (expands SELECT *)")
	f.StringArrayVar(&o.governance, "governance", nil, "a governance tree (repeatable)")
	f.StringVar(&o.format, "format", "text", strings.Join(propagate.Formats, ", "))
	f.StringVar(&o.minClassification, "min-classification", propagate.DefaultMinClassification, "the classification from which data counts as sensitive")
	f.StringVar(&o.minAccessLevel, "min-access-level", propagate.DefaultMinAccessLevel, "the access level from which data counts as sensitive")
	f.BoolVar(&o.rowSet, "rowset", false, "count the columns that choose a model's rows as well")
	return c
}

// auditRules resolves each relation as snapshotGovernance does, and keeps
// the relations that several apps claim, which the audit refuses.
type auditRules struct {
	snap      *snapshot.Snapshot
	ambiguous map[string]string
}

func (r *auditRules) Rule(relation string) (*governance.Rule, bool) {
	d, err := r.snap.Resolve(relation)
	var amb *snapshot.AmbiguousError
	if errors.As(err, &amb) {
		r.ambiguous[relation] = err.Error()
	}
	if err != nil || d == nil {
		return nil, false
	}
	return d.Rule(), true
}

func runLineageAudit(ctx context.Context, o *auditOptions, stdout, stderr io.Writer) error {
	failed := func(err error) error { return &cli.ExitError{Code: 2, Err: err} }
	// The thresholds first: a typo fails before any work.
	if _, err := propagate.NormalizeLevels(o.minClassification, o.minAccessLevel); err != nil {
		return cli.Usagef("--min-classification / --min-access-level: %v", err)
	}
	snap, err := (&snapshot.Loader{Inputs: snapshot.Inputs{Trees: o.governance}}).Build(ctx)
	if err != nil {
		return failed(fmt.Errorf("--governance: %w", err))
	}
	g, err := projectGraph(ctx, o.manifest, o.catalog, stderr)
	if err != nil {
		return failed(err)
	}
	rules := &auditRules{snap: snap, ambiguous: map[string]string{}}
	res, err := propagate.Infer(ctx, g.Propagation(), rules)
	if err != nil {
		return failed(err)
	}
	if len(rules.ambiguous) > 0 {
		// Which rule applies decides the answer either way: as a source it
		// could hide personal data, as a target it could hide a finding.
		var msgs []string
		for _, msg := range rules.ambiguous {
			msgs = append(msgs, msg)
		}
		sort.Strings(msgs)
		return failed(fmt.Errorf("--governance: the audit cannot tell what a relation declares when several rules claim it: %s",
			strings.Join(msgs, "; ")))
	}
	rep, err := propagate.Audit(res, propagate.AuditOptions{
		MinClassification: o.minClassification, MinAccessLevel: o.minAccessLevel, RowSet: o.rowSet})
	if err != nil {
		return failed(err)
	}
	if err := rep.Write(stdout, o.format); err != nil {
		return err
	}
	if len(rep.Findings) > 0 {
		return &cli.ExitError{Code: 1}
	}
	return nil
}

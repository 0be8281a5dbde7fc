package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/celine-eu/governanced/internal/dbt"
	"github.com/celine-eu/governanced/internal/policy"
)

// Changeset precisions (policy-gate.md §4.2): column is level 2 (§8.8),
// model is level 1 (§8.4–§8.7).
const (
	precisionColumn = "column"
	precisionModel  = "model"
)

// buildChangeset builds the changeset of a pull request's artifacts at the
// precision asked for; column falls back to model level per model where the
// SQL cannot be read, and says so in the warnings.
func buildChangeset(in dbt.Inputs, precision string) (*policy.Changeset, []string, error) {
	if precision == precisionModel {
		return dbt.Build(in)
	}
	return dbt.BuildLevel2(in)
}

// parsePolicyChangeset reads the flags of `governanced policy changeset`:
// the artifact flags of `policy check`, --precision and --governance.
func parsePolicyChangeset(args []string) (*policyCheckOptions, error) {
	o := &policyCheckOptions{}
	fset := flag.NewFlagSet("policy changeset", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	fset.StringVar(&o.manifest, "manifest", "", "head manifest.json")
	fset.StringVar(&o.catalog, "catalog", "", "head catalog.json")
	fset.StringVar(&o.baseManifest, "base-manifest", "", "base manifest.json")
	fset.StringVar(&o.baseCatalog, "base-catalog", "", "base catalog.json")
	fset.Var(&o.governance, "governance", "governance tree (repeatable)")
	fset.StringVar(&o.precision, "precision", precisionColumn, "column or model")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{msg: fmt.Sprintf("policy changeset: %v\n%s", err, policyUsage)}
	}
	usage := func(format string, a ...any) error {
		return &usageError{msg: "policy changeset: " + fmt.Sprintf(format, a...) + "\n" + policyUsage}
	}
	switch {
	case fset.NArg() > 0:
		return nil, usage("unexpected argument %q", fset.Arg(0))
	case o.manifest == "" || o.baseManifest == "":
		return nil, usage("--manifest and --base-manifest are required (catalogs optional)")
	case o.precision != precisionColumn && o.precision != precisionModel:
		return nil, usage("--precision %q is not column or model", o.precision)
	}
	return o, nil
}

func runPolicyChangesetCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parsePolicyChangeset(args)
	if errors.Is(err, flag.ErrHelp) {
		_, err = io.WriteString(stdout, policyUsage)
		return err
	}
	if err != nil {
		return err
	}
	return runPolicyChangeset(ctx, o, stdout, stderr)
}

// runPolicyChangeset prints, as JSON, the changeset `policy check` would
// evaluate on the same artifacts, so a policy author sees what rules see.
func runPolicyChangeset(ctx context.Context, o *policyCheckOptions, stdout, stderr io.Writer) error {
	failed := func(err error) error { return &exitError{code: 2, err: err} }
	var lookup policy.GovernanceLookup
	if len(o.governance) > 0 {
		var err error
		if lookup, err = governanceFromTrees(ctx, o.governance); err != nil {
			return failed(err)
		}
	}
	cs, warnings, err := loadChangeset(o, lookup)
	if err != nil {
		return failed(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "governanced: warning:", w)
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(cs)
}

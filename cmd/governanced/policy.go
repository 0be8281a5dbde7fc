package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/dbt"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/propagate"
	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Default policy files, looked up in the working directory in this order
// (spec §2.1, D-02).
var defaultPolicyFiles = []string{"governanced.policy.yml", "dbt-col-lineage.policy.yml"}

// noPolicyGateWarning is spec §7.3's warning for a gate that can never fire.
const noPolicyGateWarning = "--fail-on policy given but no policy resolved; the policy gate can never fire"

// treeGovernance is the governance of --governance trees, as the policy's
// meta reads it and as column lineage propagates it.
type treeGovernance interface {
	policy.GovernanceLookup
	propagate.Rules
}

// governanceFromTrees loads the governance trees named by --governance into a
// lookup, through the same snapshot the service serves: the tree is checked,
// and a tree with errors is refused rather than evaluated without governance.
var governanceFromTrees = func(ctx context.Context, trees []string) (treeGovernance, error) {
	snap, err := (&snapshot.Loader{Inputs: snapshot.Inputs{Trees: trees}}).Build(ctx)
	if err != nil {
		return nil, fmt.Errorf("--governance: %w", err)
	}
	return snapshotGovernance{snap}, nil
}

// snapshotGovernance resolves a relation (database.schema.alias) globally, as
// GET /datasets/{id}/rule does: a literal key in exactly one app, else the
// longest glob. An ambiguous or unmatched relation has no governance, which the
// policy engine treats fail-safe as missing meta.
type snapshotGovernance struct{ snap *snapshot.Snapshot }

// Rule is the resolved rule of a relation, resolved as Governance does.
func (g snapshotGovernance) Rule(relation string) (*governance.Rule, bool) {
	d, err := g.snap.Resolve(relation)
	if err != nil || d == nil {
		return nil, false
	}
	return d.Rule(), true
}

func (g snapshotGovernance) Governance(relation string) (map[string]any, bool) {
	r, ok := g.Rule(relation)
	if !ok {
		return nil, false
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, false
	}
	var rule map[string]any
	if err := json.Unmarshal(body, &rule); err != nil {
		return nil, false
	}
	return rule, true
}

type policyCheckOptions struct {
	policyFile                string
	changeset                 string
	manifest, catalog         string
	baseManifest, baseCatalog string
	governance                []string
	failOn, format            string
	precision                 string
	outputs                   []string
	workDir                   string // where default policy files are looked up
}

var failOnGates = []string{"none", "policy", "tests", "exposures", "critical", "any"}

func newPolicyCmd(env *cli.Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "The dbt pull-request policy gate",
		Long: `The dbt pull-request policy gate: check evaluates a policy on a pull
request's changeset; changeset prints the changeset check would evaluate.
docs/ci.md runs it on a pull request.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return cli.Usagef("name a command: check or changeset")
		},
	}
	c.AddCommand(newPolicyCheckCmd(env), newPolicyChangesetCmd(env))
	return c
}

// addArtifactFlags declares the dbt artifact flags check and changeset share.
func addArtifactFlags(f *pflag.FlagSet, o *policyCheckOptions) {
	f.StringVar(&o.manifest, "manifest", "", "head manifest.json")
	f.StringVar(&o.catalog, "catalog", "", "head catalog.json")
	f.StringVar(&o.baseManifest, "base-manifest", "", "base manifest.json")
	f.StringVar(&o.baseCatalog, "base-catalog", "", "base catalog.json")
	f.StringVar(&o.precision, "precision", precisionColumn, "column (column lineage where the SQL can be read) or model (level 1)")
	f.StringArrayVar(&o.governance, "governance", nil, "a governance tree whose rules join each model's meta (repeatable)")
}

func newPolicyCheckCmd(env *cli.Env) *cobra.Command {
	o := &policyCheckOptions{}
	c := &cobra.Command{
		Use:   "check [flags]",
		Short: "Evaluate a policy on a pull request's changeset",
		Long: `Evaluate the policy on a pull request's changeset and print the report.
From dbt artifacts the changeset is built with column lineage (precision
column) whenever the compiled SQL can be read; --precision model forces the
model-level changeset. Without --policy, ./governanced.policy.yml, then
./dbt-col-lineage.policy.yml is used; with neither the policy gate is inert.

Exit status: 1 when the --fail-on gate trips (for policy: only a block),
2 for an invalid policy, changeset or artifact, 0 otherwise.`,
		Example: `  governanced policy check --policy governanced.policy.yml \
    --base-manifest base/manifest.json --base-catalog base/catalog.json \
    --manifest target/manifest.json --catalog target/catalog.json --fail-on policy
  governanced policy check --changeset changeset.json --format markdown`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(true); err != nil {
				return err
			}
			o.workDir = env.Dir
			if o.workDir == "" {
				wd, err := os.Getwd()
				if err != nil {
					return &cli.ExitError{Code: 2, Err: fmt.Errorf("policy check: %w", err)}
				}
				o.workDir = wd
			}
			return runPolicyCheck(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&o.policyFile, "policy", "", "the policy file (default ./governanced.policy.yml, then ./dbt-col-lineage.policy.yml)")
	f.StringVar(&o.changeset, "changeset", "", "a changeset JSON, as `policy changeset` prints it, instead of the dbt artifacts")
	addArtifactFlags(f, o)
	f.StringVar(&o.failOn, "fail-on", "none", "the gate that sets the exit status: "+strings.Join(failOnGates, ", "))
	f.StringVar(&o.format, "format", "json", "the report on standard output: json or markdown")
	f.StringArrayVar(&o.outputs, "output", nil, "also write the report as FORMAT=FILE (repeatable), e.g. markdown=summary.md")
	return c
}

// check refuses a command line that cannot describe a run (policy-gate.md
// §7); forCheck adds the options only check has.
func (o *policyCheckOptions) check(forCheck bool) error {
	usage := cli.Usagef
	switch {
	case o.changeset != "" && (o.manifest != "" || o.baseManifest != "" || o.catalog != "" || o.baseCatalog != ""):
		return usage("--changeset and the dbt artifact flags are alternatives; give one or the other")
	case o.changeset == "" && (o.manifest == "" || o.baseManifest == ""):
		if forCheck {
			return usage("give --changeset FILE, or --manifest and --base-manifest (catalogs optional)")
		}
		return usage("give --manifest and --base-manifest (catalogs optional)")
	case o.precision != precisionColumn && o.precision != precisionModel:
		return usage("--precision %q is not column or model", o.precision)
	case !forCheck:
		return nil
	case !slices.Contains(failOnGates, o.failOn):
		return usage("--fail-on %q is not one of %s", o.failOn, strings.Join(failOnGates, ", "))
	case o.format != "json" && o.format != "markdown":
		return usage("--format %q is not json or markdown", o.format)
	}
	for _, v := range o.outputs {
		format, file, ok := strings.Cut(v, "=")
		if !ok || file == "" || (format != "json" && format != "markdown") {
			return usage("--output %q: write it as FORMAT=FILE with FORMAT json or markdown", v)
		}
	}
	return nil
}

// policyReport is what `policy check` prints as JSON: the legacy verdict and
// impact summary always, the policy verdict only when a policy resolved (no
// key at all otherwise, spec §7.1), and the CI outputs of spec §7.3.
type policyReport struct {
	Verdict           string              `json:"verdict"`
	Summary           policy.Impact       `json:"summary"`
	PolicyDecision    string              `json:"policy_decision"`
	BuildSetSize      int                 `json:"build_set_size"`
	TestSetSize       int                 `json:"test_set_size"`
	PolicyVerdict     *policy.Verdict     `json:"policy_verdict,omitempty"`
	PolicyDiagnostics *policy.Diagnostics `json:"policy_diagnostics,omitempty"`
}

// runPolicyCheck is `governanced policy check` with the working directory
// (where default policy files are looked up) passed in.
func runPolicyCheck(ctx context.Context, o *policyCheckOptions, stdout, stderr io.Writer) error {
	workDir := o.workDir
	failed := func(err error) error { return &cli.ExitError{Code: 2, Err: err} }

	// The policy first: a broken policy fails the run whatever else is wrong.
	var pol *policy.Policy
	src, name, err := resolvePolicy(o.policyFile, workDir, stderr)
	if err != nil {
		return failed(err)
	}
	if src != nil {
		if pol, err = policy.Load(src, name); err != nil {
			return failed(err)
		}
		for _, w := range pol.Warnings {
			fmt.Fprintln(stderr, "governanced: warning:", w)
		}
	}

	cs, err := openChangeset(ctx, o, stderr)
	if err != nil {
		return failed(err)
	}

	impact := policy.Summarize(cs)
	report := policyReport{Verdict: impact.LegacyVerdict(), Summary: impact}
	var result *policy.Result
	if pol != nil {
		if result, err = policy.Evaluate(ctx, pol, cs); err != nil {
			return failed(err)
		}
		report.PolicyVerdict = result.Verdict
		report.PolicyDiagnostics = result.Diagnostics
		report.PolicyDecision = result.Verdict.Decision
		report.BuildSetSize = len(result.Verdict.BuildSet)
		report.TestSetSize = len(result.Verdict.TestSet)
	} else if o.failOn == "policy" {
		fmt.Fprintln(stderr, "governanced: warning:", noPolicyGateWarning)
	}

	for _, v := range o.outputs {
		format, file, _ := strings.Cut(v, "=")
		var buf bytes.Buffer
		if err := writePolicyReport(&buf, format, report, result); err != nil {
			return err
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(workDir, file)
		}
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			return &cli.ExitError{Code: 2, Err: fmt.Errorf("--output: %w", err)}
		}
	}
	if err := writePolicyReport(stdout, o.format, report, result); err != nil {
		return err
	}

	switch o.failOn {
	case "policy":
		if result != nil && result.Verdict.Decision == policy.DecisionBlock {
			return &cli.ExitError{Code: 1}
		}
	case "none":
	default:
		if impact.GateTripped(o.failOn) {
			return &cli.ExitError{Code: 1}
		}
	}
	return nil
}

// resolvePolicy is spec §2.1: the explicit path (which must exist), else the
// first default file in the working directory; nil bytes when none resolves.
func resolvePolicy(explicit, workDir string, stderr io.Writer) ([]byte, string, error) {
	if explicit != "" {
		data, err := readRegularFile(explicit)
		if err != nil {
			return nil, "", &policy.Error{Code: policy.CodePolicyNotFound, File: explicit, Msg: err.Error()}
		}
		return data, explicit, nil
	}
	var found []string
	for _, name := range defaultPolicyFiles {
		if info, err := os.Stat(filepath.Join(workDir, name)); err == nil && info.Mode().IsRegular() {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil, "", nil
	}
	if len(found) > 1 {
		fmt.Fprintf(stderr, "governanced: using %s; %s is ignored\n", found[0], strings.Join(found[1:], ", "))
	}
	data, err := os.ReadFile(filepath.Join(workDir, found[0]))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", found[0], err)
	}
	return data, found[0], nil
}

func readRegularFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("the policy file does not exist")
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, errors.New("the policy path is not a regular file")
	}
	return os.ReadFile(path)
}

// openChangeset is loadChangeset with the governance of the --governance trees
// when there are any, its warnings written to stderr.
func openChangeset(ctx context.Context, o *policyCheckOptions, stderr io.Writer) (*policy.Changeset, error) {
	var lookup treeGovernance
	if len(o.governance) > 0 {
		var err error
		if lookup, err = governanceFromTrees(ctx, o.governance); err != nil {
			return nil, err
		}
	}
	cs, warnings, err := loadChangeset(ctx, o, lookup)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "governanced: warning:", w)
	}
	return cs, nil
}

// loadChangeset reads --changeset, or builds the changeset from the dbt
// artifacts.
func loadChangeset(ctx context.Context, o *policyCheckOptions, lookup treeGovernance) (*policy.Changeset, []string, error) {
	if o.changeset != "" {
		data, err := os.ReadFile(o.changeset)
		if err != nil {
			return nil, nil, err
		}
		cs, err := policy.ReadChangeset(data, o.changeset)
		if err != nil {
			return nil, nil, err
		}
		if lookup != nil {
			cs.AttachGovernance(lookup)
		}
		return cs, nil, nil
	}
	var in dbt.Inputs
	if lookup != nil {
		in.Governance, in.Rules = lookup, lookup
	}
	var err error
	if in.Head, err = readManifest(o.manifest); err != nil {
		return nil, nil, err
	}
	if in.Base, err = readManifest(o.baseManifest); err != nil {
		return nil, nil, err
	}
	if in.HeadCatalog, err = readCatalog(o.catalog); err != nil {
		return nil, nil, err
	}
	if in.BaseCatalog, err = readCatalog(o.baseCatalog); err != nil {
		return nil, nil, err
	}
	return buildChangeset(ctx, in, o.precision)
}

func readManifest(path string) (*dbt.Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return dbt.ReadManifest(data, path)
}

func readCatalog(path string) (*dbt.Catalog, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return dbt.ReadCatalog(data, path)
}

func writePolicyReport(w io.Writer, format string, report policyReport, result *policy.Result) error {
	if format == "markdown" {
		count := func(n int, noun string) string {
			if n == 1 {
				return fmt.Sprintf("%d %s", n, noun)
			}
			return fmt.Sprintf("%d %ss", n, noun)
		}
		s := report.Summary
		fmt.Fprintf(w, "### Impact: %s, reaching %s and %s (verdict: %s)\n",
			count(s.Changes, "change"), count(s.AffectedModels, "model"), count(s.AffectedExposures, "exposure"), report.Verdict)
		if result != nil {
			fmt.Fprintln(w)
			_, err := io.WriteString(w, result.Markdown())
			return err
		}
		return nil
	}
	return reportformat.JSON(w, report)
}

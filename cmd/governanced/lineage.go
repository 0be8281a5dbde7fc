package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/dbt"
	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/spf13/cobra"
)

// lineageOptions are the flags of `governanced lineage`.
type lineageOptions struct {
	manifest, catalog string
	model, column     string
	upstream          bool
	format            string
}

func newLineageCmd() *cobra.Command {
	o := &lineageOptions{}
	var downstream bool
	c := &cobra.Command{
		Use:   "lineage --manifest FILE --model NAME [flags]",
		Short: "What changing a column reaches, or what it is made of",
		Long: `Answers "what happens if I change this column?" from the project's compiled
SQL: every model and column the column reaches (--downstream, the default),
each with its mechanism (direct_passthrough, renamed_passthrough,
derived_recompute, rowset_filter), and the exposures behind them; or, with
--upstream, the columns it is made of. Without --column, every column of the
model is answered. NAME is a model's name (customers, customers.v2) or its
unique_id. The catalog lets SELECT * be expanded; without it names are
trusted as written. lineage audit checks the governance columns carry
along their lineage against what their datasets declare.`,
		Example: `  governanced lineage --manifest target/manifest.json --catalog target/catalog.json \
    --model stg_customers --column email
  governanced lineage --manifest target/manifest.json --model customers --upstream --format mermaid`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case o.manifest == "":
				return cli.Usagef("--manifest is required")
			case o.model == "":
				return cli.Usagef("--model is required")
			case o.upstream && downstream:
				return cli.Usagef("--upstream and --downstream are alternatives")
			case o.format != "text" && o.format != "json" && o.format != "mermaid" && o.format != "dot":
				return cli.Usagef("--format %q is not text, json, mermaid or dot", o.format)
			}
			return runLineage(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.SortFlags = false
	f.StringVar(&o.manifest, "manifest", "", "the project's manifest.json")
	f.StringVar(&o.catalog, "catalog", "", "the project's catalog.json (expands SELECT *)")
	f.StringVar(&o.model, "model", "", "a model's name or unique_id")
	f.StringVar(&o.column, "column", "", "a column name (default: every column)")
	f.BoolVar(&downstream, "downstream", false, "what the column reaches (the default)")
	f.BoolVar(&o.upstream, "upstream", false, "what the column is made of")
	f.StringVar(&o.format, "format", "text", "text, json, mermaid or dot")
	c.AddCommand(newLineageAuditCmd())
	return c
}

// projectGraph reads a project's manifest and catalog ("" for none) and
// analyses every model, printing the warnings on stderr.
func projectGraph(ctx context.Context, manifest, catalog string, stderr io.Writer) (*dbt.Graph, error) {
	m, err := readManifest(manifest)
	if err != nil {
		return nil, err
	}
	cat, err := readCatalog(catalog)
	if err != nil {
		return nil, err
	}
	g, err := dbt.NewGraph(ctx, m, cat, 0)
	if err != nil {
		return nil, err
	}
	for _, w := range append(append([]string{}, m.Warnings...), g.Warnings...) {
		fmt.Fprintln(stderr, "governanced: warning:", w)
	}
	return g, nil
}

func runLineage(ctx context.Context, o *lineageOptions, stdout, stderr io.Writer) error {
	failed := func(err error) error { return &cli.ExitError{Code: 2, Err: err} }
	g, err := projectGraph(ctx, o.manifest, o.catalog, stderr)
	if err != nil {
		return failed(err)
	}
	uid, err := g.Node(o.model)
	if err != nil {
		return failed(err)
	}
	columns := []string{strings.ToLower(o.column)}
	if o.column == "" {
		columns = g.Columns(uid)
		if len(columns) == 0 {
			return failed(fmt.Errorf("%s: no columns known (no catalog entry and no analysable SQL)", o.model))
		}
	}
	var impacts []*dbt.Impact
	for _, c := range columns {
		var imp *dbt.Impact
		if o.upstream {
			imp, err = g.Upstream(uid, c)
		} else {
			imp, err = g.Downstream(uid, c)
		}
		if err != nil {
			return failed(err)
		}
		impacts = append(impacts, imp)
	}
	switch o.format {
	case "json":
		if o.column != "" {
			return reportformat.JSON(stdout, impacts[0])
		}
		return reportformat.JSON(stdout, impacts)
	case "mermaid":
		return writeMermaid(stdout, impacts)
	case "dot":
		return writeDot(stdout, impacts)
	}
	return writeLineageText(stdout, impacts)
}

func writeLineageText(w io.Writer, impacts []*dbt.Impact) error {
	for i, imp := range impacts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s.%s (%s)\n", imp.Model, imp.Column, imp.Direction)
		if imp.Direction == "upstream" {
			if len(imp.Edges) == 0 {
				fmt.Fprintln(w, "  no upstream columns (a constant, or a source)")
			}
			for _, e := range imp.Edges {
				fmt.Fprintf(w, "  %s.%s <- %s.%s  %s\n", e.ToModel, e.ToColumn, e.FromModel, e.FromColumn, e.Mechanism)
			}
		} else {
			r := imp.Reach
			if len(r.Models) == 0 && len(r.Exposures) == 0 {
				fmt.Fprintln(w, "  reaches nothing downstream")
			}
			for _, m := range r.Models {
				mechs := "unknown (not analysable)"
				if len(m.Mechanisms) > 0 {
					mechs = strings.Join(m.Mechanisms, ", ")
				}
				fmt.Fprintf(w, "  model %s: %s\n", m.Name, mechs)
				for _, c := range r.Columns {
					if c.Model == m.Name && c.Mechanism != nil {
						fmt.Fprintf(w, "    %s.%s  %s\n", c.Model, c.Column, *c.Mechanism)
					}
				}
			}
			if len(r.Exposures) > 0 {
				names := make([]string, len(r.Exposures))
				for i, e := range r.Exposures {
					names[i] = e.Name
				}
				fmt.Fprintf(w, "  exposures: %s\n", strings.Join(names, ", "))
			}
		}
		for _, n := range imp.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	return nil
}

// graphNodes collects the nodes and edges of several answers, deduplicated,
// with stable ids.
func graphNodes(impacts []*dbt.Impact) (ids map[string]string, order []string, edges []dbt.ImpactEdge) {
	ids = map[string]string{}
	add := func(model, column string) string {
		label := model
		if column != "" {
			label += "." + column
		}
		if _, ok := ids[label]; !ok {
			ids[label] = fmt.Sprintf("n%d", len(ids))
			order = append(order, label)
		}
		return ids[label]
	}
	seen := map[dbt.ImpactEdge]bool{}
	for _, imp := range impacts {
		add(imp.Model, imp.Column)
		for _, e := range imp.Edges {
			if seen[e] {
				continue
			}
			seen[e] = true
			add(e.FromModel, e.FromColumn)
			add(e.ToModel, e.ToColumn)
			edges = append(edges, e)
		}
	}
	return ids, order, edges
}

func edgeLabel(e dbt.ImpactEdge) (from, to string) {
	from = e.FromModel
	if e.FromColumn != "" {
		from += "." + e.FromColumn
	}
	to = e.ToModel
	if e.ToColumn != "" {
		to += "." + e.ToColumn
	}
	return from, to
}

func writeMermaid(w io.Writer, impacts []*dbt.Impact) error {
	ids, order, edges := graphNodes(impacts)
	fmt.Fprintln(w, "flowchart LR")
	for _, label := range order {
		fmt.Fprintf(w, "  %s[\"%s\"]\n", ids[label], strings.ReplaceAll(label, `"`, "#quot;"))
	}
	for _, e := range edges {
		from, to := edgeLabel(e)
		fmt.Fprintf(w, "  %s -->|%s| %s\n", ids[from], e.Mechanism, ids[to])
	}
	return nil
}

func writeDot(w io.Writer, impacts []*dbt.Impact) error {
	ids, order, edges := graphNodes(impacts)
	fmt.Fprintln(w, "digraph lineage {")
	fmt.Fprintln(w, "  rankdir=LR;")
	for _, label := range order {
		fmt.Fprintf(w, "  %s [label=%q];\n", ids[label], label)
	}
	for _, e := range edges {
		from, to := edgeLabel(e)
		fmt.Fprintf(w, "  %s -> %s [label=%q];\n", ids[from], ids[to], e.Mechanism)
	}
	fmt.Fprintln(w, "}")
	return nil
}

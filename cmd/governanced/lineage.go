package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/celine-eu/governanced/internal/dbt"
)

const lineageUsage = `usage: governanced lineage --manifest FILE [--catalog FILE] --model NAME [--column NAME]
         [--downstream | --upstream] [--format text|json|mermaid|dot]

Answers "what happens if I change this column?" from the project's compiled
SQL: every model and column the column reaches (--downstream, the default),
each with its mechanism (direct_passthrough, renamed_passthrough,
derived_recompute, rowset_filter), and the exposures behind them; or, with
--upstream, the columns it is made of. Without --column, every column of the
model is answered. NAME is a model's name (customers, customers.v2) or its
unique_id. The catalog lets SELECT * be expanded; without it names are
trusted as written.
`

// lineageOptions are the flags of `governanced lineage`.
type lineageOptions struct {
	manifest, catalog string
	model, column     string
	upstream          bool
	format            string
}

func parseLineage(args []string) (*lineageOptions, error) {
	o := &lineageOptions{}
	var downstream bool
	fset := flag.NewFlagSet("lineage", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	fset.StringVar(&o.manifest, "manifest", "", "manifest.json")
	fset.StringVar(&o.catalog, "catalog", "", "catalog.json")
	fset.StringVar(&o.model, "model", "", "model name or unique_id")
	fset.StringVar(&o.column, "column", "", "column name (default: every column)")
	fset.BoolVar(&o.upstream, "upstream", false, "what the column is made of")
	fset.BoolVar(&downstream, "downstream", false, "what the column reaches (default)")
	fset.StringVar(&o.format, "format", "text", "text, json, mermaid or dot")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{msg: fmt.Sprintf("lineage: %v\n%s", err, lineageUsage)}
	}
	usage := func(format string, a ...any) error {
		return &usageError{msg: "lineage: " + fmt.Sprintf(format, a...) + "\n" + lineageUsage}
	}
	switch {
	case fset.NArg() > 0:
		return nil, usage("unexpected argument %q", fset.Arg(0))
	case o.manifest == "":
		return nil, usage("--manifest is required")
	case o.model == "":
		return nil, usage("--model is required")
	case o.upstream && downstream:
		return nil, usage("--upstream and --downstream are alternatives")
	case o.format != "text" && o.format != "json" && o.format != "mermaid" && o.format != "dot":
		return nil, usage("--format %q is not text, json, mermaid or dot", o.format)
	}
	return o, nil
}

// runLineageCommand is `governanced lineage` from its arguments.
func runLineageCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseLineage(args)
	if errors.Is(err, flag.ErrHelp) {
		_, err = io.WriteString(stdout, lineageUsage)
		return err
	}
	if err != nil {
		return err
	}
	return runLineage(ctx, o, stdout, stderr)
}

func runLineage(_ context.Context, o *lineageOptions, stdout, stderr io.Writer) error {
	failed := func(err error) error { return &exitError{code: 2, err: err} }
	m, err := readManifest(o.manifest)
	if err != nil {
		return failed(err)
	}
	cat, err := readCatalog(o.catalog)
	if err != nil {
		return failed(err)
	}
	g := dbt.NewGraph(m, cat, 0)
	for _, w := range append(append([]string{}, m.Warnings...), g.Warnings...) {
		fmt.Fprintln(stderr, "governanced: warning:", w)
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
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if o.column != "" {
			return enc.Encode(impacts[0])
		}
		return enc.Encode(impacts)
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

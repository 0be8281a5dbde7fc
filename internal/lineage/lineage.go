package lineage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// Mechanism is how a source column's value reaches an output column.
type Mechanism uint8

// The mechanisms of policy-gate.md §3.5 that lineage produces;
// rowset_filter is not a value mechanism and is computed by callers from
// Result.FilterColumns.
const (
	Direct  Mechanism = iota + 1 // same value, same name
	Renamed                      // same value, another name
	Derived                      // computed: casts, functions, CASE, arithmetic, aggregates, windows, constants
)

func (m Mechanism) String() string {
	switch m {
	case Direct:
		return "direct_passthrough"
	case Renamed:
		return "renamed_passthrough"
	case Derived:
		return "derived_recompute"
	}
	return "unknown"
}

// Relation is a relation as the statement names it, lowercased: up to
// database.schema.name. The zero Relation stands for "no relation": the
// output of a table function whose arguments read no column.
type Relation struct {
	Database, Schema, Name string
}

func (r Relation) String() string {
	var parts []string
	for _, p := range []string{r.Database, r.Schema, r.Name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

// IsZero reports whether r names no relation.
func (r Relation) IsZero() bool { return r == Relation{} }

func relationLess(a, b Relation) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if a.Schema != b.Schema {
		return a.Schema < b.Schema
	}
	return a.Database < b.Database
}

// Source is a column of a base relation.
type Source struct {
	Relation Relation
	Column   string
}

func (s Source) String() string {
	if s.Relation.IsZero() {
		return s.Column
	}
	return s.Relation.String() + "." + s.Column
}

func sourceLess(a, b Source) bool {
	if a.Relation != b.Relation {
		return relationLess(a.Relation, b.Relation)
	}
	return a.Column < b.Column
}

// Entry is one way an output column gets its value: one per branch of a
// UNION, one otherwise. A pass-through entry has exactly one source; a
// derived one has any number (none for a constant or count(*)).
type Entry struct {
	Mechanism Mechanism
	Sources   []Source
}

// Column is one output column.
type Column struct {
	Name    string
	Entries []Entry
	// Expr is the defining expression as the printer normalises it
	// (informational: references keep their qualifiers as written).
	Expr string
	// Signature identifies the derivation as written, through every CTE and
	// subquery it reads: equal signatures mean the column is computed by
	// the same text (modulo layout, case and cast syntax). Opaque.
	Signature string
	// Canonical is the value with every reference replaced by what produces
	// it down to base columns (relation.column), simplified; "" when the
	// derivation cannot be resolved with certainty.
	Canonical string
	// Certain is false when some reference could not be checked against
	// the catalog (a `*` over a relation it does not list, a name found in
	// no relation) or the value involves a subquery.
	Certain bool

	canon sqlparse.Expr // the canonical value as a tree; nil when unknown
}

// SourceMechanism is a source with the mechanism by which it reaches a
// column.
type SourceMechanism struct {
	Source
	Mechanism Mechanism
}

// Sources lists the column's distinct sources, sorted, each with the
// mechanism a change of it propagates by: among the entries holding the
// source, ordered by (mechanism name, first source), the last one's.
func (c *Column) Sources() []SourceMechanism {
	best := map[Source]ranked{}
	for _, e := range c.Entries {
		var first Source
		if len(e.Sources) > 0 {
			first = e.Sources[0]
		}
		for _, s := range e.Sources {
			r, ok := best[s]
			cand := ranked{e.Mechanism, first}
			if !ok || cand.after(r) {
				best[s] = cand
			}
		}
	}
	out := make([]SourceMechanism, 0, len(best))
	for s, r := range best {
		out = append(out, SourceMechanism{Source: s, Mechanism: r.mech})
	}
	sort.Slice(out, func(i, j int) bool { return sourceLess(out[i].Source, out[j].Source) })
	return out
}

// ranked orders a column's entries by (mechanism name, first source).
type ranked struct {
	mech  Mechanism
	first Source
}

func (r ranked) after(o ranked) bool {
	if r.mech != o.mech {
		return r.mech.String() > o.mech.String()
	}
	return sourceLess(o.first, r.first)
}

// Transformation is the one mechanism all the column's entries share; ok is
// false when it has none or they differ (UNION branches).
func (c *Column) Transformation() (m Mechanism, ok bool) {
	for i, e := range c.Entries {
		if i == 0 {
			m = e.Mechanism
		} else if e.Mechanism != m {
			return 0, false
		}
	}
	return m, len(c.Entries) > 0
}

// Result is the lineage of one statement.
type Result struct {
	// Columns are the output columns in order. Names are lowercased; a
	// later column with the name of an earlier one is kept but Column()
	// finds the first.
	Columns []*Column
	// Complete is false when a `*` could not be expanded (the catalog does
	// not list a relation it reads), so more columns may exist.
	Complete bool
	// PredicateColumns are every base column that decides which rows the
	// output has, sorted.
	PredicateColumns []Source
	// FilterColumns are the predicate columns that are the source of no
	// output column: the model uses them only to choose rows.
	FilterColumns []Source
	// RowRelations are the base relations whose rows feed the output rows
	// (FROM and JOIN items reached from the final SELECT, and the
	// relations of subqueries in its predicates), sorted.
	RowRelations []Relation
	// Relations are every base relation the statement reads, sorted.
	Relations []Relation
	// RowSignature is a canonical signature of the row set: what is read
	// and how it is joined, filtered, grouped, deduplicated, limited and
	// combined, with references resolved to base columns. Equal
	// signatures mean the same rows. Opaque.
	RowSignature string
	// RowCertain is false when the row signature rests on a reference that
	// could not be checked against the catalog.
	RowCertain bool
	// Work is what resolving the statement cost.
	Work Work

	byName map[string]*Column
}

// Column returns the first output column with this (lowercased) name.
func (r *Result) Column(name string) *Column {
	if r.byName == nil {
		r.byName = make(map[string]*Column, len(r.Columns))
		for _, c := range r.Columns {
			if _, dup := r.byName[c.Name]; !dup {
				r.byName[c.Name] = c
			}
		}
	}
	return r.byName[name]
}

// Catalog lists a relation's columns (lowercased, in order); ok is false
// when the relation is unknown, and then a `*` over it cannot be expanded.
type Catalog func(r Relation) (columns []string, ok bool)

// Options configure Analyze.
type Options struct {
	Dialect sqlparse.Dialect
	Catalog Catalog // nil: no relation is known
	Budget  Budget  // zero fields: DefaultBudget's
}

// ParseError is a statement that could not be parsed; lineage never
// guesses its columns.
type ParseError struct{ Err error }

func (e *ParseError) Error() string { return "SQL does not parse: " + e.Err.Error() }
func (e *ParseError) Unwrap() error { return e.Err }

// IsParseError reports whether err is a *ParseError.
func IsParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}

// Analyze parses sql and computes its lineage: a *ParseError when it does
// not parse, a *BudgetError when its lineage costs more than opts.Budget,
// the context's error when ctx ends first.
func Analyze(ctx context.Context, sql string, opts Options) (*Result, error) {
	q, err := sqlparse.Parse(sql, opts.Dialect)
	if err != nil {
		return nil, &ParseError{Err: err}
	}
	return AnalyzeQuery(ctx, q, opts)
}

// AnalyzeQuery computes the lineage of a parsed statement, so that a caller
// analysing one statement against two catalogs parses it once; opts.Dialect
// should be the one it was parsed in, which names the columns of a PIVOT or
// UNPIVOT. It does not modify q. Its errors are Analyze's, but for
// the *ParseError.
func AnalyzeQuery(ctx context.Context, q *sqlparse.Query, opts Options) (res *Result, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := newAnalyzer(opts.Catalog, opts.Dialect, newMeter(ctx, opts.Budget))
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stop)
			if !ok {
				panic(r)
			}
			res, err = nil, s.err
		}
	}()
	top := a.query(q, nil, nil, nil)
	res = a.result(top)
	res.Work = a.m.work
	return res, nil
}

// String is a short human-readable rendering, for tests and debugging.
func (r *Result) String() string {
	var b strings.Builder
	for _, c := range r.Columns {
		fmt.Fprintf(&b, "%s:", c.Name)
		for _, e := range c.Entries {
			fmt.Fprintf(&b, " %s(", e.Mechanism)
			for i, s := range e.Sources {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(s.String())
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "filter: %v\n", r.FilterColumns)
	return b.String()
}

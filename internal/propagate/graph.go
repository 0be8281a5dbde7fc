package propagate

import "github.com/celine-eu/governanced/internal/lineage"

// Graph is a project's column lineage as propagation reads it: its
// relations, and for each model whose lineage is known, the inputs of each
// of its columns.
type Graph struct {
	Relations []*Relation
}

// Kind says what is known of a relation's columns.
type Kind uint8

const (
	// Origin is a relation lineage starts at (a source, a seed): its
	// columns carry its declared governance and nothing else.
	Origin Kind = iota
	// Derived is a model whose lineage is known: Columns and RowInputs.
	Derived
	// Opaque is a model whose lineage is not known (Reason says why): its
	// columns carry its declared governance, and whatever reads them has
	// an incomplete inference.
	Opaque
)

// Relation is a relation of the project.
type Relation struct {
	// Name is how reports name it (customers.v3, source:crm.customers).
	Name string
	// Key is the dataset id its governance is looked up by
	// (database.schema.alias); "" when it has none.
	Key string
	// File is the file that defines it, for reports ("" when unknown).
	File   string
	Kind   Kind
	Reason string // why an Opaque relation's lineage is not known
	// Columns are a Derived relation's output columns, in output order.
	Columns []*Column
	// RowInputs are the columns that decide which rows a Derived relation
	// has: its predicate columns.
	RowInputs []Ref
}

// Column is an output column and the columns its value is computed from.
type Column struct {
	Name   string
	Inputs []Input
}

// Ref is a column of a relation of the graph.
type Ref struct {
	Relation int // an index into Graph.Relations
	Column   string
}

// Input is a column a value is computed from, and how.
type Input struct {
	Ref
	Mechanism lineage.Mechanism
	// Through are the functions the input's value passes through into the
	// column (lineage.Column.Through), sorted; ThroughKnown is false when
	// they are not known, which counts as passing through none.
	Through      []string
	ThroughKnown bool
}

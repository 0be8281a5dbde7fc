package snapshot

import (
	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// checked is what one run of the tree check hands the snapshot: the units it
// materialised, the merged registry, and the report as the service publishes it.
type checked struct {
	apps         []*App           // one per materialised unit, in the report's unit order
	owners       *owners.Registry // nil when no owners file was named or it did not load
	placeholders map[string]string
	report       []byte // the report JSON, check.md §11.1
	full         *check.Report
	ok           bool // the report's ok: no error finding
	problems     []string
}

// unit is one served app: a base and at most one overlay, merged.
type unit struct {
	app                   string
	base, overlay         string // display paths; overlay "" without one
	baseFile, overlayFile string // where they were read from
	config                *governance.Config
	baseRoot, overlayRoot *yaml11.Node // the documents the check loaded
}

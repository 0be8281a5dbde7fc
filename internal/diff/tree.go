package diff

import (
	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

// Tree is one side of a diff: a governance tree checked as it would be
// served.
type Tree struct {
	// Revision names the tree's inputs (a snapshot revision); "" for none.
	Revision string
	// Root is how the tree was named (a directory); the report's file
	// paths are relative to it, and a presentation for people puts it in
	// front of them. "" when the paths need nothing in front.
	Root string
	// Apps are the units the check materialised: each base merged with
	// its overlay, owners resolved. App names are unique.
	Apps []App
	// Unserved are the units the check could not materialise (their
	// errors are in Report): their datasets cannot be compared.
	Unserved []Unserved
	// Report is the tree's check report; nil for none.
	Report *check.Report
}

// App is one materialised unit.
type App struct {
	Name        string
	File        string // the base's display path
	OverlayFile string // the overlay's display path; "" without one
	// Config is the base merged with its overlay, owners resolved. It is
	// only read: a served configuration may be shared with readers.
	Config *governance.Config
}

// Unserved is a unit the check did not materialise.
type Unserved struct {
	App  string
	File string // the base's display path
}

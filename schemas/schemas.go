package schemas

import (
	"embed"
	"fmt"
	"slices"
)

//go:embed *.schema.json
var files embed.FS

// The published schema names.
const (
	Governance        = "governance"         // a standalone governance.yaml (validation.md §4.1)
	GovernanceOverlay = "governance-overlay" // an overlay on its own: no root required (§4.4)
	Owners            = "owners"             // owners.yaml (§4.2)
	Facet             = "facet"              // the OpenLineage governance facet (facet.md §5)
)

// fileNames maps each published name to its embedded file.
var fileNames = map[string]string{
	Governance:        "governance.schema.json",
	GovernanceOverlay: "governance-overlay.schema.json",
	Owners:            "owners.schema.json",
	Facet:             "facet.schema.json",
}

// referenceNames are the file names the Python reference's load_schema accepts
// (validation.md §1); Get accepts them too.
var referenceNames = map[string]string{
	"governance.schema.json":             Governance,
	"owners.schema.json":                 Owners,
	"GovernanceDatasetFacet.schema.json": Facet,
}

// Names lists the published schema names in a stable order.
func Names() []string {
	return []string{Governance, GovernanceOverlay, Owners, Facet}
}

// Get returns a copy of the schema document called name: one of Names, or a file
// name the reference uses ("governance.schema.json",
// "GovernanceDatasetFacet.schema.json", …).
func Get(name string) ([]byte, error) {
	canon, err := Canonical(name)
	if err != nil {
		return nil, err
	}
	b, err := files.ReadFile(fileNames[canon])
	if err != nil { // cannot happen: every file is embedded and tested
		return nil, fmt.Errorf("schema %q: %w", name, err)
	}
	return slices.Clone(b), nil
}

// Canonical returns the published name for name (one of Names, or a reference
// file name), or an error naming the schemas that exist.
func Canonical(name string) (string, error) {
	if _, ok := fileNames[name]; ok {
		return name, nil
	}
	if canon, ok := referenceNames[name]; ok {
		return canon, nil
	}
	return "", fmt.Errorf("unknown schema %q (known: %v)", name, Names())
}

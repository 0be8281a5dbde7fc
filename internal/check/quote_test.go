package check

import (
	"context"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/memfs"
)

// TestMessagesQuoteValuesShort: a message quotes at most yaml11.MaxQuoted
// characters of a value from a file. A file read by mistake (a secret a
// symbolic link leads to, read as governance.yaml) is one scalar that the
// not-a-mapping message would otherwise quote whole.
func TestMessagesQuoteValuesShort(t *testing.T) {
	long := strings.Repeat("0123456789", 20)
	owners := "owners:\n  - id: rec\n    type: schema:NGO\n    name: REC\n"
	files := map[string]string{
		"apps/secret/governance.yaml":  long + "\n",
		"apps/list/governance.yaml":    "- " + long + "\n",
		"apps/keys/governance.yaml":    "defaults: {}\n" + long + "x: 1\nsources:\n  ds.k:\n    expose: true\n    row_filters: []\n    " + long + "y: 1\n",
		"apps/dup/governance.yaml":     "defaults: {}\nsources:\n  ds.d: {expose: true, row_filters: []}\n  ds.d: {expose: true, row_filters: []}\n" + long + ": 1\n" + long + ": 2\n",
		"apps/handler/governance.yaml": "defaults: {}\nsources:\n  ds.h:\n    expose: true\n    row_filters: [{handler: " + long + "}]\n",
		"apps/enum/governance.yaml":    "defaults: {access_level: " + long + "}\nsources: {}\n",
		"apps/owner/governance.yaml":   "defaults: {}\nsources:\n  ds.o:\n    expose: true\n    row_filters: []\n    ownership: [{name: " + long + ", type: DATA_OWNER}]\n    dataspace: {expose: true}\n",
		"owners.yaml":                  owners,
		"placeholders.yaml":            "x: [" + long + "]\n",
	}
	var fsys memfs.FS
	for name, data := range files {
		if err := fsys.Add(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	var findings []Finding
	for _, opts := range []Options{
		{Paths: []string{"apps/*"}, Owners: []string{"owners.yaml"}, Dataspace: true},
		{Paths: []string{"apps/enum"}, Owners: []string{"owners.yaml"}, PlaceholdersFile: str("placeholders.yaml")},
	} {
		opts.FS = &fsys
		rep, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		findings = append(findings, rep.Findings...)
	}
	quotedShort := map[string]bool{}
	for _, f := range findings {
		if strings.Contains(f.Message, long[:41]) {
			t.Errorf("%s %s quotes more than 40 characters of a value: %.200s", f.File, f.Code, f.Message)
		}
		if strings.Contains(f.Message, long[:40]) {
			quotedShort[f.Code] = true
		}
	}
	// Every kind of message the files provoke quotes the value's start.
	for _, code := range []string{CodeNotAMapping, CodeDuplicateKey, CodeUnknownKey, CodeSchemaViolation, CodeRowFilterUnknownHandler, CodeOwnerUnresolved, CodePlaceholdersInvalid} {
		if !quotedShort[code] {
			t.Errorf("no %s finding quotes the value: the test no longer reaches that message", code)
		}
	}
}

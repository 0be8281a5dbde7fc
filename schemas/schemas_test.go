package schemas_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/celine-eu/governanced/schemas"
)

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return m
}

func TestEverySchemaIsDraft07AndCompiles(t *testing.T) {
	for _, name := range schemas.Names() {
		t.Run(name, func(t *testing.T) {
			b, err := schemas.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			m := decode(t, b)
			if got := m["$schema"]; got != "http://json-schema.org/draft-07/schema#" {
				t.Errorf("$schema = %v, want draft-07", got)
			}
			if m["type"] != "object" {
				t.Errorf("root type = %v, want object", m["type"])
			}
			// Compiling validates the document against the draft-07 metaschema
			// and resolves every $ref.
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			url := "https://example.invalid/" + name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Fatalf("does not compile: %v", err)
			}
		})
	}
}

func TestOverlayIsGovernanceWithoutRootRequired(t *testing.T) {
	g, _ := schemas.Get(schemas.Governance)
	o, _ := schemas.Get(schemas.GovernanceOverlay)
	want := decode(t, g)
	if diff := cmp.Diff([]any{"defaults", "sources"}, want["required"]); diff != "" {
		t.Fatalf("governance root required (-want +got):\n%s", diff)
	}
	delete(want, "required")
	if diff := cmp.Diff(want, decode(t, o)); diff != "" {
		t.Errorf("overlay differs from governance minus required (-want +got):\n%s", diff)
	}
}

func TestTitles(t *testing.T) {
	tests := []struct{ name, title string }{
		{schemas.Governance, "CELINE Governance Configuration"},
		{schemas.GovernanceOverlay, "CELINE Governance Configuration"},
		{schemas.Owners, "CELINE Owner Registry"},
		{schemas.Facet, "GovernanceDatasetFacet"},
	}
	for _, tt := range tests {
		b, _ := schemas.Get(tt.name)
		if got := decode(t, b)["title"]; got != tt.title {
			t.Errorf("%s: title %v, want %q", tt.name, got, tt.title)
		}
	}
}

func TestOwnersSchemaDeclaresSeedKeys(t *testing.T) {
	b, _ := schemas.Get(schemas.Owners)
	m := decode(t, b)
	if m["additionalProperties"] != false {
		t.Error("owners root must set additionalProperties: false")
	}
	entry := m["$defs"].(map[string]any)["ownerEntry"].(map[string]any)
	if entry["additionalProperties"] != false {
		t.Error("ownerEntry must set additionalProperties: false")
	}
	props := entry["properties"].(map[string]any)
	for _, k := range []string{"id", "type", "name", "role", "did", "url", "organization", "organization_config",
		"aliases", "status", "verified_by", "evidence_ref", "collects_consent", "dataspace"} {
		if _, ok := props[k]; !ok {
			t.Errorf("ownerEntry does not declare %q", k)
		}
	}
	if len(props) != 14 {
		t.Errorf("ownerEntry declares %d properties, want 14", len(props))
	}
}

func TestGetNames(t *testing.T) {
	tests := []struct {
		name    string
		want    string // the canonical name whose bytes Get returns
		wantErr bool
	}{
		{name: "governance", want: "governance"},
		{name: "governance.schema.json", want: "governance"},
		{name: "owners.schema.json", want: "owners"},
		{name: "GovernanceDatasetFacet.schema.json", want: "facet"},
		{name: "facet", want: "facet"},
		{name: "nope", wantErr: true},
		{name: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := schemas.Get(tt.name)
		if (err != nil) != tt.wantErr {
			t.Errorf("Get(%q) error = %v, wantErr %v", tt.name, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		want, _ := schemas.Get(tt.want)
		if !bytes.Equal(got, want) {
			t.Errorf("Get(%q) is not the %q schema", tt.name, tt.want)
		}
	}
}

func TestGetReturnsACopy(t *testing.T) {
	a, _ := schemas.Get(schemas.Owners)
	a[0] = 'X'
	b, _ := schemas.Get(schemas.Owners)
	if b[0] == 'X' {
		t.Fatal("Get handed out the embedded bytes")
	}
}

func ExampleGet() {
	b, err := schemas.Get("owners")
	if err != nil {
		panic(err)
	}
	var doc struct {
		Title    string   `json:"title"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(b, &doc)
	fmt.Println(doc.Title, doc.Required)
	// Output: CELINE Owner Registry [owners]
}

func ExampleNames() {
	fmt.Println(schemas.Names())
	// Output: [governance governance-overlay owners facet]
}

package schema_test

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/schema"
	"github.com/celine-eu/governanced/internal/yaml11"
)

func ExampleViolations() {
	root, _ := yaml11.Parse([]byte(`defaults:
  access_level: public
  dcat:
    temporal: {start: 2024-01-01}
sources: {}
`))
	vs, _ := schema.Violations(schema.Document(root), "governance", "governance.yaml")
	for _, v := range vs {
		fmt.Printf("%d:%d %s\n", v.Pos.Line, v.Pos.Column, v)
	}
	// Output:
	// 2:17 defaults/access_level: 'public' is not one of ['open', 'internal', 'restricted', 'secret', None]
	// 4:5 defaults/dcat: {'temporal': {'start': datetime.date(2024, 1, 1)}} is not valid under any of the given schemas
}

func ExampleCheckDocument() {
	root, _ := yaml11.Parse([]byte("defaults: {acces_level: open}\nsources: {}\n"))
	unknown, err := schema.CheckDocument(root, "governance.yaml", false)
	fmt.Println(err)
	for _, k := range unknown {
		fmt.Println(schema.UnknownKeyWarning("governance.yaml", k))
	}
	_, err = schema.CheckDocument(root, "governance.yaml", true)
	fmt.Println(err)
	// Output:
	// <nil>
	// governance.yaml: unknown governance key defaults: acces_level — ignored
	// governance.yaml failed governance validation:
	//   - unknown key defaults: acces_level
}

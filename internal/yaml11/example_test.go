package yaml11_test

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/yaml11"
)

func ExampleParse() {
	doc, err := yaml11.Parse([]byte(`
base: &b {access_level: internal, expose: yes}
view:
  <<: *b
  expose: off
started: 2024-01-01
mode: 0755
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	view := doc.Get("view")
	fmt.Println(view.Get("access_level").Str, view.Get("expose").Bool)
	fmt.Println(doc.Get("started").Kind, doc.Get("mode").Int)
	body, _ := doc.MarshalJSON()
	fmt.Println(string(body))
	// Output:
	// internal false
	// timestamp 493
	// {"base":{"access_level":"internal","expose":true},"view":{"access_level":"internal","expose":false},"started":"2024-01-01","mode":493}
}

func ExamplePyRepr() {
	doc, _ := yaml11.Parse([]byte("[it's, 1.0e+20, null, 2024-01-01]"))
	fmt.Println(yaml11.PyRepr(doc))
	// Output: ["it's", 1e+20, None, datetime.date(2024, 1, 1)]
}

package conformance

import (
	"errors"
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/schema"
	"github.com/celine-eu/governanced/internal/yaml11"
)

func init() {
	operations["schema_errors"] = opSchemaErrors
	errorClassifiers = append(errorClassifiers, classifyValidate)
}

// classifyValidate names the errors of internal/validate: a failed validation
// (schema violations, or unknown keys under strict) is a validation_error.
func classifyValidate(err error) string {
	var ve *schema.Error
	if errors.As(err, &ve) {
		return "validation_error"
	}
	return ""
}

type schemaErrorsResult struct {
	Count     int           `json:"count"`
	Locations []string      `json:"locations"`
	Paths     []schema.Path `json:"paths"`
}

func opSchemaErrors(t *testing.T, c *Case) (any, error) {
	name := c.StringArg("document")
	b, ok, err := c.File(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("document %q is not among the inputs", name)
	}
	root, err := yaml11.Parse(b)
	if err != nil {
		return nil, err
	}
	vs, err := schema.Violations(schema.Document(root), c.StringArg("schema"), name)
	if err != nil {
		return nil, err
	}
	res := schemaErrorsResult{Count: len(vs), Locations: []string{}, Paths: []schema.Path{}}
	for _, v := range vs {
		res.Locations = append(res.Locations, v.Path.String())
		res.Paths = append(res.Paths, append(schema.Path{}, v.Path...))
	}
	return res, nil
}

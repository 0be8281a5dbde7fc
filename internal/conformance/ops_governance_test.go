package conformance

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/yaml11"
)

func init() {
	operations["resolve"] = opResolve
	operations["exposure"] = opExposure
	operations["facet"] = opFacet
	operations["merge_rules"] = opMergeRules
	operations["merge_configs"] = opMergeConfigs
	operations["parse_config"] = opParseConfig
	operations["unknown_keys"] = opUnknownKeys
	operations["normalize_access_level"] = opNormalize(governance.NormalizeAccessLevel)
	operations["normalize_classification"] = opNormalize(governance.NormalizeClassification)
	errorClassifiers = append(errorClassifiers, func(err error) string { return string(governance.ErrorClass(err)) })
}

// loadDocument parses a named input as a governance document; a name absent
// from inputs is a missing file.
func loadDocument(c *Case, arg string) (*governance.Config, error) {
	name := c.StringArg(arg)
	data, ok, err := c.File(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &governance.Error{Class: governance.ClassNotFound, File: name, Msg: "governance file not found"}
	}
	return governance.Parse(data, name)
}

func loadBlock(c *Case, arg string) (*governance.Rule, error) {
	name := c.StringArg(arg)
	data, ok, err := c.File(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &governance.Error{Class: governance.ClassNotFound, File: name, Msg: "file not found"}
	}
	n, err := yaml11.Parse(data)
	if err != nil {
		return nil, err
	}
	return governance.ParseRule(n, name)
}

// resolved loads the document (merging the overlay when given and present)
// and resolves the dataset.
func resolved(c *Case) (*governance.Rule, governance.Match, error) {
	cfg, err := loadDocument(c, "document")
	if err != nil {
		return nil, governance.Match{}, err
	}
	if c.HasArg("overlay") {
		name := c.StringArg("overlay")
		if _, present := c.Inputs[name]; present {
			ov, err := loadDocument(c, "overlay")
			if err != nil {
				return nil, governance.Match{}, err
			}
			cfg = governance.MergeConfigs(cfg, ov)
		}
	}
	rule, m := cfg.Resolve(c.StringArg("dataset"))
	return rule, m, nil
}

// ruleSource is either {document, dataset, overlay} or {block}.
func ruleSource(c *Case) (*governance.Rule, error) {
	if c.HasArg("block") {
		return loadBlock(c, "block")
	}
	r, _, err := resolved(c)
	return r, err
}

func opResolve(t *testing.T, c *Case) (any, error) {
	rule, m, err := resolved(c)
	if err != nil {
		return nil, err
	}
	return map[string]any{"rule": rule, "match": m}, nil
}

func opExposure(t *testing.T, c *Case) (any, error) {
	r, err := ruleSource(c)
	if err != nil {
		return nil, err
	}
	return map[string]bool{
		"expose":           governance.EffectiveExpose(r),
		"dataspace_expose": governance.DataspaceExpose(r),
		"conflict":         governance.ExposureConflict(r) != "",
	}, nil
}

func opFacet(t *testing.T, c *Case) (any, error) {
	r, err := ruleSource(c)
	if err != nil {
		return nil, err
	}
	include := true
	if c.HasArg("include_dataspace") {
		if err := c.Arg("include_dataspace", &include); err != nil {
			return nil, err
		}
	}
	return governance.BuildFacet(r, c.StringArg("producer"), include), nil
}

func opMergeRules(t *testing.T, c *Case) (any, error) {
	base, err := loadBlock(c, "base")
	if err != nil {
		return nil, err
	}
	over, err := loadBlock(c, "override")
	if err != nil {
		return nil, err
	}
	return governance.MergeRules(base, over), nil
}

func opMergeConfigs(t *testing.T, c *Case) (any, error) {
	base, err := loadDocument(c, "base")
	if err != nil {
		return nil, err
	}
	over, err := loadDocument(c, "override")
	if err != nil {
		return nil, err
	}
	return governance.MergeConfigs(base, over), nil
}

func opParseConfig(t *testing.T, c *Case) (any, error) {
	return loadDocument(c, "document")
}

func opUnknownKeys(t *testing.T, c *Case) (any, error) {
	data, ok, err := c.File(c.StringArg("document"))
	if err != nil || !ok {
		return nil, fmt.Errorf("document: %v", err)
	}
	n, err := yaml11.Parse(data)
	if err != nil {
		return nil, err
	}
	keys := []map[string]string{}
	for _, u := range governance.UnknownKeys(n) {
		keys = append(keys, map[string]string{"scope": u.Scope, "key": u.Key})
	}
	return map[string]any{"keys": keys}, nil
}

func opNormalize(f func(*string) (*string, error)) operation {
	return func(t *testing.T, c *Case) (any, error) {
		var raw json.RawMessage
		if err := c.Arg("value", &raw); err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		var in *string
		switch x := v.(type) {
		case nil:
		case string:
			in = &x
		default:
			return nil, &governance.Error{Class: governance.ClassMalformed, Msg: fmt.Sprintf("expected a string or null, got %s", raw)}
		}
		out, err := f(in)
		if err != nil {
			return nil, err
		}
		return map[string]*string{"value": out}, nil
	}
}

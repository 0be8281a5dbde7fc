package checktest

import (
	"bytes"
	"encoding/json"
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// SARIFLog is a SARIF 2.1.0 log as the tests read it: the members the
// check's, the diff's and the lineage audit's logs are held to, decoded by
// their names in the SARIF specification, independently of the types that
// write them (internal/sarif), so that a member written under the wrong
// name is missing here. Properties are left raw: each log says its own.
type SARIFLog struct {
	Runs []SARIFRun `json:"runs"`
}

// SARIFRun is one run of a SARIFLog.
type SARIFRun struct {
	Tool struct {
		Driver struct {
			Name  string `json:"name"`
			Rules []struct {
				ID                   string `json:"id"`
				DefaultConfiguration struct {
					Level string `json:"level"`
				} `json:"defaultConfiguration"`
			} `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	OriginalURIBaseIDs map[string]struct {
		URI         string `json:"uri"`
		Description struct {
			Text string `json:"text"`
		} `json:"description"`
	} `json:"originalUriBaseIds"`
	Results    []SARIFResult   `json:"results"`
	Properties json.RawMessage `json:"properties"`
}

// SARIFResult is one result of a SARIFRun.
type SARIFResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	Level     string `json:"level"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations  []SARIFLocation `json:"locations"`
	Properties json.RawMessage `json:"properties"`
}

// SARIFLocation is one location of a SARIFResult.
type SARIFLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// ReadSARIF validates body against schema (SARIFSchema) and returns it
// decoded, failing the test where it is not a SARIF 2.1.0 log.
func ReadSARIF(t testing.TB, schema *jsonschema.Schema, body []byte) SARIFLog {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not SARIF 2.1.0: %v\n%s", err, body)
	}
	var log SARIFLog
	if err := json.Unmarshal(body, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// SARIFProperties decodes a run's or a result's properties into a T.
func SARIFProperties[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("properties %s: %v", raw, err)
	}
	return v
}

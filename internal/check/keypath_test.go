package check

import (
	"encoding/json"
	"testing"
)

// TestKeyPath: a finding about a source key as a whole, whose path is made
// from its dataset when asked for, is the finding holding that path: the
// same path (escaped as RFC 6901 says), the same JSON, the same identity
// and place in the report's order.
func TestKeyPath(t *testing.T) {
	for _, key := range []string{"datasets.raw.meters", "a/b~c", "~/", ""} {
		k := key
		made := Finding{Severity: Warning, Code: CodeRowPolicyUndeclared, File: "g.yaml", Line: 3, Column: 3, path: keyPath, Dataset: &k, Message: "m"}
		held := made
		held.path = ptr("sources", key)
		if got, want := *made.Path(), pointer("sources", key); got != want {
			t.Errorf("%q: path %q, want %q", key, got, want)
		}
		mj, _ := json.Marshal(made)
		hj, _ := json.Marshal(held)
		if string(mj) != string(hj) {
			t.Errorf("%q: JSON %s, want %s", key, mj, hj)
		}
		if !sameFinding(made, held) || !sameFinding(held, made) || compareFindings(made, held) != 0 || compareFindings(held, made) != 0 {
			t.Errorf("%q: the made path and the held one are not the same finding", key)
		}
		other := "zzz"
		later := made
		later.Dataset = &other
		if c := compareFindings(made, later); sameFinding(made, later) || c == 0 || compareFindings(later, held) != -c {
			t.Errorf("%q: a finding about another key compares as this one", key)
		}
	}
}

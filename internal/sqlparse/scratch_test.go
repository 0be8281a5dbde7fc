package sqlparse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestScratchCases(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/lineage-cases/sql/*.json")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var c struct {
			ID      string  `json:"id"`
			SQL     string  `json:"sql"`
			Dialect *string `json:"dialect"`
		}
		json.Unmarshal(data, &c)
		d := Generic
		if c.Dialect != nil {
			d, _ = DialectFor(*c.Dialect)
		}
		q, err := Parse(c.SQL, d)
		if err != nil {
			t.Logf("%s: %v", c.ID, err)
			continue
		}
		s := FormatQuery(q)
		rd := d
		if d == BigQuery {
			rd = Generic
		}
		q2, err := Parse(s, rd)
		if err != nil {
			t.Errorf("%s: reparse: %v\n%s", c.ID, err, s)
			continue
		}
		if s2 := FormatQuery(q2); s2 != s {
			t.Errorf("%s: not stable\n%s\n%s", c.ID, s, s2)
		}
	}
}

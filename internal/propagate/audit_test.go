package propagate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check/checktest"
)

// martProject: staging over customers and orders, a mart over both (listed
// and offered), and a report reading the mart that no rule governs.
var martProject = project{origins: shop, models: [][2]string{
	{"stg_customers", "select id as customer_id, first_name, md5(email) as email_hash, country from customers"},
	{"stg_orders", "select id as order_id, customer_id, amount, status from orders"},
	{"mart", `with o as (select customer_id, sum(amount) as total from stg_orders group by customer_id)
select c.customer_id, c.first_name, c.email_hash, coalesce(o.total, 0) as lifetime_value, 'x' as label
from stg_customers c left join o on o.customer_id = c.customer_id where c.country <> 'XX'`},
	{"report", "select first_name, lifetime_value from mart"},
}}

var martRules = rules{
	"customers": rule("pii", "restricted", false, false),
	"orders":    rule("yellow", "internal", false, false),
	"mart":      rule("green", "open", true, true),
}

func audit(t *testing.T, p project, r Rules, opts AuditOptions) *Report {
	t.Helper()
	rep, err := Audit(infer(t, p, r), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// brief is a finding in one line: relation.column inferred/declared above exposed.
func brief(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Relation+"."+f.Column+" "+f.Inferred.String()+" over "+f.Declared.String()+
			" above="+strings.Join(f.Above, ",")+" exposed="+strings.Join(f.Exposed, ","))
	}
	return out
}

func TestAudit(t *testing.T) {
	tests := []struct {
		name       string
		rules      rules
		opts       AuditOptions
		want       []string
		ungoverned []string
	}{
		{"sensitive data in an exposed mart", martRules, AuditOptions{},
			[]string{
				"mart.customer_id pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.email_hash pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.first_name pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
			},
			[]string{"report: first_name", "stg_customers: customer_id, first_name, email_hash, country"}},
		{"lower thresholds also name the payments", martRules, AuditOptions{MinClassification: "yellow", MinAccessLevel: "Internal"},
			[]string{
				"mart.customer_id pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.email_hash pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.first_name pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.lifetime_value yellow/internal over green/open above=classification,access_level exposed=catalogue,dataspace",
			},
			[]string{"report: first_name, lifetime_value", "stg_customers: customer_id, first_name, email_hash, country", "stg_orders: order_id, customer_id, amount, status"}},
		{"the rows count when asked", martRules, AuditOptions{RowSet: true},
			[]string{
				"mart.customer_id pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.email_hash pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.first_name pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.label pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
				"mart.lifetime_value pii/restricted over green/open above=classification,access_level exposed=catalogue,dataspace",
			},
			[]string{"report: first_name, lifetime_value", "stg_customers: customer_id, first_name, email_hash, country"}},
		{"a mart declared for what it carries is no finding", rules{
			"customers": rule("pii", "restricted", false, false), "mart": rule("pii", "restricted", true, false)}, AuditOptions{},
			nil, []string{"report: first_name, lifetime_value", "stg_customers: customer_id, first_name, email_hash, country"}},
		{"a level the rule leaves unset counts as none", rules{
			"customers": rule("pii", "restricted", false, false), "mart": rule("", "restricted", false, false)}, AuditOptions{},
			[]string{
				"mart.customer_id pii/restricted over -/restricted above=classification exposed=",
				"mart.email_hash pii/restricted over -/restricted above=classification exposed=",
				"mart.first_name pii/restricted over -/restricted above=classification exposed=",
			},
			[]string{"report: first_name, lifetime_value", "stg_customers: customer_id, first_name, email_hash, country"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := audit(t, martProject, tc.rules, tc.opts)
			if diff := cmp.Diff(tc.want, brief(rep)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			var ungoverned []string
			for _, u := range rep.Ungoverned {
				ungoverned = append(ungoverned, u.Relation+": "+strings.Join(u.Columns, ", "))
			}
			if diff := cmp.Diff(tc.ungoverned, ungoverned); diff != "" {
				t.Errorf("ungoverned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuditThresholdError(t *testing.T) {
	_, err := Audit(infer(t, martProject, martRules), AuditOptions{MinClassification: "secret"})
	if err == nil || !strings.Contains(err.Error(), "'secret' is not a valid DataClassification") {
		t.Errorf("got %v", err)
	}
}

// TestAuditPath: a finding's path and functions, and the unanalysed
// governed relations.
func TestAuditPath(t *testing.T) {
	p := project{origins: shop, models: append(append([][2]string{}, martProject.models...), [2]string{"py", ""})}
	r := rules{"customers": rule("pii", "restricted", false, false), "mart": rule("green", "open", true, true), "py": rule("red", "", false, false)}
	rep := audit(t, p, r, AuditOptions{})
	var hashed *Finding
	for i := range rep.Findings {
		if rep.Findings[i].Column == "email_hash" {
			hashed = &rep.Findings[i]
		}
	}
	if hashed == nil {
		t.Fatal("no finding for mart.email_hash")
	}
	pii := Levels{"pii", "restricted"}
	want := []Hop{
		{Relation: "customers", Dataset: "customers", Column: "email", Declared: &pii},
		{Relation: "stg_customers", Dataset: "stg_customers", Column: "email_hash", Mechanism: "derived_recompute", Through: []string{"md5"}},
		{Relation: "mart", Dataset: "mart", Column: "email_hash", Mechanism: "direct_passthrough"},
	}
	if diff := cmp.Diff(want, hashed.Path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"md5"}, hashed.Through); diff != "" {
		t.Errorf("through (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Unanalysed{{Relation: "py", Dataset: "py", Reason: "no compiled SQL"}}, rep.Unanalysed); diff != "" {
		t.Errorf("unanalysed (-want +got):\n%s", diff)
	}
}

func TestWriteText(t *testing.T) {
	p := project{origins: shop, models: [][2]string{{"mart", "select first_name from customers"}}}
	rep := audit(t, p, rules{"customers": rule("pii", "restricted", false, false), "mart": rule("green", "open", false, true)}, AuditOptions{})
	var b bytes.Buffer
	if err := rep.Write(&b, "text"); err != nil {
		t.Fatal(err)
	}
	want := `mart.first_name: inferred-above-declared-exposed: pii/restricted above declared green/open [mart]; listed in the catalogue and offered into the dataspace
  customers.first_name  declared pii/restricted [customers]
  → mart.first_name  direct_passthrough
result: fail (findings=1, exposed=1, relations=1, columns=1, incomplete=0)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := audit(t, martProject, martRules, AuditOptions{}).Write(&b, "markdown"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### Lineage audit: 3 columns above declared governance, 3 in exposed datasets",
		"| `mart.first_name` | pii/restricted | green/open | catalogue, dataspace | `customers.first_name` |",
		"- `mart.email_hash`: customers.email → stg_customers.email_hash (derived_recompute) → mart.email_hash (direct_passthrough)",
		"- stg_customers (stg_customers) matches no governance rule and carries sensitive data in 4 columns",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := audit(t, martProject, nil, AuditOptions{}).Write(&b, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "### Lineage audit: PASS") {
		t.Errorf("got %s", b.String())
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := audit(t, martProject, martRules, AuditOptions{}).Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Thresholds map[string]any   `json:"thresholds"`
		Findings   []map[string]any `json:"findings"`
		Summary    Summary          `json:"summary"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"classification": "red", "access_level": "restricted"}, got.Thresholds); diff != "" {
		t.Errorf("thresholds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Summary{Relations: 1, Columns: 5, Findings: 3, Exposed: 3}, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if f := got.Findings[0]; f["dataset"] != "mart" || f["file"] != "models/mart.sql" || f["complete"] != true {
		t.Errorf("first finding: %v", f)
	}
}

// TestWriteSARIF validates the SARIF rendering against the SARIF 2.1.0
// schema (the tree check's), with a file name that needs escaping and a
// finding of each rule.
func TestWriteSARIF(t *testing.T) {
	schema := checktest.SARIFSchema(t)
	res := infer(t, martProject, rules{"customers": rule("pii", "restricted", false, false), "mart": rule("green", "open", true, false), "report": rule("green", "", false, false)})
	for i, r := range res.Graph.Relations {
		if r.Name == "mart" {
			res.Graph.Relations[i].File = "models/marts/a mart:[v2].sql"
		}
	}
	rep, err := Audit(res, AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Write(&b, "sarif"); err != nil {
		t.Fatal(err)
	}
	log := checktest.ReadSARIF(t, schema, b.Bytes())
	levels := map[string]string{}
	for _, r := range log.Runs[0].Results {
		levels[r.RuleID] = r.Level
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI == "" || loc.Region.StartLine != 1 {
			t.Errorf("result without a usable location: %+v", loc)
		}
	}
	if diff := cmp.Diff(map[string]string{CodeExposed: "error", CodeAboveDeclared: "warning"}, levels); diff != "" {
		t.Errorf("rule levels (-want +got):\n%s", diff)
	}
	if got := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "models/marts/a%20mart:%5Bv2%5D.sql" {
		t.Errorf("uri %q", got)
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := (&Report{}).Write(&bytes.Buffer{}, "html"); err == nil {
		t.Error("no error for an unknown format")
	}
}

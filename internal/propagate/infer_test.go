package propagate

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/lineage"
	"github.com/celine-eu/governanced/internal/propagate/propagatetest"
	"github.com/celine-eu/governanced/internal/sqlparse"
)

// rules are governance rules by dataset id.
type rules = propagatetest.Rules

// rule is a rule stating a classification and an access level as written
// ("" for unset), and the exposure gates.
var rule = propagatetest.Rule

// project is a small project: origins (sources) with their columns, then
// models in dependency order, each read by name. A model whose SQL is ""
// is opaque.
type project struct {
	origins map[string][]string
	models  [][2]string // name, SQL
}

// graph analyses each model with package lineage and builds the Graph
// package dbt would: relation name = dataset id = the name.
func (p project) graph(t *testing.T) *Graph {
	t.Helper()
	g := &Graph{}
	index := map[string]int{}
	columns := map[string][]string{}
	add := func(r *Relation) int {
		index[r.Name] = len(g.Relations)
		g.Relations = append(g.Relations, r)
		return index[r.Name]
	}
	for name, cols := range p.origins {
		add(&Relation{Name: name, Key: name, Kind: Origin})
		columns[name] = cols
	}
	catalog := func(r lineage.Relation) ([]string, bool) {
		c, ok := columns[r.Name]
		return c, ok
	}
	for _, m := range p.models {
		name, sql := m[0], m[1]
		if sql == "" {
			add(&Relation{Name: name, Key: name, Kind: Opaque, Reason: "no compiled SQL"})
			continue
		}
		res, err := lineage.Analyze(context.Background(), sql, lineage.Options{Dialect: sqlparse.DuckDB, Catalog: catalog})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := &Relation{Name: name, Key: name, Kind: Derived, File: "models/" + name + ".sql"}
		for _, c := range res.Columns {
			col := &Column{Name: c.Name}
			through, known := c.Through()
			for _, s := range c.Sources() {
				ri, ok := index[s.Relation.Name]
				if !ok {
					continue
				}
				col.Inputs = append(col.Inputs, Input{Ref: Ref{ri, s.Column}, Mechanism: s.Mechanism,
					Through: through[s.Source], ThroughKnown: known})
			}
			r.Columns = append(r.Columns, col)
			columns[name] = append(columns[name], c.Name)
		}
		for _, s := range res.PredicateColumns {
			if ri, ok := index[s.Relation.Name]; ok {
				r.RowInputs = append(r.RowInputs, Ref{ri, s.Column})
			}
		}
		add(r)
	}
	return g
}

func infer(t *testing.T, p project, r Rules) *Result {
	t.Helper()
	res, err := Infer(context.Background(), p.graph(t), r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// column is relation.column's inference.
func column(t *testing.T, res *Result, rel, col string) Inferred {
	t.Helper()
	for i, r := range res.Graph.Relations {
		if r.Name == rel {
			inf, ok := res.Column(i, col)
			if !ok {
				t.Fatalf("%s has no column %s", rel, col)
			}
			return inf
		}
	}
	t.Fatalf("no relation %s", rel)
	return Inferred{}
}

// pathOf renders a path as "rel.col(mechanism)" hops.
func pathOf(in Inferred) string {
	var parts []string
	for _, h := range in.Path {
		s := h.Relation + "." + h.Column
		if h.Declared != nil {
			s += "[" + h.Declared.String() + "]"
		} else {
			s += "(" + h.Mechanism + ")"
		}
		if len(h.Through) > 0 {
			s += "{" + strings.Join(h.Through, ",") + "}"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " > ")
}

var shop = map[string][]string{
	"customers": {"id", "first_name", "email", "country"},
	"orders":    {"id", "customer_id", "amount", "status", "ordered_at"},
}

var shopRules = rules{
	"customers": rule("pii", "restricted", false, false),
	"orders":    rule("yellow", "internal", false, false),
}

// TestMechanisms: what one model's column carries, by how it is computed.
func TestMechanisms(t *testing.T) {
	type want struct {
		levels, rowSet string // Levels.String()
		path           string
		through        []string
	}
	tests := []struct {
		name, sql, column string
		want              want
	}{
		{"pass-through", "select email from customers", "email",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.email(direct_passthrough)", []string{}}},
		{"rename", "select email as contact from customers", "contact",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.contact(renamed_passthrough)", []string{}}},
		{"derived", "select lower(email) || '@' as e from customers", "e",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.e(derived_recompute){lower}", []string{"lower"}}},
		{"aggregate over the stronger source", "select o.status, count(distinct c.email) as buyers from orders o join customers c on o.customer_id = c.id group by o.status", "buyers",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.buyers(derived_recompute){count}", []string{"count"}}},
		{"aggregate of the weaker source alone", "select o.status, sum(o.amount) as total from orders o join customers c on o.customer_id = c.id group by o.status", "total",
			want{"yellow/internal", "pii/restricted", "orders.amount[yellow/internal] > m.total(derived_recompute){sum}", []string{"sum"}}},
		{"CASE: the condition's columns are sources", "select case when c.email is null then 0 else o.amount end as a from orders o join customers c on o.customer_id = c.id", "a",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.a(derived_recompute)", []string{}}},
		{"window: the partition is a source", "select sum(o.amount) over (partition by c.country) as s from orders o join customers c on o.customer_id = c.id", "s",
			want{"pii/restricted", "pii/restricted", "customers.country[pii/restricted] > m.s(derived_recompute){sum}", []string{"sum"}}},
		{"union: the strongest branch", "select status as x from orders union all select email from customers", "x",
			want{"pii/restricted", "pii/restricted", "customers.email[pii/restricted] > m.x(renamed_passthrough)", []string{}}},
		{"row-set only: a filter carries no value", "select o.amount from orders o join customers c on o.customer_id = c.id where c.email like '%@example.org'", "amount",
			want{"yellow/internal", "pii/restricted", "orders.amount[yellow/internal] > m.amount(direct_passthrough)", []string{}}},
		{"a constant carries nothing", "select 'x' as k, email from customers", "k",
			want{"-/-", "-/-", "", []string{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := infer(t, project{origins: shop, models: [][2]string{{"m", tc.sql}}}, shopRules)
			inf := column(t, res, "m", tc.column)
			got := want{inf.Levels.String(), inf.RowSet.String(), pathOf(inf), inf.Through}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !inf.Complete || !inf.RowSetComplete || !inf.ThroughKnown {
				t.Errorf("complete %v, row set complete %v, through known %v: want all true", inf.Complete, inf.RowSetComplete, inf.ThroughKnown)
			}
		})
	}
}

// TestChains: governance through several models.
func TestChains(t *testing.T) {
	tests := []struct {
		name    string
		models  [][2]string
		rules   rules
		column  string // of the last model
		levels  string
		path    string
		through []string
		known   bool
		done    bool
	}{
		{"two hops",
			[][2]string{{"stg", "select id as customer_id, first_name from customers"}, {"mart", "select customer_id, first_name from stg"}},
			shopRules, "first_name", "pii/restricted",
			"customers.first_name[pii/restricted] > stg.first_name(direct_passthrough) > mart.first_name(direct_passthrough)", []string{}, true, true},
		{"a hash on the way is remembered",
			[][2]string{{"stg", "select md5(email) as email_hash from customers"}, {"mart", "select upper(email_hash) as h from stg"}},
			shopRules, "h", "pii/restricted",
			"customers.email[pii/restricted] > stg.email_hash(derived_recompute){md5} > mart.h(derived_recompute){upper}", []string{"md5", "upper"}, true, true},
		{"one unhashed path is enough",
			[][2]string{{"stg", "select md5(email) as h, email from customers"}, {"mart", "select h || email as x from stg"}},
			shopRules, "x", "pii/restricted",
			"customers.email[pii/restricted] > stg.email(direct_passthrough) > mart.x(derived_recompute)", []string{}, true, true},
		{"a model declaring the levels itself starts the path",
			[][2]string{{"stg", "select md5(email) as h from customers"}, {"mart", "select h from stg"}},
			rules{"customers": rule("pii", "restricted", false, false), "stg": rule("pii", "", false, false)}, "h", "pii/restricted",
			"stg.h[pii/-] > mart.h(direct_passthrough)", []string{}, true, true},
		{"declared lower on the way does not lower the data",
			[][2]string{{"stg", "select email from customers"}, {"mart", "select email from stg"}},
			rules{"customers": rule("pii", "restricted", false, false), "stg": rule("green", "open", false, false)}, "email", "pii/restricted",
			"customers.email[pii/restricted] > stg.email(direct_passthrough) > mart.email(direct_passthrough)", []string{}, true, true},
		{"levels as written: PII and SECRET",
			[][2]string{{"mart", "select first_name from customers"}},
			rules{"customers": rule("PII", "SECRET", false, false)}, "first_name", "pii/restricted",
			"customers.first_name[pii/restricted] > mart.first_name(direct_passthrough)", []string{}, true, true},
		{"an opaque model on the way: a lower bound",
			[][2]string{{"py", ""}, {"mart", "select c.email, p.score from customers c join py p on p.id = c.id"}},
			rules{"customers": rule("yellow", "", false, false)}, "score", "-/-", "", []string{}, true, false},
		{"an opaque model that declares its levels still passes them on",
			[][2]string{{"py", ""}, {"mart", "select score from py"}},
			rules{"py": rule("red", "internal", false, false)}, "score", "red/internal",
			"py.score[red/internal] > mart.score(direct_passthrough)", []string{}, true, false},
		{"an incremental model reading itself adds nothing",
			[][2]string{{"inc", "select id, email from customers where id > (select max(id) from inc)"}},
			rules{"customers": rule("red", "internal", false, false), "inc": rule("pii", "restricted", false, false)}, "email", "red/internal",
			"customers.email[red/internal] > inc.email(direct_passthrough)", []string{}, true, true},
		{"no rules: nothing declared, nothing inferred",
			[][2]string{{"mart", "select email from customers"}}, nil, "email", "-/-", "", []string{}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := infer(t, project{origins: shop, models: tc.models}, tc.rules)
			last := tc.models[len(tc.models)-1][0]
			inf := column(t, res, last, tc.column)
			if got := inf.Levels.String(); got != tc.levels {
				t.Errorf("levels %s, want %s", got, tc.levels)
			}
			if got := pathOf(inf); got != tc.path {
				t.Errorf("path\n got %s\nwant %s", got, tc.path)
			}
			if diff := cmp.Diff(tc.through, inf.Through); diff != "" {
				t.Errorf("through (-want +got):\n%s", diff)
			}
			if inf.ThroughKnown != tc.known || inf.Complete != tc.done {
				t.Errorf("through known %v, complete %v; want %v, %v", inf.ThroughKnown, inf.Complete, tc.known, tc.done)
			}
		})
	}
}

// TestDeclaredLevels: a rule's levels are read as the format reads them,
// and a value outside its enums is an error naming the relation.
func TestDeclaredLevels(t *testing.T) {
	tests := []struct {
		classification, access string
		want                   Levels
		err                    string
	}{
		{"PII", "SECRET", Levels{"pii", "restricted"}, ""},
		{"Red", "Internal", Levels{"red", "internal"}, ""},
		{"", "secret", Levels{"", "restricted"}, ""},
		{"secret", "", Levels{}, "the governance of customers (customers): classification: 'secret' is not a valid DataClassification"},
		{"green", "public", Levels{}, "the governance of customers (customers): access_level: 'public' is not a valid GovernanceAccessLevel"},
	}
	for _, tc := range tests {
		g := project{origins: shop}.graph(t)
		res, err := Infer(context.Background(), g, rules{"customers": rule(tc.classification, tc.access, false, false)})
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s/%s: got %v, want %s", tc.classification, tc.access, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range g.Relations {
			if r.Name == "customers" && res.Declared[i].Levels != tc.want {
				t.Errorf("%s/%s: got %v, want %v", tc.classification, tc.access, res.Declared[i].Levels, tc.want)
			}
		}
	}
}

// TestCanceled: inference stops with the context's error.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := project{origins: shop, models: [][2]string{{"m", "select email from customers"}}}.graph(t)
	if _, err := Infer(ctx, g, shopRules); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestMeta: what a policy reads under governance.inferred, and what it does
// not read where the lineage is incomplete: a lower bound below the top of
// its scale is absent, so the rule's fail-safe decides.
func TestMeta(t *testing.T) {
	p := project{origins: shop, models: [][2]string{
		{"py", ""},
		{"m", "select md5(c.email) as h, o.amount, p.score from customers c join orders o on o.customer_id = c.id join py p on p.id = c.id"},
	}}
	res := infer(t, p, shopRules)
	tests := []struct {
		column string
		want   map[string]any
	}{
		{"h", map[string]any{
			"classification": "pii", "access_level": "restricted", "complete": true, "through": []any{"md5"},
			"rowset": map[string]any{"classification": "pii", "access_level": "restricted", "complete": false},
			"path": []any{
				map[string]any{"relation": "customers", "dataset": "customers", "column": "email",
					"declared": map[string]any{"classification": "pii", "access_level": "restricted"}},
				map[string]any{"relation": "m", "dataset": "m", "column": "h", "mechanism": "derived_recompute", "through": []any{"md5"}},
			},
		}},
		{"score", map[string]any{
			"complete": false,
			"rowset":   map[string]any{"classification": "pii", "access_level": "restricted", "complete": false},
			"path":     []any{},
		}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, column(t, res, "m", tc.column).Meta()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.column, diff)
		}
	}
	none := project{origins: shop, models: [][2]string{{"m", "select 1 as one from orders"}}}
	want := map[string]any{"classification": nil, "access_level": nil, "complete": true, "through": []any{},
		"rowset": map[string]any{"classification": nil, "access_level": nil, "complete": true}, "path": []any{}}
	if diff := cmp.Diff(want, column(t, infer(t, none, nil), "m", "one").Meta()); diff != "" {
		t.Errorf("nothing carried (-want +got):\n%s", diff)
	}
}

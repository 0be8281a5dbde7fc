package check_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

const resolveBase = `defaults:
  ownership: [{name: rec, type: DATA_OWNER}]
sources:
  datasets.gold.x:
    expose: true
    ownership: [{name: dso, type: DATA_OWNER}, {name: example-dso, type: DATA_OWNER}, {name: nobody, type: DATA_OWNER}]
    dataspace: {expose: true}
    row_filters: [{handler: organization_match, args: {org_type: dso}}]
  datasets.gold.y:
    expose: true
    row_filters: []
  datasets.gold.z:
    expose: true
    ownership: [{name: example-rec, type: DATA_OWNER}]
    dataspace: {expose: true}
    row_filters: [{handler: organization_match, args: {org_type: rec}}]
`

// resolveRegistries are owners registries of one tree, each a small edit
// of the one before: what ResolveOwners must answer as a check would.
var resolveRegistries = []struct{ name, text string }{
	{"every owner with a DID", `owners:
  - {id: example-dso, type: schema:Corporation, name: DSO, did: "did:web:dso.example", aliases: [dso]}
  - {id: example-rec, type: schema:NGO, name: REC, did: "did:web:rec.example", aliases: [rec]}
`},
	{"the DSO without a DID", `owners:
  - {id: example-dso, type: schema:Corporation, name: DSO, aliases: [dso]}
  - {id: example-rec, type: schema:NGO, name: REC, did: "did:web:rec.example", aliases: [rec]}
`},
	{"the alias rec moved, nobody known", `owners:
  - {id: example-dso, type: schema:Corporation, name: DSO, aliases: [dso, rec]}
  - {id: example-rec, type: schema:NGO, name: REC, did: "did:web:rec.example"}
  - {id: nobody, type: schema:Person, name: Nobody, did: "did:web:nobody.example"}
`},
	{"the alias dso gone", `owners:
  - {id: example-dso, type: schema:Corporation, name: DSO, did: "did:web:dso.example", aliases: [rec]}
  - {id: example-rec, type: schema:NGO, name: REC}
`},
}

func resolvePlan(t *testing.T, registry string, prev *check.RegistryBuild) *check.Plan {
	t.Helper()
	fsys := fstest.MapFS{
		"apps/a/governance.yaml": {Data: []byte(resolveBase)},
		"owners.yaml":            {Data: []byte(registry)},
	}
	p, err := check.NewPlan(context.Background(), check.Options{FS: fsys, Paths: []string{"apps/*"},
		Owners: []string{"owners.yaml"}, Dataspace: true, RegistryBuild: prev})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// servedOf is a unit's result as a server serves it: the report of the
// plan with that result, the configuration's rules, the owners asked.
func servedOf(t *testing.T, p *check.Plan, res check.UnitResult) []string {
	t.Helper()
	var rep bytes.Buffer
	if err := p.Report([]check.UnitResult{res}).WriteJSON(&rep); err != nil {
		t.Fatal(err)
	}
	out := []string{rep.String()}
	if res.Config == nil {
		return append(out, "not served")
	}
	rule := func(r *governance.Rule) string {
		var b bytes.Buffer
		r.AppendJSON(&b)
		return b.String()
	}
	out = append(out, rule(res.Config.Defaults))
	for _, s := range res.Config.Sources {
		out = append(out, s.Key+"="+rule(s.Rule))
	}
	return append(out, res.OwnersAsked...)
}

// TestResolveOwnersIsCheckUnit: a unit checked against one registry and
// resolved again against another gives exactly what checking it against
// the other gives, for every pair of registries.
func TestResolveOwnersIsCheckUnit(t *testing.T) {
	for _, from := range resolveRegistries {
		prev := check.CheckUnit(&resolvePlan(t, from.text, nil).Units[0])
		for _, to := range resolveRegistries {
			p := resolvePlan(t, to.text, nil)
			want := servedOf(t, p, check.CheckUnit(&p.Units[0]))
			got := servedOf(t, p, check.ResolveOwners(&p.Units[0], &prev))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, then %s: (-checked +resolved again):\n%s", from.name, to.name, diff)
			}
		}
	}
}

// TestResolveOwnersLeavesPrev: a unit resolved again against another
// registry leaves the configuration of the result it starts from as it
// was — a server is serving it — however its names resolve now.
func TestResolveOwnersLeavesPrev(t *testing.T) {
	for _, from := range resolveRegistries {
		p := resolvePlan(t, from.text, nil)
		prev := check.CheckUnit(&p.Units[0])
		before := servedOf(t, p, prev)
		for _, to := range resolveRegistries {
			check.ResolveOwners(&resolvePlan(t, to.text, nil).Units[0], &prev)
			if diff := cmp.Diff(before, servedOf(t, p, prev)); diff != "" {
				t.Errorf("%s, resolved again with %s: the earlier result changed (-before +after):\n%s", from.name, to.name, diff)
			}
		}
	}
}

// TestResolveOwnersKeepsFindings: a unit resolved again keeps the findings
// list of the result it starts from when its findings about the registry
// say the same as before, rather than copying it for every unit at every
// reload; otherwise its list is its own, and the earlier one unchanged.
func TestResolveOwnersKeepsFindings(t *testing.T) {
	aboutRegistry := func(fs []check.Finding) []string {
		var out []string
		for _, f := range fs {
			if f.Code == check.CodeOwnerUnresolved || f.Code == check.CodeOwnerDIDMissing {
				out = append(out, fmt.Sprint(f.Code, " ", *f.Subject, " ", f.Message))
			}
		}
		return out
	}
	kept, own := 0, 0
	for _, from := range resolveRegistries {
		prev := check.CheckUnit(&resolvePlan(t, from.text, nil).Units[0])
		before := slices.Clone(prev.Findings)
		for _, to := range resolveRegistries {
			got := check.ResolveOwners(&resolvePlan(t, to.text, nil).Units[0], &prev)
			if len(prev.Findings)+len(got.Findings) == 0 {
				continue // no list to keep
			}
			same := slices.Equal(aboutRegistry(prev.Findings), aboutRegistry(got.Findings))
			shared := len(got.Findings) > 0 && len(prev.Findings) > 0 && &got.Findings[0] == &prev.Findings[0]
			if shared != same {
				t.Errorf("%s, then %s: findings list shared %v, findings about the registry as before %v", from.name, to.name, shared, same)
			}
			if shared {
				kept++
			} else {
				own++
			}
			if diff := cmp.Diff(before, prev.Findings, cmp.Comparer(func(a, b check.Finding) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); diff != "" {
				t.Errorf("%s, then %s: the earlier findings changed (-before +after):\n%s", from.name, to.name, diff)
			}
		}
	}
	if kept == 0 || own == 0 {
		t.Errorf("the registries make %d kept lists and %d of their own: the test needs both", kept, own)
	}
}

// TestResolveOwnersKeepsRules: a unit resolved again takes each rule whose
// names resolve as before from the result it starts from, and that
// result's configuration itself when every rule does, so that a server
// keeps what it keeps by rule across a registry edit; a rule whose names
// resolve otherwise is a new one.
func TestResolveOwnersKeepsRules(t *testing.T) {
	// Every registry above, and the first with only a display name edited.
	registries := append(resolveRegistries[:len(resolveRegistries):len(resolveRegistries)], struct{ name, text string }{
		"the DSO renamed", strings.Replace(resolveRegistries[0].text, "name: DSO", "name: The DSO", 1)})
	ownership := func(r *governance.Rule) string {
		return fmt.Sprint(r.Ownership(), r.OwnershipList() == nil)
	}
	for _, from := range registries {
		prev := check.CheckUnit(&resolvePlan(t, from.text, nil).Units[0])
		for _, to := range registries {
			got := check.ResolveOwners(&resolvePlan(t, to.text, nil).Units[0], &prev)
			same := ownership(got.Config.Defaults) == ownership(prev.Config.Defaults)
			if kept := got.Config.Defaults == prev.Config.Defaults; kept != same {
				t.Errorf("%s, then %s: defaults kept %v, resolved as before %v", from.name, to.name, kept, same)
			}
			for i, s := range got.Config.Sources {
				was := prev.Config.Sources[i].Rule
				sameSource := ownership(s.Rule) == ownership(was)
				same = same && sameSource
				if kept := s.Rule == was; kept != sameSource {
					t.Errorf("%s, then %s: %s kept %v, resolved as before %v", from.name, to.name, s.Key, kept, sameSource)
				}
			}
			if kept := got.Config == prev.Config; kept != same {
				t.Errorf("%s, then %s: configuration kept %v, every rule resolved as before %v", from.name, to.name, kept, same)
			}
		}
	}
}

// TestRegistryBuildTaken: a plan given an earlier plan's registry build
// takes it when the owners file holds the same bytes, and builds its own,
// equal to a fresh plan's, when it does not.
func TestRegistryBuildTaken(t *testing.T) {
	first := resolvePlan(t, resolveRegistries[0].text, nil)
	if first.RegistryBuild == nil || first.Registry == nil {
		t.Fatal("the plan made no registry")
	}
	same := resolvePlan(t, resolveRegistries[0].text, first.RegistryBuild)
	if same.Registry != first.Registry || same.RegistryBuild != first.RegistryBuild {
		t.Error("the same bytes: the registry was built again")
	}
	for _, tc := range resolveRegistries[1:] {
		edited := resolvePlan(t, tc.text, first.RegistryBuild)
		if edited.Registry == first.Registry {
			t.Errorf("%s: the earlier registry was taken", tc.name)
		}
		fresh := resolvePlan(t, tc.text, nil)
		if diff := cmp.Diff(servedOf(t, fresh, check.CheckUnit(&fresh.Units[0])), servedOf(t, edited, check.CheckUnit(&edited.Units[0]))); diff != "" {
			t.Errorf("%s: (-fresh +given the earlier build):\n%s", tc.name, diff)
		}
	}
	// The findings about the registry come with it.
	broken := resolvePlan(t, "owners:\n  - {id: x}\n", nil)
	again := resolvePlan(t, "owners:\n  - {id: x}\n", broken.RegistryBuild)
	if diff := cmp.Diff(servedOf(t, broken, check.CheckUnit(&broken.Units[0])), servedOf(t, again, check.CheckUnit(&again.Units[0]))); diff != "" {
		t.Errorf("a broken registry: (-fresh +taken):\n%s", diff)
	}
}

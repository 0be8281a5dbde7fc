package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

// files is a tree as a test writes it: contents by slash path.
type files map[string]string

// with is a copy of fs with some files replaced ("" deletes one).
func (fs files) with(kv ...string) files {
	out := maps.Clone(fs)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
			continue
		}
		out[kv[i]] = kv[i+1]
	}
	return out
}

// replace is a copy of fs with old replaced by new in one file, which must
// hold old.
func (fs files) replace(t *testing.T, name, old, new string) files {
	t.Helper()
	if !strings.Contains(fs[name], old) {
		t.Fatalf("%s does not hold %q", name, old)
	}
	return fs.with(name, strings.Replace(fs[name], old, new, 1))
}

// checkTree checks fs as a tree root (apps/*, owners.yaml when there is
// one) the way the service does, and gives the diff's view of it: what
// internal/snapshot hands over, built here with the check alone.
func checkTree(t testing.TB, fs files) Tree { return checkTreeNamed(t, fs, "") }

// checkTreeNamed is checkTree pairing overlays by overlayName ("" by app
// name).
func checkTreeNamed(t testing.TB, fs files, overlayName string) Tree {
	t.Helper()
	m := fstest.MapFS{}
	for name, data := range fs {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	opts := check.Options{FS: m, Paths: []string{"apps/*"}}
	if overlayName != "" {
		opts.OverlayName = &overlayName
	}
	if _, ok := fs["owners.yaml"]; ok {
		opts.Owners = []string{"owners.yaml"}
	}
	plan, err := check.NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	results, err := check.CheckUnits(context.Background(), plan.Units)
	if err != nil {
		t.Fatal(err)
	}
	tree := Tree{Report: plan.Report(results)}
	for i, u := range plan.Units {
		if c := results[i].Config; c != nil {
			tree.Apps = append(tree.Apps, App{Name: u.App, File: u.Base.Display, OverlayFile: results[i].Overlay, Config: c})
		} else {
			tree.Unserved = append(tree.Unserved, Unserved{App: u.App, File: u.Base.Display})
		}
	}
	return tree
}

// compareFiles compares two trees and holds the report to its invariants.
func compareFiles(t testing.TB, base, head files) *Report {
	t.Helper()
	b, h := checkTree(t, base), checkTree(t, head)
	rep, err := Compare(context.Background(), b, h)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, b, h, rep)
	return rep
}

// checkInvariants holds a report to what it claims about two trees, worked
// out here independently of Compare: for every app on both sides and every
// key of either, the name resolved in the app on each side; a name the
// report does not list resolves to the same value on both sides; a changed
// one's field changes, applied to the base's resolved rule, give the
// head's; an added one resolves only in the head, to the rule the report
// shows, a removed one only in the base. Every dataset of an app on one
// side only is added or removed.
func checkInvariants(t testing.TB, base, head Tree, rep *Report) {
	t.Helper()
	type key struct{ app, name string }
	listed := map[key]*DatasetChange{}
	for i := range rep.Datasets {
		d := &rep.Datasets[i]
		k := key{d.App, d.Dataset}
		if listed[k] != nil {
			t.Errorf("%s %s is listed twice", d.App, d.Dataset)
		}
		listed[k] = d
	}
	apps := func(tr Tree) map[string]*governance.Config {
		m := map[string]*governance.Config{}
		for _, a := range tr.Apps {
			m[a.Name] = a.Config
		}
		return m
	}
	bApps, hApps := apps(base), apps(head)
	unserved := map[string]bool{}
	for _, u := range append(slices.Clone(base.Unserved), head.Unserved...) {
		unserved[u.App] = true
	}
	seen := map[key]bool{}
	names := slices.Sorted(maps.Keys(bApps))
	for n := range hApps {
		if _, ok := bApps[n]; !ok {
			names = append(names, n)
		}
	}
	for _, app := range names {
		if unserved[app] {
			continue
		}
		b, h := bApps[app], hApps[app]
		for _, c := range []*governance.Config{b, h} {
			if c == nil {
				continue
			}
			for _, s := range c.Sources {
				k := key{app, s.Key}
				if seen[k] {
					continue
				}
				seen[k] = true
				bj, hj := resolvedJSON(b, s.Key), resolvedJSON(h, s.Key)
				d := listed[k]
				delete(listed, k)
				switch {
				case d == nil:
					if !sameJSON(bj, hj) {
						t.Errorf("%s %s resolves to %s in the base and %s in the head, and the report does not list it", app, s.Key, bj, hj)
					}
				case d.Status == Added:
					if bj != nil || hj == nil || !sameJSON(d.Rule, hj) {
						t.Errorf("%s %s: added with rule %s; the base resolves it to %s, the head to %s", app, s.Key, d.Rule, bj, hj)
					}
				case d.Status == Removed:
					if hj != nil || bj == nil || !sameJSON(d.Rule, bj) {
						t.Errorf("%s %s: removed with rule %s; the base resolves it to %s, the head to %s", app, s.Key, d.Rule, bj, hj)
					}
				case d.Status == Changed:
					if bj == nil || hj == nil {
						t.Errorf("%s %s: changed, but a side does not resolve it (base %s, head %s)", app, s.Key, bj, hj)
						continue
					}
					got, err := applyFields(bj, d.Fields)
					if err != nil {
						t.Errorf("%s %s: applying the field changes: %v", app, s.Key, err)
					} else if !sameJSON(got, hj) {
						t.Errorf("%s %s: the base's rule with the listed changes is\n%s\nthe head's is\n%s", app, s.Key, got, hj)
					}
					if len(d.Fields) == 0 {
						t.Errorf("%s %s: changed with no field change", app, s.Key)
					}
				default:
					t.Errorf("%s %s: status %q", app, s.Key, d.Status)
				}
			}
		}
	}
	for k, d := range listed {
		if !unserved[k.app] {
			t.Errorf("the report lists %s %s (%s), which is no key of either tree", k.app, k.name, d.Status)
		} else {
			t.Errorf("the report lists %s %s of an app that is not compared", k.app, k.name)
		}
	}
}

// resolvedJSON is the served JSON of name's rule in c; nil when c is nil or
// no key matches.
func resolvedJSON(c *governance.Config, name string) []byte {
	if c == nil {
		return nil
	}
	i, _ := c.LookupIndex(name)
	if i < 0 {
		return nil
	}
	var buf bytes.Buffer
	governance.MergeRules(c.Defaults, c.Sources[i].Rule).AppendJSON(&buf)
	return buf.Bytes()
}

// applyFields applies field changes to a rule's JSON: each path set to its
// new value, or removed when it has none.
func applyFields(rule []byte, fields []FieldChange) ([]byte, error) {
	v, ok := decodeJSON(rule)
	if !ok {
		return nil, fmt.Errorf("the rule is not JSON")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the rule is not an object")
	}
	for _, f := range fields {
		obj := root
		for _, seg := range f.Path[:len(f.Path)-1] {
			next, ok := obj[seg].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not an object in the rule being changed", f.Field, seg)
			}
			obj = next
		}
		last := f.Path[len(f.Path)-1]
		if f.New == nil {
			if _, ok := obj[last]; !ok {
				return nil, fmt.Errorf("%s: removed, but the rule does not state it", f.Field)
			}
			delete(obj, last)
			continue
		}
		nv, ok := decodeJSON(f.New)
		if !ok {
			return nil, fmt.Errorf("%s: the new value is not JSON", f.Field)
		}
		if old, had := obj[last]; f.Old != nil {
			ov, _ := decodeJSON(f.Old)
			if !had || !reflect.DeepEqual(old, ov) {
				return nil, fmt.Errorf("%s: the old value %s is not what the rule states", f.Field, f.Old)
			}
		} else if had {
			return nil, fmt.Errorf("%s: added, but the rule states it already", f.Field)
		}
		obj[last] = nv
	}
	return json.Marshal(root)
}

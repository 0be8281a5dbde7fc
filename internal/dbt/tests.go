package dbt

import (
	"regexp"
	"sort"
	"strings"
)

// genericTest is a base generic test and the columns it depends on, for the
// provable-break check (spec §8.7).
type genericTest struct {
	id               string
	model, column    string // the tested model uid and column
	refModel, refCol string // relationships: the referenced parent key
}

// indexBaseTests indexes every generic test of the base manifest by the
// nodes it targets.
func (b *builder) indexBaseTests() {
	for uid, n := range b.base.m.Nodes {
		if n.ResourceType != "test" || n.TestMetadata == nil || n.TestMetadata.Name == "" {
			continue
		}
		t := genericTest{id: uid, model: n.AttachedNode}
		if t.model == "" {
			t.model = b.onlyRelation(n.DependsOn.Nodes)
		}
		kwargs := n.TestMetadata.Kwargs
		t.column = n.ColumnName
		if t.column == "" {
			t.column, _ = kwargs["column_name"].(string)
		}
		t.column = strings.ToLower(t.column)
		if n.TestMetadata.Name == "relationships" {
			if to, ok := kwargs["to"].(string); ok {
				t.refModel = b.resolveRef(to)
			}
			field, _ := kwargs["field"].(string)
			t.refCol = strings.ToLower(field)
		}
		b.tests = append(b.tests, t)
	}
	sort.Slice(b.tests, func(i, j int) bool { return b.tests[i].id < b.tests[j].id })
	b.testsOf = map[string][]int{}
	for i, t := range b.tests {
		b.testsOf[t.model] = append(b.testsOf[t.model], i)
		if t.refModel != "" && t.refModel != t.model {
			b.testsOf[t.refModel] = append(b.testsOf[t.refModel], i)
		}
	}
}

func (b *builder) onlyRelation(deps []string) string {
	found := ""
	for _, d := range deps {
		if _, ok := b.base.relations[d]; ok {
			if found != "" && found != d {
				return ""
			}
			found = d
		}
	}
	return found
}

// brokenTests lists the base tests a removed column provably orphans: tests
// on it (or, for a deleted model, on the model) that still exist in head. A
// rename that renamed the test too gives the test a new id, so it is not a
// break.
func (b *builder) brokenTests(uid, col string, modelInHead bool) []string {
	if modelInHead && b.head.columnsOf(uid).names[col] {
		return nil // the column is still there: nothing is provable
	}
	var out []string
	for _, i := range b.testsOf[uid] { // in id order
		t := b.tests[i]
		if n := b.head.m.Nodes[t.id]; n == nil || n.ResourceType != "test" {
			continue
		}
		var hit bool
		if modelInHead {
			hit = (t.model == uid && t.column == col) || (t.refModel == uid && t.refCol == col)
		} else {
			hit = t.model == uid || t.refModel == uid
		}
		if hit {
			out = append(out, t.id)
		}
	}
	return out
}

var (
	refCall = regexp.MustCompile(`^\s*(?:\{\{\s*)?ref\s*\((.*)\)\s*(?:\}\})?\s*$`)
	refArg  = regexp.MustCompile(`^\s*(?:(\w+)\s*=\s*)?(?:'([^']*)'|"([^"]*)"|([0-9]+(?:\.[0-9]+)?))\s*$`)
)

// resolveRef turns a relationships test's `to` (ref('name'), ref('pkg',
// 'name'), with v=/version=) into the base unique_id it names; an unpinned
// ref to a versioned model means its latest_version. "" when it names no
// single base relation (a source, or an ambiguous ref).
func (b *builder) resolveRef(to string) string {
	m := refCall.FindStringSubmatch(to)
	if m == nil {
		return ""
	}
	var positional []string
	version := ""
	for _, arg := range splitArgs(m[1]) {
		a := refArg.FindStringSubmatch(arg)
		if a == nil {
			return ""
		}
		val := a[2] + a[3] + a[4]
		switch a[1] {
		case "":
			positional = append(positional, val)
		case "v", "version":
			version = val
		}
	}
	var pkg, name string
	switch len(positional) {
	case 1:
		name = positional[0]
	case 2:
		pkg, name = positional[0], positional[1]
	default:
		return ""
	}
	var candidates []*Node
	if b.byName == nil {
		b.byName = map[string][]*Node{}
		for _, n := range b.base.relations {
			lower := strings.ToLower(n.Name)
			b.byName[lower] = append(b.byName[lower], n)
		}
	}
	for _, n := range b.byName[strings.ToLower(name)] {
		if strings.EqualFold(n.Name, name) && (pkg == "" || n.PackageName == pkg) {
			candidates = append(candidates, n)
		}
	}
	var picked []*Node
	for _, n := range candidates {
		v := n.VersionString()
		switch {
		case version != "":
			if v == version {
				picked = append(picked, n)
			}
		case v == "" || v == versionText(n.LatestVersion):
			picked = append(picked, n)
		}
	}
	if len(picked) != 1 {
		return ""
	}
	return picked[0].UniqueID
}

// splitArgs splits a call's argument text on commas outside quotes.
func splitArgs(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

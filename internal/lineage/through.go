package lineage

import (
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// Through lists, for each source of the column's value, the functions its
// value passes through on the way into the column: the functions that
// enclose every reference to it in the column's canonical value (through
// every CTE and subquery of the statement), by name, lowercased, a
// qualified name joined with dots, sorted. In `md5(first_name) || last_name`
// first_name passes through md5 and last_name through nothing; a source read
// twice, once under md5 and once bare, passes through nothing.
//
// A source the canonical value does not show passes through nothing. ok is false when a value on the way has no
// canonical form (it rests on a name the catalog does not confirm, holds a
// subquery, or is larger than the canonical bound): then nothing is known
// of the functions. It is computed on each call.
func (c *Column) Through() (through map[Source][]string, ok bool) {
	if c.canon == nil {
		return nil, false
	}
	byKey := map[throughKey][]Source{}
	for _, e := range c.Entries {
		for _, s := range e.Sources {
			k := throughKey{s.Relation.Name, s.Column}
			if !slices.Contains(byKey[k], s) {
				byKey[k] = append(byKey[k], s)
			}
		}
	}
	t := &throughState{enclosing: map[throughKey]map[string]bool{}}
	sqlparse.Walk(throughVisitor{t: t}, c.canon)
	if t.opaque {
		return nil, false
	}
	through = make(map[Source][]string)
	for k, sources := range byKey {
		var names []string
		for f := range t.enclosing[k] {
			names = append(names, f)
		}
		slices.Sort(names)
		for _, s := range sources {
			through[s] = names
		}
	}
	return through, true
}

// throughKey is a source as a canonical value names it.
type throughKey struct{ relation, column string }

type throughState struct {
	// enclosing holds, per source name, the functions every reference met
	// so far is inside; absent until its first reference.
	enclosing map[throughKey]map[string]bool
	opaque    bool // a value on the way has no canonical form
}

// throughVisitor walks a canonical value with the functions enclosing the
// node it is at.
type throughVisitor struct {
	t     *throughState
	stack []string
}

func (v throughVisitor) Visit(n sqlparse.Node) sqlparse.Visitor {
	switch x := n.(type) {
	case nil:
		return nil
	case *sqlparse.ColumnRef:
		v.t.reference(x, v.stack)
		return nil
	case *sqlparse.Func:
		if name := funcName(x); name != "" {
			return throughVisitor{v.t, append(v.stack[:len(v.stack):len(v.stack)], name)}
		}
	}
	return v
}

// reference narrows the functions enclosing ref's source to those in
// stack.
func (t *throughState) reference(ref *sqlparse.ColumnRef, stack []string) {
	var k throughKey
	switch n := len(ref.Parts); {
	case n >= 2:
		k = throughKey{ref.Parts[n-2].Name, ref.Parts[n-1].Name}
	case n == 1 && strings.HasPrefix(ref.Parts[0].Name, "?"):
		// A value exprCol could not put in canonical form stands for
		// itself by its signature: what it reads is not shown.
		t.opaque = true
		return
	case n == 1:
		k = throughKey{"", ref.Parts[0].Name}
	}
	set, seen := t.enclosing[k]
	if !seen {
		set = make(map[string]bool, len(stack))
		for _, f := range stack {
			set[f] = true
		}
		t.enclosing[k] = set
		return
	}
	for f := range set {
		if !slices.Contains(stack, f) {
			delete(set, f)
		}
	}
}

// funcName is a call's name as Through reports it; "" for the calls the
// canonical form itself makes up (the branches of a UNION, the rows of
// VALUES), which no statement wrote.
func funcName(f *sqlparse.Func) string {
	if len(f.Name) == 1 && (f.Name[0].Name == "union" || f.Name[0].Name == "values") {
		return ""
	}
	parts := make([]string, len(f.Name))
	for i, p := range f.Name {
		parts[i] = p.Name
	}
	return strings.Join(parts, ".")
}

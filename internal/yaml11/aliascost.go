package yaml11

import "fmt"

// aliasCost accounts for what aliases cost a reader that walks the loaded
// tree as if every alias were a copy of its anchor — JSON rendering, schema
// validation, a message quoting a value. The tree itself shares the anchor's
// node, so a "billion laughs" document loads in microseconds; refusing it
// here, with the alias's position, protects every walker at once.
type aliasCost struct {
	added   int                  // values aliases added, counting nested aliases
	deepest int                  // the deepest nesting reached, through aliases too
	anchors map[*Node]anchorCost // the cost of each anchored node built
}

// anchorCost is what one copy of an anchored node costs: its values (nested
// aliases expanded) and the levels it adds below the alias.
type anchorCost struct{ values, height int }

// aliasMark is the state when an anchored node started building.
type aliasMark struct{ values, deepest int }

// reach records that the builder reached depth.
func (a *aliasCost) reach(depth int) {
	if depth > a.deepest {
		a.deepest = depth
	}
}

// start is called when an anchored node begins building at depth; nodes is
// the builder's count of values so far.
func (a *aliasCost) start(depth, nodes int) aliasMark {
	m := aliasMark{values: nodes + a.added, deepest: a.deepest}
	a.deepest = depth
	return m
}

// done records the cost of the anchored node n, built since m at depth.
func (a *aliasCost) done(n *Node, m aliasMark, depth, nodes int) {
	if a.anchors == nil {
		a.anchors = map[*Node]anchorCost{}
	}
	a.anchors[n] = anchorCost{values: nodes + a.added - m.values, height: a.deepest - depth}
	a.deepest = max(a.deepest, m.deepest)
}

// reuse accounts for an alias at depth to the anchored node n, already built.
func (a *aliasCost) reuse(n *Node, depth int, l Limits) error {
	c := a.anchors[n]
	d := depth + c.height
	if d > l.MaxDepth {
		return fmt.Errorf("nesting deeper than %d levels through aliases (an alias here adds %d levels)", l.MaxDepth, c.height)
	}
	a.reach(d)
	a.added += c.values
	if l.MaxAliasValues >= 0 && a.added > l.MaxAliasValues {
		return fmt.Errorf("aliases expand the document by more than %d values (an alias here copies %d); a document that multiplies itself through aliases is refused", l.MaxAliasValues, c.values)
	}
	return nil
}

// Package testctx has contexts for tests of work that must stop when its
// context ends: not only before it starts, but at the checks it makes on
// the way.
package testctx

import "context"

// StopAfter is a context whose Err is nil for its first n calls and
// context.Canceled after: work that looks at it only when it starts runs to
// the end, work that looks at it as it goes stops. Done is parent's.
func StopAfter(parent context.Context, n int) context.Context {
	return &stopAfter{Context: parent, left: n}
}

type stopAfter struct {
	context.Context
	left int
}

func (c *stopAfter) Err() error {
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

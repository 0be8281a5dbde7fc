// Package testctx bounds the work tests run: contexts for work that must
// stop when its context ends (not only before it starts, but at the checks
// it makes on the way), and Within, which fails a test whose work hangs.
package testctx

import (
	"context"
	"testing"
	"time"
)

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

// Within runs f and fails the test if it has not returned after a generous
// deadline (two minutes): work that hangs is a failure, not a slow test.
// It bounds a hang, it does not time the work: how fast is for benchmarks.
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not return within two minutes", what)
	}
}

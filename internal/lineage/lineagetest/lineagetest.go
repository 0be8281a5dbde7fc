// Package lineagetest builds SQL statements that test the work lineage
// takes: shapes a resolver that repeats work, or has no budget, cannot
// finish. Tests of several packages post them, from one statement to a
// pull request.
package lineagetest

import (
	"fmt"
	"strings"
)

// CTEChain is a chain of n CTEs (n ≥ 2) over the relation from, with
// columns id, a0 and a1: each CTE reads the two before it, one of them
// twice, so a resolver that resolves a CTE again wherever it is read does
// work that grows about 2.4 times a CTE. step is the constant the second
// CTE adds to a: two chains with different steps differ in column a only.
func CTEChain(n, step int, from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "with c0 as (select id, a0 as a, a1 as b from %s),\nc1 as (select id, a + %d as a, b from c0)", from, step)
	for k := 2; k < n; k++ {
		fmt.Fprintf(&b, ",\nc%d as (select x.id, x.a + y.a as a, z.b as b from c%d x join c%d y on x.id = y.id join c%d z on z.id = x.id)", k, k-1, k-1, k-2)
	}
	fmt.Fprintf(&b, "\nselect * from c%d", n-1)
	return b.String()
}

// Accumulating is a chain of n CTEs over the relation from, with columns
// id and a0…a{n-1}: each CTE adds one more column to a running sum x, so
// the sources its columns carry grow with n² while its text grows with n.
// step is the constant the first CTE adds.
func Accumulating(n, step int, from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "with c0 as (select id, a0 + %d as x from %s)", step, from)
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, ",\nc%d as (select c.id, c.x + w.a%d as x from c%d c join %s w on w.id = c.id)", k, k, k-1, from)
	}
	fmt.Fprintf(&b, "\nselect id, x from c%d", n-1)
	return b.String()
}

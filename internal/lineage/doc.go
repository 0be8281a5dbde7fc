// Package lineage computes column-level lineage of one compiled SQL
// statement: for every output column, the base columns it is made of and how
// (a direct pass-through, a renamed pass-through, or a computation), and the
// columns that only decide which rows survive (WHERE, JOIN … ON / USING,
// HAVING, QUALIFY, GROUP BY, DISTINCT ON, ORDER BY under LIMIT or TOP, the
// subqueries of those, and the right side of EXCEPT / INTERSECT).
//
// It resolves names through CTEs (nested and chained), subqueries, joins,
// set operations, lateral column aliases, table functions (UNNEST, FLATTEN,
// range), PIVOT and UNPIVOT (read as the queries they stand for) and `*` /
// `t.*` expanded from a catalog. For change detection it
// also gives every column a signature of its derivation as written and a
// canonical form of its value (every reference replaced by the expression
// that produces it, down to base columns, then simplified), and the
// statement a canonical signature of its row set.
//
// Each CTE and subquery is resolved once and names are looked up in
// constant time, so the work grows with the statement; a Budget bounds
// what a statement may still ask for (large canonical forms, sources
// carried through many levels), and a statement over it is a
// *BudgetError. Analysis stops with the context's error when its context
// ends.
//
// It is a domain package: no I/O, no logging. What it cannot resolve it
// reports as uncertain (Column.Certain, Result.RowCertain) rather than
// guessing; a statement that does not parse is a *ParseError. It knows
// nothing of dbt: relations are names as written, and the Catalog callback
// is where a caller maps them to column lists.
package lineage

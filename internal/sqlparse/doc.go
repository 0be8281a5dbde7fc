// Package sqlparse parses the compiled SQL of a dbt model — one SELECT
// statement, with CTEs, subqueries, joins, PIVOT and UNPIVOT, set
// operations, window functions and the dialect extensions dbt projects write on PostgreSQL, DuckDB,
// Snowflake, BigQuery and Redshift — into a syntax tree, and prints
// expressions back in one normalised form.
//
// It is for reading queries, not for running or rewriting them: it accepts
// the SELECT subset (a query expression, optionally ending in ';') and refuses
// everything else (DDL, DML, scripting, unrendered Jinja) with an *Error that
// names the line and column. It never guesses: a statement it cannot read is
// an error, not a partial tree.
//
// The grammar is written out in grammar.md beside this file. The parser is a
// hand-written recursive descent over a token slice. Its recursion is bounded
// (MaxDepth) and so is its input (MaxTokens), so hostile input costs at most
// linear time and memory and never overflows the stack.
package sqlparse

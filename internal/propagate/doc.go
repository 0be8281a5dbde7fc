// Package propagate infers the governance each column of a project carries
// from the columns it is computed from, along column lineage, and audits it
// against what each relation declares.
//
// A relation's declared governance is its rule in the governance tree,
// looked up by the relation's dataset id (database.schema.alias): the
// classification and access level normalised as the format does
// (governance.NormalizeClassification, governance.NormalizeAccessLevel, so
// PII is pii and secret is restricted) and the two exposure gates
// (governance.EffectiveExpose, governance.DataspaceExpose). Every column of
// a relation carries its declared levels; a model's column also carries the
// strongest classification (green < yellow < red < pii) and the strictest
// access level (open < internal < restricted) of the source columns its
// value is computed from — directly, renamed, or through any computation:
// casts, functions, CASE, aggregates, window functions (whose PARTITION BY
// and ORDER BY columns are sources too), each branch of a UNION. Each
// inferred column has a path: the hops, from the relation whose declared
// governance it carries, by which that governance reached it.
//
// Columns a model uses only to choose rows (WHERE, JOIN … ON, GROUP BY,
// HAVING, QUALIFY, …) carry no value, so they do not raise a column's
// inferred levels; Inferred.RowSet counts them too, for a caller that wants
// what the rows reveal as well (`lineage audit --rowset`, or a policy that
// reads governance.inferred.rowset).
//
// Inferred.Through names the functions every path carrying the column's
// levels passes through (md5, sha2, a masking function), so that a caller
// can tell a hashed column from a copied one; the levels themselves do not
// change, since whether a hash still identifies a person is a policy's
// decision, not lineage's.
//
// It is a domain package: no I/O but the writers its reports render to, no
// logging. It knows nothing of dbt: a Graph is relations, columns and the
// inputs of each column, which package dbt builds from a project's lineage.
// Where lineage is unknown (a model whose SQL cannot be read) the inferred
// levels are a lower bound and say so (Inferred.Complete).
package propagate

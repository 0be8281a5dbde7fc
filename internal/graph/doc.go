// Package graph is the pipeline dependency graph (graph.md): which pipeline
// feeds which, computed from governance files alone. A pipeline's outputs are
// the keys of its sources, its inputs the entries of its depends_on; an edge
// joins a consumer to every producer whose key its entry matches, either side
// possibly a glob. From the edges come the tiers (what may run in
// parallel), the run order, and the findings: unresolved inputs, datasets
// produced twice, cycles, self-dependencies, inactive producers, inputs marked
// external that the scan produces, and, given a deployment's flows, schedule
// inversions, collisions and pipelines nobody deploys.
//
// The command (`governanced graph`, `celine-governance graph`: RunCLI) and the
// server call the same functions: Discover and Load read the base files of a
// tree as the reference library does, FromConfig takes a configuration the
// server already holds (its deployer overlay merged), Build makes the graph,
// Render writes its four renderings, and Graph answers the queries the server
// serves (Producers, Consumers, Pipeline, Upstream, Downstream, Count).
//
// Discovery, names, messages and renderings reproduce the reference CLI
// (celine-utils 2.4.0) byte for byte, as graph.md requires, down to Python's
// glob order and pathlib's path text; graph.md §12 lists where it
// deliberately differs.
//
// It is a domain package: no HTTP, logging or metrics, and nothing read from
// the environment. Problems are values (LoadError, Missing, findings).
package graph

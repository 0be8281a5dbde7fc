// Package treegen generates synthetic governance trees — apps × sources, a mix
// of literal and glob keys, overlays for a share of apps, an owners registry —
// deterministically from a seed. Benchmarks, the load tool and scale tests use
// it so that figures at 1 000, 10 000 and 100 000 sources can be rerun by anyone.
//
// The files it writes are shaped like the real CELINE pipelines' files
// (defaults with dcat and dataspace blocks, per-source tags, row filters,
// ownership), valid against the governance schema, and free of check errors.
package treegen

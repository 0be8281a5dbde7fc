// Package yamltree reads YAML into a tree of nodes that know their line and
// column: the scanner and parser of go.yaml.in/yaml/v3 v3.0.6 (its port of
// libyaml, MIT licence, files apic.go, parserc.go, readerc.go, scannerc.go,
// yamlh.go, yamlprivateh.go) and its node builder (decode.go, Apache 2.0, in
// tree.go), with what yaml11 does not read left out. See LICENSE and NOTICE.
//
// It exists for speed: yaml.v3 offers a tree only through its Decoder, which
// resolves every plain scalar's tag by YAML 1.2's rules (yaml11 applies YAML
// 1.1's instead), keeps comments, and allocates each node, child list and
// scalar on its own. Reading a 100 000-source tree made 23 million
// allocations, most of them here. This reader builds the same tree, minus
// comments and the resolved tags of plain scalars, from slabs and reused
// buffers (docs/adr/0005-yaml-reader-fork.md). Its tests hold it to yaml.v3:
// the same tree and the same errors, on every YAML file of the repository,
// every string of the conformance cases and fuzzed input.
//
// Changes to the libyaml port are marked "governanced:". Parts of it this
// package does not call (string input, the token API, trace helpers) are
// left in place, so that the port stays a plain diff against upstream.
package yamltree

// Package yaml11 reads YAML the way PyYAML's safe loader does, so that governanced
// reaches the same values as every Python consumer of the same files: YAML 1.1
// implicit typing (yes/no/on/off booleans, octal 017, base-60 1:30, dates),
// anchors and aliases, merge keys (<<) with PyYAML's ordering, and duplicate keys
// where the later value wins but the first position is kept.
//
// Every value keeps the line and column it was written at, so later layers can
// say where a value came from. It is the project's only YAML reader.
//
// It is not a general YAML library: it reads one document into a tree of Nodes
// and has no encoder.
package yaml11

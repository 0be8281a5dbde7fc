package governance

import "github.com/celine-eu/governanced/internal/yaml11"

// RootKeys are the root keys the grammar defines (KNOWN_ROOT_KEYS).
var RootKeys = map[string]bool{"active": true, "defaults": true, "depends_on": true, "sources": true}

// UnknownKey is a key the grammar does not define. Scope is "<root>",
// "defaults" or "sources/<name>".
type UnknownKey struct {
	Scope string
	Key   string
	Pos   yaml11.Pos
}

// String renders it as the reference does: "<scope>: <key>".
func (u UnknownKey) String() string { return u.Scope + ": " + u.Key }

// UnknownKeys lists every key outside the grammar: root keys, then the defaults
// block, then each source in document order (validation.md §3). Nested blocks
// are not scanned; the schema closes those that are closed.
func UnknownKeys(doc *yaml11.Node) []UnknownKey {
	if doc == nil || doc.Kind != yaml11.Map {
		return nil
	}
	var out []UnknownKey
	for _, p := range doc.Pairs {
		if p.Key.Kind != yaml11.String || !RootKeys[p.Key.Str] {
			out = append(out, UnknownKey{Scope: "<root>", Key: yaml11.PyStr(p.Key), Pos: p.Key.Pos})
		}
	}
	scan := func(block *yaml11.Node, scope string) {
		if block == nil || block.Kind != yaml11.Map {
			return
		}
		if inner := block.Get("governance"); inner != nil {
			block = inner
			if block.Kind != yaml11.Map {
				return
			}
		}
		for _, p := range block.Pairs {
			if p.Key.Kind == yaml11.String {
				if _, ok := KnownKeys[p.Key.Str]; ok {
					continue
				}
			}
			out = append(out, UnknownKey{Scope: scope, Key: yaml11.PyStr(p.Key), Pos: p.Key.Pos})
		}
	}
	scan(doc.Get("defaults"), "defaults")
	if srcs := doc.Get("sources"); srcs != nil && srcs.Kind == yaml11.Map {
		for _, p := range srcs.Pairs {
			scan(p.Value, "sources/"+yaml11.PyStr(p.Key))
		}
	}
	return out
}

package owners

import (
	"fmt"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// ReadPlaceholders reads a deployment's placeholder map (owners.md §6.1): a
// YAML mapping of ownership names to owner ids, both strings. Every entry
// that is not one is an *Error of kind Invalid at the entry, its Path the
// key's text; a root that is not a mapping is one *Error of kind Malformed.
// The map holds the entries that are well formed, whatever the errors.
func ReadPlaceholders(root *yaml11.Node, file string) (map[string]string, []*Error) {
	if root == nil || root.Kind != yaml11.Map {
		e := &Error{Kind: Malformed, File: file, Msg: "placeholders must map ownership names to owner ids"}
		if root != nil {
			e.Pos = root.Pos
		}
		return nil, []*Error{e}
	}
	m := make(map[string]string, len(root.Pairs))
	var errs []*Error
	for _, pr := range root.Pairs {
		if pr.Key.Kind != yaml11.String || pr.Value.Kind != yaml11.String {
			name := yaml11.PyStr(pr.Key)
			if pr.Key.Kind == yaml11.String {
				name = pr.Key.Str
			}
			errs = append(errs, &Error{Kind: Invalid, File: file, Pos: pr.Key.Pos, Path: name,
				Msg: fmt.Sprintf("placeholder %s: %s must map a string name to a string owner id", yaml11.ShortRepr(pr.Key), yaml11.ShortRepr(pr.Value))})
			continue
		}
		m[pr.Key.Str] = pr.Value.Str
	}
	return m, errs
}

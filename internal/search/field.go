package search

import "strings"

// Field is a set of the fields a word was found in.
type Field uint8

// The fields a search reads. Key is the sources key; Owner an ownership
// name as served (an owner's id when it resolved, else the name as
// written) and, for an owner of the registry, its display name and
// aliases; Source the source system.
const (
	Key Field = 1 << iota
	Title
	Tag
	Owner
	App
	Source
	Description
)

// fieldNames are the fields' names, in the order of the constants.
var fieldNames = [...]string{"key", "title", "tag", "owner", "app", "source_system", "description"}

// weights rank the fields: a query's word found in a dataset adds the
// weight of the best field it was found in, twice that when it is a whole
// word of that field rather than the start of one.
var weights = [...]uint32{8, 8, 5, 4, 3, 3, 1}

// Has reports whether every field of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }

// Names are the fields of f by name (key, title, tag, owner, app,
// source_system, description), in that order.
func (f Field) Names() []string {
	var out []string
	for i, name := range fieldNames {
		if f&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

func (f Field) String() string { return strings.Join(f.Names(), "|") }

// weight is the weight of the best field of f (0 for none).
func weight(f Field) uint32 {
	best := uint32(0)
	for i, w := range weights {
		if f&(1<<i) != 0 && w > best {
			best = w
		}
	}
	return best
}

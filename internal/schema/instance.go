package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// The jsonschema library validates JSON values (nil, bool, numbers, string,
// []any, map[string]any). A YAML 1.1 tree holds more than that, and the
// reference validates the Python values PyYAML built, so three kinds of value
// need a stand-in that the library types exactly as Python's jsonschema types
// the original:
//
//   - a timestamp (datetime.date/datetime.datetime) is none of the JSON types;
//   - NaN and ±Inf are floats, never integers, which the library would refuse
//     outright as "not a JSON value";
//
// all of these become notJSON, a non-integral number: it fails "string",
// "integer", "boolean", "null", "object" and "array", equals no enum member,
// and is skipped by pattern/minLength/required/properties — exactly as the
// Python value is. It would pass "number", which is why the schemas must never
// use "number" (a test holds that). Messages never show the stand-in: they are
// rendered from the YAML node.
const notJSON = 0.5

// nonStringKey marks a mapping key that is not a string. It begins with a byte
// that never occurs in a UTF-8 string, so it matches no "properties" name, and
// pyRegexp makes every patternProperties regex refuse it (Python's re.search
// cannot even take a non-string key). The index keeps two such keys apart.
const nonStringKey = "\xff"

func mangledKey(i int) string { return nonStringKey + strconv.Itoa(i) }

// instance converts a YAML tree to the value the validator sees. Shared nodes
// (aliases) convert once.
func instance(n *yaml11.Node) any {
	c := converter{seen: map[*yaml11.Node]any{}}
	return c.convert(n)
}

type converter struct {
	seen map[*yaml11.Node]any
}

func (c *converter) convert(n *yaml11.Node) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml11.Null:
		return nil
	case yaml11.Bool:
		return n.Bool
	case yaml11.Int:
		if n.BigInt != nil {
			return json.Number(n.BigInt.String())
		}
		return n.Int
	case yaml11.Float:
		if math.IsNaN(n.Float) || math.IsInf(n.Float, 0) {
			return notJSON
		}
		return n.Float
	case yaml11.String:
		return n.Str
	case yaml11.Timestamp:
		return notJSON
	}
	if n.Anchored {
		if v, ok := c.seen[n]; ok {
			return v
		}
	}
	switch n.Kind {
	case yaml11.Map:
		m := make(map[string]any, len(n.Pairs))
		c.remember(n, m)
		for i, p := range n.Pairs {
			m[instanceKey(p.Key, i)] = c.convert(p.Value)
		}
		return m
	case yaml11.Seq:
		s := make([]any, len(n.Items))
		c.remember(n, s)
		for i, it := range n.Items {
			s[i] = c.convert(it)
		}
		return s
	}
	return nil
}

// remember keeps the value of an anchored collection, which aliases may reach
// again; any other node is converted once per place it stands, and the
// expanded size has been bounded before conversion (MaxValues).
func (c *converter) remember(n *yaml11.Node, v any) {
	if n.Anchored {
		c.seen[n] = v
	}
}

func instanceKey(k *yaml11.Node, i int) string {
	if k.Kind == yaml11.String {
		return k.Str
	}
	return mangledKey(i)
}

// MaxValues bounds the values a document may expand to through aliases before
// it is validated. Aliases share nodes, so a few lines of YAML can stand for
// billions of values ("billion laughs"); validating or rendering them would
// never finish. Real governance files hold a few thousand values at most.
const MaxValues = 1_000_000

// expandedSize counts the values n stands for with every alias written out,
// stopping once the count passes limit.
func expandedSize(n *yaml11.Node, limit int) int {
	memo := map[*yaml11.Node]int{} // anchored collections only (yaml11.Node.Anchored)
	var size func(n *yaml11.Node) int
	size = func(n *yaml11.Node) int {
		if n == nil || (n.Kind != yaml11.Map && n.Kind != yaml11.Seq) {
			return 1
		}
		if n.Anchored {
			if s, ok := memo[n]; ok {
				return s
			}
		}
		total := 1
		for _, p := range n.Pairs {
			total += size(p.Key) + size(p.Value)
			if total > limit {
				break
			}
		}
		for _, it := range n.Items {
			total += size(it)
			if total > limit {
				break
			}
		}
		total = min(total, limit+1)
		if n.Anchored {
			memo[n] = total
		}
		return total
	}
	return size(n)
}

// locate follows an instance location (the library's string tokens) through
// the YAML tree and returns the node there with its typed path. ok is false
// when a token does not exist (a library error outside the document, which
// would be a bug).
func locate(root *yaml11.Node, loc []string, base Path) (*yaml11.Node, Path, bool) {
	n := root
	path := append(Path(nil), base...)
	for _, tok := range loc {
		switch {
		case n == nil:
			return nil, path, false
		case n.Kind == yaml11.Map:
			p, ok := pairFor(n, tok)
			if !ok {
				return nil, path, false
			}
			path = append(path, Key(keyText(p.Key)))
			n = p.Value
		case n.Kind == yaml11.Seq:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Items) {
				return nil, path, false
			}
			path = append(path, Index(i))
			n = n.Items[i]
		default:
			return nil, path, false
		}
	}
	return n, path, true
}

// pairFor finds the pair of a mapping whose instance key is tok.
func pairFor(m *yaml11.Node, tok string) (yaml11.Pair, bool) {
	if rest, ok := strings.CutPrefix(tok, nonStringKey); ok {
		i, err := strconv.Atoi(rest)
		if err != nil || i < 0 || i >= len(m.Pairs) {
			return yaml11.Pair{}, false
		}
		return m.Pairs[i], true
	}
	for _, p := range m.Pairs {
		if p.Key.Kind == yaml11.String && p.Key.Str == tok {
			return p, true
		}
	}
	return yaml11.Pair{}, false
}

// keyText is a key as a path component: a string as written, any other scalar
// in the reference's plain text (1, True, None, 2024-01-01).
func keyText(k *yaml11.Node) string {
	if k.Kind == yaml11.String {
		return k.Str
	}
	return yaml11.PyStr(k)
}

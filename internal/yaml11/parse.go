package yaml11

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Error is a document that PyYAML's safe loader would refuse: a syntax error, a
// second document, an unsupported tag, a bad merge key, a value with no
// constructor. Line and Column are 1-based; 0 when the position is unknown.
type Error struct {
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Warning is something PyYAML accepts silently but an author probably did not
// mean, such as a key written twice.
type Warning struct {
	Pos Pos
	Msg string
	// For a duplicate key: the later key (at Pos), the first one (whose
	// position the key keeps), and the mapping holding them.
	Key, First, Mapping *Node
}

// Limits bound what one document may cost to load; zero fields take the defaults.
type Limits struct {
	MaxBytes int // document size; default 64 MiB
	MaxDepth int // nesting of collections; default 1000
	MaxNodes int // values after alias sharing, counting every merge-key copy; default 10 million
	// MaxAliasValues bounds the values aliases add when the document is read
	// as a tree, each alias counting every value under its anchor: what a
	// "billion laughs" document multiplies. The tree shares an alias's node,
	// but anything that walks it (JSON, schema validation, a message quoting
	// a value) pays for every copy. Default 1 million; negative for no bound.
	// Nesting through aliases counts towards MaxDepth as if they were copied.
	MaxAliasValues int
	// MaxIntDigits bounds the digits of one integer, as Python's int(str)
	// does (sys.get_int_max_str_digits, 4300 by default): converting text
	// to a big integer and back costs time quadratic in its digits, so a
	// request or a file of a few megabytes could hold a worker for
	// minutes. Signs, underscores, base prefixes and base-60 colons are
	// not digits; unlike Python, binary, octal and hexadecimal digits
	// count too, since such a value is written back in decimal. Default
	// MaxIntDigits; negative for no bound.
	MaxIntDigits int
}

// MaxIntDigits is the default limit on an integer's digits: Python's.
const MaxIntDigits = 4300

// MaxDocumentBytes is the default limit on a document's size.
const MaxDocumentBytes = 64 << 20

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxDocumentBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 1000
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = 10_000_000
	}
	if l.MaxAliasValues == 0 {
		l.MaxAliasValues = 1_000_000
	}
	if l.MaxIntDigits == 0 {
		l.MaxIntDigits = MaxIntDigits
	}
	return l
}

// Parse loads one YAML document as PyYAML's safe_load does. An empty stream
// (nothing, or only comments) gives a Null node.
func Parse(data []byte) (*Node, error) {
	n, _, err := ParseWithWarnings(data, Limits{})
	return n, err
}

// ParseWithWarnings is Parse that also returns the duplicate keys it collapsed,
// within the given limits.
func ParseWithWarnings(data []byte, limits Limits) (*Node, []Warning, error) {
	d, err := ParseDocument(data, limits)
	return d.Root, d.Warnings, err
}

// Document is one document as ParseDocument read it.
type Document struct {
	Root     *Node
	Warnings []Warning // the duplicate keys collapsed
	// Values is how many values the document built, as MaxNodes counts
	// them (an alias's shared node once, each merge-key copy): what reading
	// it cost, for a caller that bounds the values of many documents.
	Values int
}

// ParseDocument is ParseWithWarnings returning the document's cost too;
// on an error Values is what was built before it.
func ParseDocument(data []byte, limits Limits) (Document, error) {
	return ParseDocumentIn(data, limits, nil)
}

// ParseDocumentIn is ParseDocument with the document's values in a (nil:
// on the heap): valid until a is reset (Arena).
func ParseDocumentIn(data []byte, limits Limits, a *Arena) (Document, error) {
	limits = limits.withDefaults()
	if len(data) > limits.MaxBytes {
		return Document{}, &Error{Msg: fmt.Sprintf("document is %d bytes, more than the limit of %d", len(data), limits.MaxBytes)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	doc := new(yaml.Node)
	if err := dec.Decode(doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Document{Root: &Node{Kind: Null, Pos: Pos{Line: 1, Column: 1}}, Values: 1}, nil
		}
		return Document{}, syntaxError(err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		if err != nil {
			return Document{}, syntaxError(err)
		}
		return Document{}, &Error{Line: second.Line, Column: second.Column, Msg: "expected a single document in the stream, but found another document"}
	}
	b := builder{built: map[*yaml.Node]*Node{}, limits: limits, arena: a}
	root := doc
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return Document{Root: &Node{Kind: Null, Pos: Pos{Line: 1, Column: 1}}, Values: 1}, nil
		}
		root = doc.Content[0]
	}
	n, err := b.build(root, 0)
	if err != nil {
		return Document{Values: b.nodes}, err
	}
	return Document{Root: n, Warnings: b.warnings, Values: b.nodes}, nil
}

var lineInMessage = regexp.MustCompile(`line (\d+)`)

func syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{Msg: msg}
	if m := lineInMessage.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
	}
	return e
}

type builder struct {
	arena    *Arena // nil: the heap
	built    map[*yaml.Node]*Node
	building map[*yaml.Node]bool
	warnings []Warning
	limits   Limits
	nodes    int
	aliases  aliasCost
	// spareKeys is the empty map of keys a mapping with too many for
	// keyIndex's array uses (and empties) in turn; nil until one needs it.
	spareKeys map[keyID]int
}

func errAt(n *yaml.Node, format string, args ...any) *Error {
	return &Error{Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)}
}

func (b *builder) count(n *yaml.Node, k int) error {
	b.nodes += k
	if b.nodes > b.limits.MaxNodes {
		return errAt(n, "document expands to more than %d values (alias or merge-key expansion?)", b.limits.MaxNodes)
	}
	return nil
}

func (b *builder) build(n *yaml.Node, depth int) (*Node, error) {
	if depth > b.limits.MaxDepth {
		return nil, errAt(n, "nesting deeper than %d levels", b.limits.MaxDepth)
	}
	b.aliases.reach(depth)
	alias := n
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, errAt(n, "unknown alias %q", n.Value)
		}
		n = n.Alias
	}
	// Only an anchored node can be reached twice (through an alias) or contain
	// itself, so only those are remembered.
	anchored := n.Anchor != ""
	var mark aliasMark
	if anchored {
		if done, ok := b.built[n]; ok {
			if err := b.aliases.reuse(done, depth, b.limits); err != nil {
				return nil, errAt(alias, "%s", err)
			}
			return done, nil
		}
		if b.building[n] {
			return nil, errAt(n, "recursive alias: a collection contains itself")
		}
		if b.building == nil {
			b.building = map[*yaml.Node]bool{}
		}
		b.building[n] = true
		defer delete(b.building, n)
		mark = b.aliases.start(depth, b.nodes)
	}
	if err := b.count(n, 1); err != nil {
		return nil, err
	}

	var out *Node
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		out, err = b.scalar(n)
	case yaml.SequenceNode:
		if err := checkCollectionTag(n, "!!seq"); err != nil {
			return nil, err
		}
		out = b.node(Node{Kind: Seq, Pos: pos(n), Items: b.itemList(len(n.Content))})
		for _, c := range n.Content {
			item, err := b.build(c, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, item)
		}
	case yaml.MappingNode:
		if err := checkCollectionTag(n, "!!map"); err != nil {
			return nil, err
		}
		out, err = b.mapping(n, depth)
	case yaml.DocumentNode:
		return nil, errAt(n, "unexpected nested document")
	default:
		return nil, errAt(n, "unsupported YAML node")
	}
	if err != nil {
		return nil, err
	}
	if anchored {
		out.Anchored = true
		b.built[n] = out
		b.aliases.done(out, mark, depth, b.nodes)
	}
	return out, nil
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

func checkCollectionTag(n *yaml.Node, want string) error {
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != want && n.Tag != "!" {
		return errAt(n, "unsupported tag %s", n.Tag)
	}
	return nil
}

// mapping flattens merge keys exactly as PyYAML's SafeConstructor.flatten_mapping
// does, then builds the pairs left to right: a key seen again replaces the value
// but keeps its first position (and its first key node).
func (b *builder) mapping(n *yaml.Node, depth int) (*Node, error) {
	var merged []Pair
	own := b.pairList(len(n.Content) / 2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if isMergeKey(kn) {
			pairs, err := b.mergePairs(vn, depth)
			if err != nil {
				return nil, err
			}
			merged = append(merged, pairs...)
			continue
		}
		key, err := b.key(kn, depth)
		if err != nil {
			return nil, err
		}
		val, err := b.build(vn, depth+1)
		if err != nil {
			return nil, err
		}
		own = append(own, Pair{Key: key, Value: val})
	}
	all := own
	if len(merged) > 0 {
		all = append(merged, own...) // merged is this mapping's own copy
	}
	if err := b.count(n, len(merged)); err != nil {
		return nil, err
	}
	// The pairs are compacted in place: a pair is only ever written at or
	// before the position being read.
	out := b.node(Node{Kind: Map, Pos: pos(n), Pairs: all[:0]})
	var seen keyIndex
	seen.init(len(all), b.spareKeys)
	// ownAt[i] is whether out.Pairs[i] was written in this mapping, not merged
	// in; without merge keys every pair is.
	var ownAt []bool
	if len(merged) > 0 {
		ownAt = make([]bool, 0, len(all))
	}
	isOwn := func(at int) bool { return ownAt == nil || ownAt[at] }
	var firstOwn map[int]*Node // the first own key at a slot a merge key filled first
	for i, p := range all {
		own := i >= len(merged)
		id, hashable := identity(p.Key)
		if hashable {
			if at, dup := seen.find(id); dup {
				out.Pairs[at].Value = p.Value
				// Overriding a merged key is what merge keys are for; writing a key
				// twice by hand is the mistake worth a warning.
				if own && isOwn(at) {
					first := out.Pairs[at].Key
					if k, ok := firstOwn[at]; ok {
						first = k
					}
					b.warnings = append(b.warnings, Warning{Pos: p.Key.Pos, Key: p.Key, First: first, Mapping: out,
						Msg: fmt.Sprintf("duplicate key %s (first written at line %d): the later value wins", ShortRepr(p.Key), first.Pos.Line)})
				}
				if own && !isOwn(at) {
					// The mapping's own key now holds the slot a merge key filled; a
					// second own key after it is a hand-written duplicate.
					ownAt[at] = true
					if firstOwn == nil {
						firstOwn = map[int]*Node{}
					}
					firstOwn[at] = p.Key
				}
				continue
			}
			seen.add(id, len(out.Pairs))
		}
		out.Pairs = append(out.Pairs, p)
		if ownAt != nil {
			ownAt = append(ownAt, own)
		}
	}
	if seen.big != nil && len(all) <= maxSpareKeys {
		clear(seen.big)
		b.spareKeys = seen.big
	}
	return out, nil
}

// keyIndex finds the slot a key already holds in a mapping being built. Most
// mappings have a handful of keys, for which a scan of a small array beats
// building a map (a map per mapping would be an allocation for every mapping
// of a large load); the others share one map, the builder's, emptied after
// each.
type keyIndex struct {
	small [8]keyID
	at    [8]int
	n     int
	big   map[keyID]int
}

// maxSpareKeys is the most pairs a mapping may have for its map to be
// kept as the builder's spare: emptying a map costs what it can hold, so
// the spare stays small, and a larger mapping has a map of its own.
const maxSpareKeys = 64

// init readies x for a mapping of size pairs; spare is an empty map to
// use when they are too many for the array and few enough for it
// (maxSpareKeys), nil for none yet.
func (x *keyIndex) init(size int, spare map[keyID]int) {
	switch {
	case size <= len(x.small):
	case size <= maxSpareKeys && spare != nil:
		x.big = spare
	default:
		x.big = make(map[keyID]int, size)
	}
}

func (x *keyIndex) find(id keyID) (int, bool) {
	if x.big != nil {
		at, ok := x.big[id]
		return at, ok
	}
	for i := 0; i < x.n; i++ {
		if x.small[i] == id {
			return x.at[i], true
		}
	}
	return 0, false
}

func (x *keyIndex) add(id keyID, at int) {
	if x.big != nil {
		x.big[id] = at
		return
	}
	x.small[x.n], x.at[x.n] = id, at
	x.n++
}

func isMergeKey(kn *yaml.Node) bool {
	return kn.Kind == yaml.ScalarNode && kn.Style == 0 && kn.Value == "<<" && (kn.Tag == "!!merge" || kn.Tag == "")
}

func (b *builder) mergePairs(vn *yaml.Node, depth int) ([]Pair, error) {
	target := vn
	if target.Kind == yaml.AliasNode && target.Alias != nil {
		target = target.Alias
	}
	switch target.Kind {
	case yaml.MappingNode:
		m, err := b.build(vn, depth+1)
		if err != nil {
			return nil, err
		}
		return m.Pairs, nil
	case yaml.SequenceNode:
		var subs [][]Pair
		for _, c := range target.Content {
			t := c
			if t.Kind == yaml.AliasNode && t.Alias != nil {
				t = t.Alias
			}
			if t.Kind != yaml.MappingNode {
				return nil, errAt(c, "while constructing a mapping: expected a mapping for merging, but found %s", kindWord(t))
			}
			m, err := b.build(c, depth+1)
			if err != nil {
				return nil, err
			}
			subs = append(subs, m.Pairs)
		}
		var out []Pair
		for i := len(subs) - 1; i >= 0; i-- {
			out = append(out, subs[i]...)
		}
		return out, nil
	}
	return nil, errAt(vn, "while constructing a mapping: expected a mapping or list of mappings for merging, but found %s", kindWord(target))
}

func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return "scalar"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	}
	return "node"
}

func (b *builder) key(kn *yaml.Node, depth int) (*Node, error) {
	target := kn
	if target.Kind == yaml.AliasNode && target.Alias != nil {
		target = target.Alias
	}
	if target.Kind != yaml.ScalarNode {
		return nil, errAt(kn, "while constructing a mapping: found unhashable key (a %s)", kindWord(target))
	}
	if target.Style == 0 && target.Value == "=" {
		// PyYAML turns a plain "=" key into the string "=".
		return b.node(Node{Kind: String, Pos: pos(kn), Str: "="}), nil
	}
	return b.build(kn, depth+1)
}

// keyID is the identity Python's dict uses for a key: 1, 1.0 and True are one key.
type keyID struct {
	kind byte // 's' string, 'n' number or bool, 'z' null, 'd' date, 't' naive datetime, 'a' aware datetime, 'b' big
	s    string
	f    float64
	t    int64
}

func identity(k *Node) (keyID, bool) {
	switch k.Kind {
	case String:
		return keyID{kind: 's', s: k.Str}, true
	case Null:
		return keyID{kind: 'z'}, true
	case Bool:
		if k.Bool {
			return keyID{kind: 'n', f: 1}, true
		}
		return keyID{kind: 'n', f: 0}, true
	case Int:
		if k.BigInt != nil {
			return keyID{kind: 'b', s: k.BigInt.String()}, true
		}
		if k.Int > -1<<53 && k.Int < 1<<53 {
			return keyID{kind: 'n', f: float64(k.Int)}, true
		}
		return keyID{kind: 'b', s: strconv.FormatInt(k.Int, 10)}, true
	case Float:
		if math.IsNaN(k.Float) {
			return keyID{}, false // NaN never equals itself: every NaN key is distinct
		}
		return keyID{kind: 'n', f: k.Float}, true
	case Timestamp:
		switch {
		case k.Time.DateOnly:
			return keyID{kind: 'd', t: k.Time.T.Unix()}, true
		case k.Time.HasZone:
			return keyID{kind: 'a', t: k.Time.T.UnixNano()}, true
		}
		return keyID{kind: 't', t: k.Time.T.UnixNano()}, true
	}
	return keyID{}, false
}

func (b *builder) scalar(n *yaml.Node) (*Node, error) {
	p := pos(n)
	if n.Style&yaml.TaggedStyle != 0 {
		return b.taggedScalar(n)
	}
	if n.Style != 0 { // quoted, literal or folded: always a string
		return b.node(Node{Kind: String, Pos: p, Str: n.Value}), nil
	}
	switch n.Value {
	case "=":
		return nil, errAt(n, "could not determine a constructor for the tag 'tag:yaml.org,2002:value' (a plain '=' value; quote it)")
	case "<<":
		return nil, errAt(n, "could not determine a constructor for the tag 'tag:yaml.org,2002:merge' (a plain '<<' value; quote it)")
	}
	return b.resolvePlain(n, n.Value)
}

func (b *builder) taggedScalar(n *yaml.Node) (*Node, error) {
	v := n.Value
	p := pos(n)
	var out Node
	var err error
	switch n.Tag {
	case "!!str", "!":
		return b.node(Node{Kind: String, Pos: p, Str: v}), nil
	case "!!null":
		return b.node(Node{Kind: Null, Pos: p, Str: v}), nil
	case "!!bool":
		w, ok := boolWords[v]
		if !ok {
			return nil, errAt(n, "cannot construct a bool from %q", v)
		}
		return b.node(Node{Kind: Bool, Pos: p, Bool: w, Str: v}), nil
	case "!!int":
		out, err = parseInt(v, b.limits.MaxIntDigits)
	case "!!float":
		out, err = parseFloat(v)
	case "!!timestamp":
		out, err = parseTimestamp(v)
	default:
		return nil, errAt(n, "unsupported tag %s (governance files use plain YAML values)", n.Tag)
	}
	if err != nil {
		return nil, errAt(n, "%s", err)
	}
	out.Pos, out.Str = p, v
	return b.node(out), nil
}

var boolWords = map[string]bool{
	"yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
	"no": false, "No": false, "NO": false, "false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
}

var (
	reInt       = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat     = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reTimestamp = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
	reTSParts   = regexp.MustCompile(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$`)
)

// resolvePlain applies YAML 1.1 implicit typing (PyYAML's Resolver) to a plain scalar.
func (b *builder) resolvePlain(n *yaml.Node, v string) (*Node, error) {
	p := pos(n)
	switch v {
	case "", "~", "null", "Null", "NULL":
		return b.node(Node{Kind: Null, Pos: p, Str: v}), nil
	}
	if w, ok := boolWords[v]; ok {
		return b.node(Node{Kind: Bool, Pos: p, Bool: w, Str: v}), nil
	}
	if !mayBeNonString(v) {
		return b.node(Node{Kind: String, Pos: p, Str: v}), nil
	}
	var out Node
	var err error
	switch {
	case reInt.MatchString(v):
		out, err = parseInt(v, b.limits.MaxIntDigits)
	case reFloat.MatchString(v):
		out, err = parseFloat(v)
	case reTimestamp.MatchString(v):
		out, err = parseTimestamp(v)
	default:
		return b.node(Node{Kind: String, Pos: p, Str: v}), nil
	}
	if err != nil {
		return nil, errAt(n, "%s", err)
	}
	out.Pos, out.Str = p, v
	return b.node(out), nil
}

// parseInt is PyYAML's construct_yaml_int, refusing more than maxDigits
// digits (negative: no bound) before converting anything.
func parseInt(text string, maxDigits int) (Node, error) {
	v := strings.ReplaceAll(text, "_", "")
	sign := 1
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	if maxDigits >= 0 {
		if d := IntDigits(v); d > maxDigits {
			return Node{}, &DigitsError{Digits: d, Limit: maxDigits}
		}
	}
	z := new(big.Int)
	ok := true
	switch {
	case v == "0":
	case strings.HasPrefix(v, "0b"):
		_, ok = z.SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		_, ok = z.SetString(v[2:], 16)
	case strings.HasPrefix(v, "0"):
		_, ok = z.SetString(v, 8)
	case strings.Contains(v, ":"):
		for _, part := range strings.Split(v, ":") {
			d, err := strconv.Atoi(part)
			if err != nil {
				return Node{}, fmt.Errorf("invalid integer %q", text)
			}
			z.Mul(z, big.NewInt(60))
			z.Add(z, big.NewInt(int64(d)))
		}
	default:
		_, ok = z.SetString(v, 10)
	}
	if !ok {
		return Node{}, fmt.Errorf("invalid integer %q", text)
	}
	if sign < 0 {
		z.Neg(z)
	}
	if z.IsInt64() {
		return Node{Kind: Int, Int: z.Int64()}, nil
	}
	return Node{Kind: Int, BigInt: z}, nil
}

// IntDigits counts the digits of an integer's text without its sign and
// underscores: a base prefix (0b, 0x) and base-60 colons are not digits.
func IntDigits(v string) int {
	if strings.HasPrefix(v, "0b") || strings.HasPrefix(v, "0x") {
		v = v[2:]
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != ':' && c != '_' {
			n++
		}
	}
	return n
}

// DigitsError is an integer with more digits than the limit allows.
type DigitsError struct{ Digits, Limit int }

func (e *DigitsError) Error() string {
	return fmt.Sprintf("an integer of %d digits, more than the limit of %d digits", e.Digits, e.Limit)
}

// parseFloat is PyYAML's construct_yaml_float. Its cost is linear in the
// text however many digits or however large an exponent it has:
// strconv.ParseFloat keeps a bounded number of digits and stops counting an
// exponent past the float range.
func parseFloat(text string) (Node, error) {
	v := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	sign := 1.0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	var f float64
	switch {
	case v == ".inf":
		f = math.Inf(1)
	case v == ".nan":
		f = math.NaN()
	case strings.Contains(v, ":"):
		for _, part := range strings.Split(v, ":") {
			d, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return Node{}, fmt.Errorf("invalid float %q", text)
			}
			f = f*60 + d
		}
	default:
		var err error
		f, err = strconv.ParseFloat(v, 64)
		if err != nil {
			var ne *strconv.NumError
			if !(errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)) {
				return Node{}, fmt.Errorf("invalid float %q", text)
			}
		}
	}
	return Node{Kind: Float, Float: sign * f}, nil
}

// parseTimestamp is PyYAML's construct_yaml_timestamp: a date, or a date-time
// whose fraction is kept to microseconds, UTC for Z, an offset for ±h[h][:mm].
func parseTimestamp(text string) (Node, error) {
	m := reTSParts.FindStringSubmatch(text)
	if m == nil {
		return Node{}, fmt.Errorf("invalid timestamp %q", text)
	}
	atoi := func(s string) int { i, _ := strconv.Atoi(s); return i }
	year, month, day := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || year < 1 {
		return Node{}, fmt.Errorf("invalid date %q: day is out of range for month", text)
	}
	if m[4] == "" {
		return Node{Kind: Timestamp, Time: &Time{T: time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), DateOnly: true}}, nil
	}
	hour, minute, sec := atoi(m[4]), atoi(m[5]), atoi(m[6])
	if hour > 23 || minute > 59 || sec > 59 {
		return Node{}, fmt.Errorf("invalid time in %q", text)
	}
	frac := m[7]
	if len(frac) > 6 {
		frac = frac[:6]
	}
	for len(frac) < 6 {
		frac += "0"
	}
	micro := atoi(frac)
	loc := time.UTC
	hasZone := false
	if m[8] != "" {
		hasZone = true
		if m[8] != "Z" {
			off := atoi(m[10])*3600 + atoi(m[11])*60
			if m[9] == "-" {
				off = -off
			}
			if off <= -86400 || off >= 86400 {
				return Node{}, fmt.Errorf("invalid zone offset in %q", text)
			}
			loc = time.FixedZone("", off)
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, micro*1000, loc)
	return Node{Kind: Timestamp, Time: &Time{T: t, HasZone: hasZone}}, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// mayBeNonString is a cheap filter before the resolver's regular expressions:
// ints, floats and timestamps start with a sign, a digit or a dot (null and
// bool words were handled already), so most plain scalars — names, URLs,
// identifiers — skip the regular expressions entirely.
func mayBeNonString(v string) bool {
	switch c := v[0]; {
	case c >= '0' && c <= '9', c == '-', c == '+', c == '.':
		return true
	}
	return false
}

package yaml11

import (
	"fmt"
	"math/big"
	"time"

	"github.com/celine-eu/governanced/internal/textpos"
)

// Kind is the type a YAML value resolved to.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Timestamp
	Map
	Seq
)

var kindNames = [...]string{"null", "bool", "int", "float", "string", "timestamp", "map", "seq"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Pos is a 1-based line and column in the source text: the domain's one
// position type.
type Pos = textpos.Pos

// Node is one loaded YAML value. Exactly the fields for its Kind are meaningful.
// Aliases share the anchor's Node, so a Node must be treated as read-only.
//
// A tree holds a Node per value of the document, and a tree check reads
// every document of a tree: the fields are ordered, and the rare timestamp kept behind a pointer, so that a Node fits
// Go's 128-byte size class instead of the 160-byte one (a fifth less memory
// per value).
type Node struct {
	Kind Kind
	Bool bool
	// Anchored is whether the document anchored this node, so that aliases
	// may share it. A walk that remembers the collections it has visited,
	// so that a "billion laughs" document costs time linear in its text,
	// need remember only these: every other node is reached through one
	// parent, or as the value of an anchored mapping's pair that merge keys
	// copied, once per mapping that lists the pair.
	Anchored bool
	Pos      Pos

	Int    int64    // Kind Int when it fits in 64 bits
	BigInt *big.Int // Kind Int when it does not (then Int is 0)
	Float  float64
	Str    string // Kind String: the value; other scalars: the source text as written
	Time   *Time  // Kind Timestamp; nil for every other kind

	Pairs []Pair  // Kind Map: in document order after merge keys and duplicates
	Items []*Node // Kind Seq
}

// Pair is one mapping entry.
type Pair struct {
	Key, Value *Node
}

// Time is a YAML 1.1 timestamp: a date, or a date-time with or without a zone.
type Time struct {
	T        time.Time // in its own zone; UTC when HasZone is false
	DateOnly bool
	HasZone  bool
}

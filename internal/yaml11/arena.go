package yaml11

// Arena holds the values of documents read one after another, each read
// once and dropped (ParseDocumentIn): a tree check converts every file of
// a tree to a Node tree it walks a few times and then drops. Allocated
// from the heap, those trees were a quarter of the bytes a tree's check
// allocated, and so of the garbage its collections chase; read into an
// arena, a document's nodes reuse the memory of the one before.
//
// Everything ParseDocumentIn returns is valid until Reset, which zeroes
// it: a caller must copy out any node it keeps (Node.Clone). An Arena is
// not safe for concurrent use.
type Arena struct {
	nodes chunks[Node]
	pairs chunks[Pair]
	items chunks[*Node]
}

// Reset zeroes every value the arena handed out, for it to hand out again.
func (a *Arena) Reset() {
	a.nodes.reset()
	a.pairs.reset()
	a.items.reset()
}

// chunks hands out parts of slices it keeps between resets.
type chunks[T any] struct {
	list [][]T
	cur  int // the chunk being handed out
	used int // of list[cur]
}

// maxChunk bounds a chunk's elements; a larger request has a chunk of its
// own size.
const maxChunk = 4096

// take returns n zero values in a slice of capacity n.
func (c *chunks[T]) take(n int) []T {
	for {
		if c.cur < len(c.list) {
			if ch := c.list[c.cur]; c.used+n <= len(ch) {
				part := ch[c.used : c.used+n : c.used+n]
				c.used += n
				return part
			}
			if c.cur+1 < len(c.list) {
				c.cur, c.used = c.cur+1, 0
				continue
			}
		}
		size := 256
		if k := len(c.list); k > 0 {
			size = min(2*len(c.list[k-1]), maxChunk)
		}
		c.list = append(c.list, make([]T, max(size, n)))
		c.cur, c.used = len(c.list)-1, 0
	}
}

// reset zeroes what was handed out, so that nothing it pointed to is kept
// alive, and starts again from the first chunk.
func (c *chunks[T]) reset() {
	for i := 0; i <= c.cur && i < len(c.list); i++ {
		if i == c.cur {
			clear(c.list[i][:c.used])
		} else {
			clear(c.list[i])
		}
	}
	c.cur, c.used = 0, 0
}

// node is a new Node holding v: from the arena, or the heap without one.
func (b *builder) node(v Node) *Node {
	if b.arena == nil {
		n := v
		return &n
	}
	n := &b.arena.nodes.take(1)[0]
	*n = v
	return n
}

// pairs is an empty list with room for n pairs.
func (b *builder) pairList(n int) []Pair {
	if b.arena == nil {
		return make([]Pair, 0, n)
	}
	return b.arena.pairs.take(n)[:0]
}

// itemList is an empty list with room for n items.
func (b *builder) itemList(n int) []*Node {
	if b.arena == nil {
		return make([]*Node, 0, n)
	}
	return b.arena.items.take(n)[:0]
}

// Clone is a copy of n and everything under it on the heap, sharing what
// n shares (an alias's node is copied once): what a caller keeps of a
// document read into an Arena.
func (n *Node) Clone() *Node {
	return cloneNode(n, map[*Node]*Node{})
}

func cloneNode(n *Node, seen map[*Node]*Node) *Node {
	if n == nil {
		return nil
	}
	if n.Anchored {
		if c, ok := seen[n]; ok {
			return c
		}
	}
	c := *n
	if n.Anchored {
		seen[n] = &c
	}
	if n.Pairs != nil {
		c.Pairs = make([]Pair, len(n.Pairs))
		for i, p := range n.Pairs {
			c.Pairs[i] = Pair{Key: cloneNode(p.Key, seen), Value: cloneNode(p.Value, seen)}
		}
	}
	if n.Items != nil {
		c.Items = make([]*Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = cloneNode(it, seen)
		}
	}
	return &c
}

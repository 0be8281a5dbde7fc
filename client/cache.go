package client

import (
	"container/list"
	"sync"
)

// entry is one cached answer: its body and the validator to ask again with.
type entry struct {
	etag     string
	revision string // the Governance-Revision it was derived from
	body     []byte
}

// cache keeps the last answer of each request, the least recently used
// dropped first beyond max entries.
type cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cached, most recent first
	byKey map[string]*list.Element
}

type cached struct {
	key string
	entry
}

func newCache(max int) *cache {
	return &cache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *cache) get(key string) (entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return entry{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cached).entry, true
}

func (c *cache) put(key string, e entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max <= 0 {
		return
	}
	if el, ok := c.byKey[key]; ok {
		el.Value.(*cached).entry = e
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&cached{key, e})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cached).key)
	}
}

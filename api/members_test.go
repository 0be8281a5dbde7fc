package api

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestMemberTable: equal members have one number and distinct ones their
// own, across the table's growth, pages filled to the byte, a member
// longer than a page and an empty one; past the limit no member is
// taken, a known one still is.
func TestMemberTable(t *testing.T) {
	tab := memberTable{limit: 1 << 30}
	var members [][]byte
	for i := range 5000 {
		members = append(members, fmt.Appendf(nil, `"m":%d%s`, i, strings.Repeat("x", i%97)))
	}
	members = append(members, bytes.Repeat([]byte("L"), 3*memberPage+5), nil, []byte(strings.Repeat("p", memberPage-7)))
	ids := map[uint32]string{}
	for round := range 2 {
		for _, m := range members {
			id, ok := tab.id(m)
			if !ok {
				t.Fatalf("%.20q refused", m)
			}
			if was, seen := ids[id]; seen && was != string(m) {
				t.Fatalf("number %d is %.20q and %.20q", id, was, m)
			}
			if round == 1 && ids[id] != string(m) {
				t.Fatalf("%.20q has another number the second time", m)
			}
			ids[id] = string(m)
		}
	}
	if len(ids) != len(members) {
		t.Errorf("%d numbers for %d members", len(ids), len(members))
	}
	for id, m := range ids {
		if got := tab.member(id); string(got) != m {
			t.Fatalf("member %d: %.20q, want %.20q", id, got, m)
		}
	}
	held := tab.bytes()
	tab.limit = held + 3
	if _, ok := tab.id([]byte("four")); ok {
		t.Error("a member past the limit was taken")
	}
	if _, ok := tab.id([]byte("abc")); !ok {
		t.Error("a member within the limit was refused")
	}
	if id, ok := tab.id(members[7]); !ok || ids[id] != string(members[7]) {
		t.Error("a known member was refused past the limit")
	}
}

// TestMemberTableConcurrent: writers adding the same members at once (go
// test -race), each reading back members another numbered while pages and
// blocks of places are added, read each as it was written.
func TestMemberTableConcurrent(t *testing.T) {
	tab := memberTable{limit: 1 << 30}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				m := fmt.Appendf(nil, "%d-%s", i, strings.Repeat("y", i%500))
				id, ok := tab.id(m)
				if !ok {
					t.Error("refused")
					return
				}
				if got := tab.member(id); !bytes.Equal(got, m) {
					t.Errorf("member %d: %q, want %q", id, got, m)
					return
				}
			}
		}()
	}
	wg.Wait()
}

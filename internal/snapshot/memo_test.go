package snapshot

import (
	"testing"

	"github.com/celine-eu/governanced/internal/testfs"
)

// otherPart is a second kind of kept part, which no server keeps beside
// its first.
type otherPart struct{ Mark }

// TestMemoKeepsOneKindAndNoNil: a part newPart makes nil is not kept (made
// again when next asked for); a part of a second kind on an app holding
// parts of a first is made at each call and kept nowhere, leaving the
// first kind's parts, their bytes and their sweep as they were.
func TestMemoKeepsOneKindAndNoNil(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "defaults: {}\nsources:\n  k0: {title: t0}\n  k1: {title: t1}\n"})
	loader := &Loader{Inputs: Inputs{Trees: []string{dir}}}
	store := NewStore(loader)
	if rs := store.Reload(t.Context(), true); rs.Outcome != Activated {
		t.Fatalf("load: %v %v", rs.Outcome, rs.Err)
	}
	app := store.Current().App("a")
	k0, k1 := app.Dataset(0), app.Dataset(1)
	calls := 0
	none := func(*Dataset) (*textPart, int64) { calls++; return nil, 0 }
	for range 2 {
		if p, made := Memo(k0, none); p != nil || made {
			t.Fatalf("a nil part: %v, made %v", p, made)
		}
	}
	if calls != 2 {
		t.Errorf("a nil part made %d times in two calls, want 2: it is not kept", calls)
	}
	text := func(d *Dataset) (*textPart, int64) { return &textPart{text: d.ID()}, 100 }
	if p, made := Memo(k1, text); p.text != "k1" || !made {
		t.Fatalf("k1: %q, made %v", p.text, made)
	}
	others := 0
	other := func(*Dataset) (*otherPart, int64) { others++; return new(otherPart), 7 }
	for range 2 {
		if p, made := Memo(k1, other); p == nil || made {
			t.Fatalf("a second kind: %v, made %v", p, made)
		}
	}
	if others != 2 {
		t.Errorf("a second kind made %d times in two calls, want 2", others)
	}
	if n := app.MemoBytes(); n != 100 {
		t.Errorf("%d bytes kept, want the first kind's 100", n)
	}
	app.SweepMemos(0, 1<<40) // marks k1 unread
	if _, forgot := app.SweepMemos(0, 1<<40); forgot != 100 {
		t.Errorf("the sweep forgot %d bytes, want 100", forgot)
	}
}

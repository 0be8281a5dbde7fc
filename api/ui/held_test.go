package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// TestBannerNamesHeldApps: while an app is held, every page's banner says
// which, links to it, and says that the rest is served as its files say;
// an app that never passed is named as not served.
func TestBannerNamesHeldApps(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.a: {expose: true}\n",
		"apps/b/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.b: {expose: true}\n",
	})
	store := snapshot.NewStoreWith(&snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{dir}}}, snapshot.StoreOptions{IsolateApps: true})
	store.Reload(context.Background(), true)
	h := handler(store)
	if p := get(t, h, "/ui/datasets"); strings.Contains(p.text(), "Held at their last good version") {
		t.Error("a banner before anything was held")
	}
	testfs.Write(t, dir, map[string]string{"apps/a/governance.yaml": "sources: [\n", "apps/new/governance.yaml": "sources: [\n"})
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Held {
		t.Fatalf("%v (%v)", st.Outcome, st.Err)
	}
	for _, target := range []string{"/ui/", "/ui/datasets", "/ui/apps/b"} {
		p := get(t, h, target)
		text := p.text()
		for _, want := range []string{"The last reload was held", "every app as its files say but those held",
			"Held at their last good version, since their files fail the check: a (since", "new (since", "never passed, not served"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the banner does not say %q:\n%s", target, want, text)
			}
		}
		if !slices.Contains(p.hrefs(), "/ui/apps/a") {
			t.Errorf("%s: the banner does not link the held app", target)
		}
	}
}

// TestBannerSaysPersisted: a page served from a state directory's revision
// says so, and when it was kept.
func TestBannerSaysPersisted(t *testing.T) {
	saved := time.Date(2025, 4, 1, 8, 30, 0, 0, time.UTC)
	store, good := snapshottest.Restored(t, saved)
	text := get(t, handler(store), "/ui/").text()
	for _, want := range []string{"The last reload was rejected", "Serving revision " + shortRevision(good.Revision) + ", kept in the state directory on " + when(saved), "the tree on disk cannot be served"} {
		if !strings.Contains(text, want) {
			t.Errorf("the banner does not say %q:\n%s", want, text)
		}
	}
}

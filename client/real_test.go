package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/client"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testfs"
	"github.com/celine-eu/governanced/internal/testserve"
)

// TestAgainstTheBinary runs governanced serve as a deployment runs it, on
// a copy of the real tree: every dataset is answered as the server answers
// it, an edit to a file is seen once the client's watch reports the reload
// (no timed wait: the edit is visible on the first read after the event),
// and after the server stops every answer the client had is still given,
// marked stale.
func TestAgainstTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tree, owners := testserve.RealTree(t)
	srv := testserve.Start(t, testserve.Binary(t), "--tree", tree, "--owners", owners, "--reload-debounce", "20ms")
	c, err := client.New(srv.Base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Watch(ctx)
	waitFor(t, c, "the stream", func(rev string, live bool) bool { return live })

	items, err := c.Datasets(ctx, client.DatasetFilter{})
	if err != nil {
		t.Fatal(err)
	}
	testcorpus.AtLeast(t, "datasets of the real tree", len(items), 174)
	var opts = map[string][]client.ReadOption{}
	for _, it := range items {
		q := ""
		if status, _ := getJSON(t, srv.Base+"/datasets/"+escape(it.ID)+"/rule"); status == http.StatusConflict {
			opts[it.ID], q = []client.ReadOption{client.InApp(it.App)}, "?app="+it.App
		}
		rule, err := c.Rule(ctx, it.ID, opts[it.ID]...)
		if err != nil {
			t.Fatalf("%s: %v", it.ID, err)
		}
		exp, err := c.Exposure(ctx, it.ID, opts[it.ID]...)
		if err != nil {
			t.Fatal(err)
		}
		_, want := getJSON(t, srv.Base+"/datasets/"+escape(it.ID)+"/rule"+q)
		if diff := cmp.Diff(withoutNulls(want), withoutNulls(asJSON(t, rule))); diff != "" {
			t.Errorf("rule of %s (-server +client):\n%s", it.ID, diff)
		}
		_, want = getJSON(t, srv.Base+"/datasets/"+escape(it.ID)+"/exposure"+q)
		if diff := cmp.Diff(withoutNulls(want), withoutNulls(asJSON(t, exp))); diff != "" {
			t.Errorf("exposure of %s (-server +client):\n%s", it.ID, diff)
		}
	}

	// An edit: the client answers it on its first read after the reload.
	const id = "datasets.ds_dev_gold.grid_wind_risks"
	before, err := c.Rule(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	testfs.Replace(t, tree, "apps/grid/governance.yaml", "retention_days: 365", "retention_days: 366")
	edited := time.Now()
	waitFor(t, c, "the edit's reload", func(rev string, live bool) bool { return rev != before.Revision })
	after, err := c.Rule(ctx, id)
	if err != nil || after.Rule.RetentionDays == nil || *after.Rule.RetentionDays != 366 {
		t.Fatalf("after the reload: %+v, %v; want retention_days 366", after, err)
	}
	// A figure for the record, not an assertion: from the write to the
	// client answering it (the server's debounce, its reload, the event).
	t.Logf("the edit answered %v after the write (--reload-debounce 20ms)", time.Since(edited).Round(time.Millisecond))

	// The server stops: what the client had is still answered, stale.
	if err := srv.Stop(); err != nil {
		t.Errorf("the server's exit: %v\n%s", err, srv.Log())
	}
	waitFor(t, c, "the stream to end", func(rev string, live bool) bool { return !live })
	var stale *client.StaleError
	for _, it := range items {
		rule, err := c.Rule(ctx, it.ID, opts[it.ID]...)
		if !errors.As(err, &stale) || rule == nil || rule.Dataset != it.ID || stale.Revision != rule.Revision {
			t.Fatalf("%s with the server stopped: %+v, %v; want the cached rule, stale", it.ID, rule, err)
		}
	}
	last, err := c.Rule(ctx, id)
	if !errors.As(err, &stale) || stale.Revision != after.Revision || *last.Rule.RetentionDays != 366 {
		t.Errorf("%s with the server stopped: %+v, %v; want the answer of the last revision %s", id, last, err, after.Revision)
	}
}

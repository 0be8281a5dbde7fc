// Package client is the Go client of governanced: the answers of the served
// governance tree as typed values, cached by their ETag, kept current by
// following the server's reloads, and still answered from the cache when the
// server cannot be reached.
//
// One client serves a whole process: it is safe for concurrent use.
//
//	c, err := client.New("http://governanced:8080")
//	go c.Watch(ctx) // follow reloads: cached answers of the served revision need no request
//	rule, err := c.Rule(ctx, "datasets.ds_dev_gold.meters_data_15m")
//	var stale *client.StaleError
//	if errors.As(err, &stale) {
//		// the server could not be asked: rule is the last answer it gave,
//		// from stale.Revision; use it or not, the caller chooses
//	}
//
// Every answer of the served tree carries the revision it was derived from,
// which is also its ETag. The client keeps the answers it received, keyed
// by request, and asks again with If-None-Match (a 304 costs the server no
// work). While Watch follows GET /events, an answer of the revision the
// server last reported is current and is returned without a request; a
// reload makes every older answer ask again. When the server cannot be
// reached (no connection, or 502/503/504), the last answer is returned with
// a *StaleError that says from which revision it is and why it is stale.
//
// The types mirror openapi.yaml's schemas field for field (a test holds them
// to it), with the library's names: a Rule is the set-field view of a
// resolved governance rule, where a field the files do not state is nil or
// empty.
//
// The package imports the standard library only, so that any service can
// take it without governanced's own dependencies.
package client

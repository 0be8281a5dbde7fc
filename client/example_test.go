package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"path/filepath"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/client"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// exampleServer serves the API's test tree (three apps: meters with a
// deployer overlay, weather governed by globs, twin) and returns its URL
// and a function that takes it down.
func exampleServer() (string, func()) {
	tree, err := filepath.Abs("../api/testdata/tree")
	if err != nil {
		log.Fatal(err)
	}
	store := snapshot.NewStore(&snapshot.Loader{Inputs: snapshot.Inputs{
		Trees: []string{tree}, Owners: []string{filepath.Join(tree, "owners.yaml")},
	}})
	if st := store.Reload(context.Background(), true); st.Err != nil {
		log.Fatal(st.Err)
	}
	streams, end := context.WithCancel(context.Background())
	srv := httptest.NewServer(api.NewServer(api.Deps{Store: store, Streams: streams}))
	return srv.URL, func() { end(); srv.CloseClientConnections(); srv.Close() }
}

// A consumer's whole use: the rule of a dataset name, its gates, its facet.
func Example() {
	url, stop := exampleServer()
	defer stop()
	ctx := context.Background()

	c, err := client.New(url)
	if err != nil {
		log.Fatal(err)
	}
	rule, err := c.Rule(ctx, "datasets.gold.meters")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rule.App, *rule.Rule.AccessLevel, rule.Rule.Ownership[0].Name)
	fmt.Println("catalogue:", rule.Exposure.Expose, "dataspace:", rule.Exposure.DataspaceExpose)
	// Output:
	// meters restricted example-rec
	// catalogue: true dataspace: false
}

// A lineage extractor's facet: its own producer, the dataspace fields left
// out, and none at all for a rule the library calls empty.
func ExampleClient_Facet() {
	url, stop := exampleServer()
	defer stop()
	ctx := context.Background()
	c, _ := client.New(url)

	const name = "datasets.gold.weather_wind"
	rule, err := c.Rule(ctx, name)
	if err != nil {
		log.Fatal(err)
	}
	if rule.IsEmpty {
		return
	}
	facet, err := c.Facet(ctx, name, client.Producer("https://github.com/celine-eu/celine-utils"), client.WithoutDataspace())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(facet.Producer, *facet.License, facet.Tags)
	// Output: https://github.com/celine-eu/celine-utils CC-BY-4.0 [gold weather]
}

// Following reloads: while Watch runs, answers of the served revision are
// given without a request, and a reload makes the next read ask again.
func ExampleClient_Watch() {
	url, stop := exampleServer()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := client.New(url)

	go c.Watch(ctx)
	for {
		changed := c.Changed()
		if _, live := c.Revision(); live {
			break
		}
		<-changed
	}
	exp, _ := c.Exposure(ctx, "datasets.gold.offer") // asked once, then answered from the cache
	fmt.Println(exp.DataspaceExpose)
	// Output: true
}

// When the server cannot be reached, the last answer comes back with a
// *StaleError: the caller decides whether it will do.
func ExampleStaleError() {
	url, stop := exampleServer()
	ctx := context.Background()
	c, _ := client.New(url)
	if _, err := c.Exposure(ctx, "datasets.gold.offer"); err != nil {
		log.Fatal(err)
	}
	stop() // the server goes away

	exp, err := c.Exposure(ctx, "datasets.gold.offer")
	var stale *client.StaleError
	if errors.As(err, &stale) {
		fmt.Println("stale:", exp.DataspaceExpose)
	}
	// Output: stale: true
}

// Checking one document before it is committed, as the server will check
// it once it is served.
func ExampleClient_Validate() {
	url, stop := exampleServer()
	defer stop()
	// With authentication on, POSTs need the token: client.WithToken.
	c, _ := client.New(url)

	doc := []byte("defaults: {access_level: internal}\nsources:\n  ds.gold.meters: {title: Meters, colour: blue}\n")
	rep, err := c.Validate(context.Background(), doc, client.ValidateOptions{Strict: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range rep.Findings {
		fmt.Println(f.Severity, f.Code, *f.File, *f.Line)
	}
	fmt.Println("passes:", rep.OK)
	// Output:
	// warning unknown-key governance.yaml 3
	// passes: false
}

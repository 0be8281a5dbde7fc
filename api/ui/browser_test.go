package ui_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
)

// The browser tests drive headless Chromium against a running server. They
// need a browser: CHROMIUM_PATH, else chromium, chromium-browser or
// google-chrome on PATH (Debian: apt-get install chromium). Without one they
// fail rather than skip, so that CI, which installs it (.ci/run), cannot pass
// without running them; `go test -short` leaves them out on a machine with
// no browser.
//
// With GOVERNANCED_UI_SCREENSHOTS set to a directory (relative to the
// repository's root), TestBrowserPages also saves the screenshots the README
// shows there.

func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if testing.Short() {
		t.Skip("no Chromium, and -short: the browser tests are left out")
	}
	t.Fatal("no Chromium to drive: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH; the browser tests do not skip")
	return ""
}

// browser starts Chromium and opens a tab; console is what the tab has
// reported as an error since the last reset.
func browser(t *testing.T) (context.Context, *console) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // as root in a container
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	tab, tcancel := chromedp.NewContext(actx)
	t.Cleanup(tcancel)
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("Chromium did not start: %v", err)
	}
	c := &console{}
	if err := chromedp.Listen(tab, c.add); err != nil {
		t.Fatal(err)
	}
	return tab, c
}

// console collects the errors a page reports: console.error, uncaught
// exceptions, and the browser's own log (a refused script or style, a
// resource that failed to load).
type console struct {
	mu   sync.Mutex
	errs []string
}

func (c *console) add(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			msg = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
		}
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			msg = "log: " + ev.Entry.Text + " " + ev.Entry.URL
		}
	}
	if msg != "" {
		c.mu.Lock()
		c.errs = append(c.errs, msg)
		c.mu.Unlock()
	}
}

// take returns the errors so far and forgets them.
func (c *console) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := c.errs
	c.errs = nil
	return errs
}

// visit loads a page and waits until it and what it links have loaded.
func visit(t *testing.T, tab context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	settle(t, tab)
}

// settle waits for the document to finish loading.
func settle(t *testing.T, tab context.Context) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.readyState === "complete"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not finish loading: %v", err)
	}
}

func eval[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor waits until a JavaScript expression is true. A navigation
// destroys the context an evaluation runs in, so an error while one is
// under way is a reason to ask again, not a failure.
func waitFor(t *testing.T, tab context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var lastErr error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		lastErr = err
		time.Sleep(50 * time.Millisecond)
	}
	loc, _ := chromedp.Run(tab, chromedp.Location())
	rows, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("table.datasets tbody tr").length`))
	t.Fatalf("waiting for %s at %s (%d rows in the datasets table): %v", js, loc, rows, lastErr)
}

// waitRows waits until the page at the address where is true has loaded
// with n rows in its datasets table: a navigation's new document replaces
// the old one at a moment the test does not choose.
func waitRows(t *testing.T, tab context.Context, where string, n int) {
	t.Helper()
	waitFor(t, tab, where+` && document.readyState === "complete" && document.querySelectorAll("table.datasets tbody tr").length === `+strconv.Itoa(n))
}

func rowCount(t *testing.T, tab context.Context) int {
	return eval[int](t, tab, `document.querySelectorAll("table.datasets tbody tr").length`)
}

func text(t *testing.T, tab context.Context, selector string) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(selector)))
	if err != nil {
		t.Fatalf("%s: %v", selector, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

func setScheme(t *testing.T, tab context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Fatal(err)
	}
}

func demoServer(t *testing.T) *httptest.Server {
	t.Helper()
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Owners: []string{demo.OwnersFile}}, FS: demo.FS()})
	srv := httptest.NewServer(api.NewServer(api.Deps{Store: store, Version: "demo"}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBrowserPages loads every page of the demo tree in Chromium with no
// console error, narrows the datasets table with its filters (the form, and
// the script that applies a menu at once), finds a dataset through a glob
// from the header search, and checks the keyboard, a phone's width and the
// dark theme.
func TestBrowserPages(t *testing.T) {
	srv := demoServer(t)
	tab, errs := browser(t)
	setScheme(t, tab, "light")

	pages := []string{
		"/ui/", "/ui/datasets", "/ui/datasets?q=meters&expose=true",
		"/ui/datasets/datasets.demo_gold.community_energy_daily", "/ui/datasets/datasets.demo_silver.meters_raw",
		"/ui/datasets/nothing?app=weather", "/ui/apps", "/ui/apps/meters", "/ui/owners", "/ui/owners/example-rec", "/ui/report",
		"/ui/graph", "/ui/graph?overlays=false",
	}
	for _, p := range pages {
		visit(t, tab, srv.URL+p)
		if e := errs.take(); len(e) > 0 {
			t.Errorf("%s: console errors:\n%s", p, strings.Join(e, "\n"))
		}
		// The stylesheet applied (a refused or missing one would leave the
		// header without its rule).
		if got := eval[string](t, tab, `getComputedStyle(document.querySelector("header.site")).borderBottomStyle`); got != "solid" {
			t.Errorf("%s: the stylesheet did not apply (header border %q)", p, got)
		}
	}

	t.Run("the graph is drawn", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/graph")
		// A box per pipeline, laid out (a box the browser could not place
		// has no size), and the curve of grid's input from weather.
		boxes := eval[int](t, tab, `[...document.querySelectorAll("svg.graph a.node rect")].filter(r => r.getBBox().width > 0).length`)
		if boxes != 3 {
			t.Errorf("%d boxes drawn, want 3", boxes)
		}
		curves := eval[[]string](t, tab, `[...document.querySelectorAll("svg.graph path.edge title")].map(t => t.textContent)`)
		if len(curves) != 1 || !strings.HasPrefix(curves[0], "weather → grid") {
			t.Errorf("curves %q, want weather → grid", curves)
		}
	})

	t.Run("filters narrow the table", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/datasets")
		if n := rowCount(t, tab); n != 10 {
			t.Fatalf("%d rows before filtering, want 10", n)
		}
		// The form alone: a value set with no event (the script does not
		// see it), then Apply.
		if err := chromedp.Do(tab,
			chromedp.Evaluate[chromedp.Void](`document.getElementById("f-app").value = "meters"`),
			chromedp.Click(chromedp.CSS(`form.filters button[type="submit"]`))); err != nil {
			t.Fatal(err)
		}
		waitRows(t, tab, `location.search === "?app=meters"`, 4)
		// With the script: a menu applies as soon as it changes. SetValue
		// fires input and change, as a choice with the mouse or the
		// keyboard does.
		if err := chromedp.Do(tab, chromedp.SetValue(chromedp.ID("f-class"), "green")); err != nil {
			t.Fatal(err)
		}
		waitRows(t, tab, `location.search.includes("classification=green")`, 1)
		mustHave(t, text(t, tab, "table.datasets tbody"), "datasets.demo_gold.community_energy_daily")
		mustHave(t, text(t, tab, "#count"), "Showing 1–1 of 1 dataset")
		// A glob in the name field.
		visit(t, tab, srv.URL+"/ui/datasets")
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("f-q"), "datasets.*_gold.meters_*\n")); err != nil {
			t.Fatal(err)
		}
		waitRows(t, tab, `location.search.startsWith("?q=")`, 2)
		mustHave(t, text(t, tab, "#count"), "whose key matches the glob datasets.*_gold.meters_*")
		if e := errs.take(); len(e) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(e, "\n"))
		}
	})

	t.Run("the header search finds a dataset through a glob", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/")
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("lookup-name"), "datasets.demo_silver.meters_raw\n")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, `location.pathname === "/ui/datasets/datasets.demo_silver.meters_raw" && document.readyState === "complete"`)
		mustHave(t, text(t, tab, "#match"), "it matches the glob datasets.demo_silver.meters_* of app meters")
		mustHave(t, text(t, tab, "h1"), "datasets.demo_silver.meters_raw")
	})

	t.Run("keyboard", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/datasets")
		if err := chromedp.Do(tab, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		if got := eval[string](t, tab, `document.activeElement.className + " " + document.activeElement.getAttribute("href")`); got != "skip #main" {
			t.Errorf("the first Tab reaches %q, not the skip link", got)
		}
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("/")); err != nil {
			t.Fatal(err)
		}
		if got := eval[string](t, tab, `document.activeElement.id`); got != "lookup-name" {
			t.Errorf("/ focuses %q, not the search", got)
		}
	})

	t.Run("phone width", func(t *testing.T) {
		if err := chromedp.Do(tab, chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2))); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Do(tab, chromedp.EmulateViewport(1280, 900))
		for _, p := range pages {
			visit(t, tab, srv.URL+p)
			if over := eval[int](t, tab, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
				t.Errorf("%s: %dpx wider than a phone's screen", p, over)
			}
		}
	})

	t.Run("dark theme", func(t *testing.T) {
		for scheme, want := range map[string]string{"dark": "rgb(13, 17, 23)", "light": "rgb(255, 255, 255)"} {
			setScheme(t, tab, scheme)
			visit(t, tab, srv.URL+"/ui/")
			if got := eval[string](t, tab, `getComputedStyle(document.body).backgroundColor`); got != want {
				t.Errorf("%s: background %s, want %s", scheme, got, want)
			}
		}
	})

	if dir := os.Getenv("GOVERNANCED_UI_SCREENSHOTS"); dir != "" {
		screenshots(t, tab, srv.URL, dir)
	}
}

// screenshots saves the overview, the datasets table and one dataset at a
// desktop's width in the light theme.
func screenshots(t *testing.T, tab context.Context, base, dir string) {
	t.Helper()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(testcorpus.Root(t)), dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	setScheme(t, tab, "light")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{
		"overview.png": "/ui/",
		"datasets.png": "/ui/datasets",
		"dataset.png":  "/ui/datasets/datasets.demo_gold.community_energy_daily",
	} {
		visit(t, tab, base+page)
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// findScreenshots saves, on the real tree, a search and a pipeline's
// neighbourhood at a desktop's width, and one dataset's rule at a phone's
// (390 pixels, scrolled to the rule), in the light theme.
func findScreenshots(t *testing.T, tab context.Context, base, dir string) {
	t.Helper()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(testcorpus.Root(t)), dir)
	}
	save := func(name string, png []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setScheme(t, tab, "light")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{
		"search.png": "/ui/datasets?per=25&q=Wind+Gust",
		"graph.png":  "/ui/graph?focus=pv_estimation&depth=2",
	} {
		visit(t, tab, base+page)
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		save(name, png)
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	defer chromedp.Do(tab, chromedp.EmulateViewport(1280, 900))
	visit(t, tab, base+"/ui/datasets/datasets.ds_dev_gold.om_wind_gusts")
	eval[bool](t, tab, `document.getElementById("rule-h").scrollIntoView(), true`)
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	save("phone.png", png)
}

// TestBrowserRejectedReload breaks a file of a served tree: the reload is
// rejected, the last good tree stays served, and the overview says what
// the check found and where.
func TestBrowserRejectedReload(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, demo.FS()); err != nil {
		t.Fatal(err)
	}
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Dir: dir, Owners: []string{demo.OwnersFile}}})
	srv := httptest.NewServer(api.NewServer(api.Deps{Store: store}))
	t.Cleanup(srv.Close)
	tab, errs := browser(t)

	visit(t, tab, srv.URL+"/ui/")
	mustHave(t, text(t, tab, "main"), "Outcome activated")
	if n := eval[int](t, tab, `document.querySelectorAll(".banner").length`); n != 0 {
		t.Errorf("a banner before anything failed")
	}

	gov := filepath.Join(dir, "apps", "weather", "governance.yaml")
	body, err := fs.ReadFile(os.DirFS(dir), "apps/weather/governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// An unclosed flow mapping at the end of the file.
	if err := os.WriteFile(gov, append(body, []byte("\nextra_block: {broken: true\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Rejected {
		t.Fatalf("outcome %v (%v)", st.Outcome, st.Err)
	}
	visit(t, tab, srv.URL+"/ui/")
	mustHave(t, text(t, tab, ".banner"), "The last reload was rejected", "Still serving revision")
	mustHave(t, text(t, tab, "#last-reload + dl"), "Outcome rejected")
	findings := text(t, tab, "section[aria-labelledby=last-reload] table")
	mustHave(t, findings, "load-error", "apps/weather/governance.yaml:")
	// The datasets are still served.
	visit(t, tab, srv.URL+"/ui/datasets?app=weather")
	if n := rowCount(t, tab); n != 3 {
		t.Errorf("weather's datasets during the rejection: %d rows, want 3", n)
	}
	if e := errs.take(); len(e) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(e, "\n"))
	}
}

func mustHave(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in %q", w, got)
		}
	}
}

// celineServer serves the 17 real CELINE pipelines with dataset-api's
// owners registry, as governanced serve would.
func celineServer(t *testing.T) *httptest.Server {
	t.Helper()
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{"."},
		Dir:    testcorpus.Path(t, "reference/celine-pipelines"),
		Owners: []string{testcorpus.Path(t, "reference/dataset-api/owners.yaml")},
	}})
	srv := httptest.NewServer(api.NewServer(api.Deps{Store: store, Version: "real"}))
	t.Cleanup(srv.Close)
	return srv
}

// awaited evaluates JavaScript whose value is a promise, and waits for it.
func awaited[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js, func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// TestBrowserFind: on the real tree with dataset-api's owners registry, a
// title's words ("Wind Gust"), a tag ("icon-d2") and an owner's name
// ("Spindox") typed into the datasets table's search, or the header's,
// find the datasets they describe, best first, each saying why; the page
// lists what GET /datasets?q= answers. A pipeline's neighbourhood shows it
// with its producers and consumers only.
func TestBrowserFind(t *testing.T) {
	srv := celineServer(t)
	tab, errs := browser(t)
	setScheme(t, tab, "light")
	keysOnPage := `[...document.querySelectorAll("table.datasets tbody th code")].map(c => c.textContent)`
	for _, c := range []struct {
		q string
		// first are the datasets the first rows hold, in any order; why
		// what the first row's "why" cell says.
		first []string
		why   string
		// each is what every row's owners or app cell holds.
		each, eachIn string
	}{
		{q: "Wind Gust", first: []string{"datasets.ds_dev_gold.dwd_icon_d2_gusts", "datasets.ds_dev_gold.om_wind_gusts"}, why: "title"},
		{q: "icon-d2", first: []string{
			"datasets.ds_dev_gold.dwd_icon_d2_gusts", "datasets.ds_dev_silver.dwd_icon_d2_wind", "datasets.ds_dev_raw.stg_dwd_icon_d2", "datasets.raw.dwd_icon_d2",
			"datasets.ds_dev_gold.dwd_icon_d2_solar_energy", "datasets.ds_dev_silver.dwd_icon_d2_solar_forecast_hourly",
			"datasets.ds_dev_silver.dwd_icon_d2_solar_forecast_interval", "singer.tap-dwd.dwd_icon_d2"}, why: "tag icon-d2"},
		{q: "Spindox", why: "owner Spindox Labs srl (spxl)", each: "spxl", eachIn: "td:last-child"},
	} {
		visit(t, tab, srv.URL+"/ui/datasets")
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("f-q"), c.q+"\n")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, `location.search.startsWith("?q=") && document.readyState === "complete" && document.querySelectorAll("table.datasets tbody tr").length > 0`)
		got := eval[[]string](t, tab, keysOnPage)
		if len(got) < len(c.first) {
			t.Fatalf("%q: %d rows", c.q, len(got))
		}
		if head := slices.Sorted(slices.Values(got[:len(c.first)])); !slices.Equal(head, slices.Sorted(slices.Values(c.first))) {
			t.Errorf("%q: first rows %q, want %q", c.q, got[:len(c.first)], c.first)
		}
		mustHave(t, text(t, tab, "table.datasets tbody tr:first-child td"), c.why)
		if marks := eval[int](t, tab, `document.querySelectorAll("table.datasets mark").length`); marks == 0 {
			t.Errorf("%q: no word marked", c.q)
		}
		if c.each != "" {
			cells := eval[[]string](t, tab, `[...document.querySelectorAll("table.datasets tbody tr `+c.eachIn+`")].map(c => c.textContent)`)
			for _, cell := range cells {
				if !strings.Contains(cell, c.each) {
					t.Errorf("%q: a row without %s: %q", c.q, c.each, cell)
				}
			}
		}
		// The same answer from the API, in the same order.
		api := awaited[[]string](t, tab, `fetch("/datasets?limit=50&q="+encodeURIComponent(`+strconv.Quote(c.q)+`)).then(r => r.json()).then(b => b.items.map(i => i.id))`)
		if !slices.Equal(api, got) {
			t.Errorf("%q: the page lists %q, GET /datasets?q= %q", c.q, got, api)
		}
		if e := errs.take(); len(e) > 0 {
			t.Errorf("%q: console errors:\n%s", c.q, strings.Join(e, "\n"))
		}
	}

	t.Run("the header search", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/")
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("lookup-name"), "Spindox\n")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, `location.pathname === "/ui/datasets" && location.search === "?q=Spindox" && document.readyState === "complete"`)
		mustHave(t, text(t, tab, "#count"), "Showing 1–50 of 60 datasets with every word of Spindox, best first.")
	})

	if dir := os.Getenv("GOVERNANCED_UI_SCREENSHOTS"); dir != "" {
		findScreenshots(t, tab, srv.URL, dir)
	}

	t.Run("a neighbourhood", func(t *testing.T) {
		visit(t, tab, srv.URL+"/ui/apps/weather")
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`a[href="/ui/graph?focus=weather"]`))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, `location.search === "?focus=weather" && document.readyState === "complete"`)
		boxes := eval[[]string](t, tab, `[...document.querySelectorAll("svg.graph a.node")].filter(a => a.querySelector("rect").getBBox().width > 0).map(a => a.querySelector("title").textContent)`)
		slices.Sort(boxes)
		if !slices.Equal(boxes, []string{"mt", "weather"}) {
			t.Errorf("weather's neighbourhood draws %q, want its producer mt and itself", boxes)
		}
		curves := eval[[]string](t, tab, `[...document.querySelectorAll("svg.graph path.edge title")].map(t => t.textContent)`)
		if len(curves) != 1 || !strings.HasPrefix(curves[0], "mt → weather: ") {
			t.Errorf("curves %q", curves)
		}
		if e := errs.take(); len(e) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(e, "\n"))
		}
	})
}

// TestBrowserNarrow: on a phone 390 pixels wide, on the real tree, the
// rule table is stacked rows each as wide as the page, a path wraps only
// at a slash (its file:line:column stays on one line), a key only between
// its parts, and a description's Markdown shows as code, not backticks.
func TestBrowserNarrow(t *testing.T) {
	srv := celineServer(t)
	tab, errs := browser(t)
	setScheme(t, tab, "light")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/ui/datasets/datasets.ds_dev_gold.om_wind_gusts", "/ui/datasets/datasets.ds_dev_silver.dwd_icon_d2_solar_forecast_interval",
		"/ui/apps/grid", "/ui/apps/pv_estimation", "/ui/datasets?q=Wind+Gust", "/ui/graph", "/ui/graph?focus=pv_estimation&depth=2", "/ui/report",
	} {
		visit(t, tab, srv.URL+p)
		if over := eval[int](t, tab, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
			t.Errorf("%s: %dpx wider than the phone", p, over)
		}
		// Every file:line:column on one line: the text after a path's last
		// slash is laid out in one box.
		split := eval[[]string](t, tab, `[...document.querySelectorAll("code.loc")].filter(c => {
			const last = c.lastChild; if (!last || last.nodeType !== Node.TEXT_NODE) return false;
			const r = document.createRange(); r.selectNodeContents(last);
			return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1;
		}).map(c => c.textContent)`)
		if len(split) > 0 {
			t.Errorf("%s: a file and its line and column on two lines: %q", p, split)
		}
		// A key breaks between its parts only: each part of it on one line.
		broken := eval[[]string](t, tab, `[...document.querySelectorAll("code.key")].flatMap(c => [...c.childNodes]).filter(n => {
			if (n.nodeType !== Node.TEXT_NODE || n.textContent.length < 2) return false;
			const r = document.createRange(); r.selectNodeContents(n);
			return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1;
		}).map(n => n.textContent)`)
		if len(broken) > 0 {
			t.Errorf("%s: a part of a key across two lines: %q", p, broken)
		}
	}

	visit(t, tab, srv.URL+"/ui/datasets/datasets.ds_dev_gold.om_wind_gusts")
	if got := eval[string](t, tab, `getComputedStyle(document.querySelector("table.rule tbody tr")).display`); got != "block" {
		t.Errorf("the rule table's rows display as %q, not stacked", got)
	}
	narrow := eval[[]string](t, tab, `(() => { const w = document.querySelector("table.rule").getBoundingClientRect().width;
		return [...document.querySelectorAll("table.rule tbody td")].filter(td => td.getBoundingClientRect().width < 0.9 * w).map(td => td.textContent.slice(0, 40)); })()`)
	if len(narrow) > 0 {
		t.Errorf("cells narrower than the table: %q", narrow)
	}
	if got := eval[string](t, tab, `getComputedStyle(document.querySelector("table.rule tbody td"), "::before").content`); got != `"Value"` {
		t.Errorf("a stacked value is labelled %s", got)
	}

	visit(t, tab, srv.URL+"/ui/apps/grid")
	desc := eval[[]string](t, tab, `[...document.querySelectorAll("td.prose")].map(td => td.innerHTML)`)
	joined := strings.Join(desc, "\n")
	if strings.Contains(joined, "`") || !strings.Contains(joined, "<code>mt</code>") || !strings.Contains(joined, "<code>dbt/models/sources.yml</code>") {
		t.Errorf("grid's descriptions:\n%s", joined)
	}
	if e := errs.take(); len(e) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(e, "\n"))
	}
}

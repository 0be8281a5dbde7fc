package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
)

// TestDemoPages renders every page of the demo tree and reads what a
// person would: names, values and where each value was written.
func TestDemoPages(t *testing.T) {
	store := demoStore(t)
	h := handler(store)
	rev := store.Current().Revision
	for _, tt := range []struct {
		target string
		status int
		want   []string
	}{
		{"/ui/", 200, []string{"Overview", "Serving revision " + rev, "Apps 3", "Sources keys 10", "Glob patterns 4",
			"Offered into the dataspace 1", "Owners in the registry 4", "Outcome activated", "0 errors"}},
		{"/ui/datasets", 200, []string{"Showing 1–10 of 10 datasets", "datasets.demo_gold.community_energy_daily", "datasets.demo_silver.meters_* glob", "example-rec"}},
		{"/ui/datasets/datasets.demo_gold.community_energy_daily", 200, []string{
			"Declared by app meters as the sources key datasets.demo_gold.community_energy_daily",
			"Base apps/meters/governance.yaml, overlay apps/meters/governance.meters.yaml",
			"Catalogue listed and served by the API", "Dataspace offered into the dataspace",
			"access_level restricted apps/meters/governance.meters.yaml:8:19 overlay.source",
			"classification green apps/meters/governance.yaml:64:21 source",
			"dataspace.expose true apps/meters/governance.meters.yaml:10:15 overlay.source",
			"merged from 2 layers",
			"Owned by Example Renewable Energy Community",
			"Served whole, deliberately: row_filters is stated as an empty list",
			`"_producer": "https://github.com/celine-eu/governanced"`,
		}},
		{"/ui/datasets/datasets.demo_gold.meters_15m", 200, []string{
			"retention_days 730 apps/meters/governance.meters.yaml:14:21 overlay.source",
			"Rows are narrowed by 1 filter (row_filters)", "handler rec_registry, args {\"column\":\"device_id\"}",
			"Dataspace not offered",
		}},
		// A name only a glob matches, and the glob's own page.
		{"/ui/datasets/datasets.demo_silver.meters_raw", 200, []string{
			"No app declares this name; it matches the glob datasets.demo_silver.meters_* of app meters",
			"expose false", "Catalogue not listed"}},
		{"/ui/datasets/" + url.PathEscape("datasets.demo_silver.meters_*"), 200, []string{"as the sources key datasets.demo_silver.meters_*, a glob"}},
		// Inside one app, a name no key matches is the defaults alone.
		{"/ui/datasets/nothing.here?app=meters", 200, []string{"No sources key of app meters matches this name: it resolves to the app’s defaults alone",
			"access_level internal apps/meters/governance.yaml:12:17 defaults"}},
		{"/ui/datasets/nothing.here", 404, []string{"No dataset nothing.here", "No app declares \"nothing.here\" and no glob matches it", "grid", "meters", "weather"}},
		{"/ui/datasets/x?app=nope", 404, []string{"No app called \"nope\" is served"}},
		{"/ui/apps", 200, []string{"3 apps are served, with 10 sources keys: 7 listed in the catalogue, 1 offered into the dataspace",
			"meters apps/meters/governance.yaml apps/meters/governance.meters.yaml overlay 4 3 1 0 none"}},
		{"/ui/apps/meters", 200, []string{"Base file apps/meters/governance.yaml", "Overlay apps/meters/governance.meters.yaml",
			"tags deployment-trento meters", "datasets.*_silver.meters_readings_normalized external"}},
		{"/ui/apps/nope", 404, []string{"No app called \"nope\" is served"}},
		{"/ui/owners", 200, []string{"example-rec Example Renewable Energy Community schema:NGO did:web:rec.example.org rec 4"}},
		{"/ui/owners/rec", 200, []string{"Example Renewable Energy Community", "Id example-rec (asked for as rec)", "DID did:web:rec.example.org",
			"4 datasets name this owner", "datasets.demo_gold.meters_15m"}},
		{"/ui/owners/nobody", 404, []string{"No owner has the id or alias \"nobody\""}},
		{"/ui/report", 200, []string{"0 errors, 0 warnings, 0 infos", "No finding."}},
		{"/ui/nowhere", 404, []string{"There is no page at /ui/nowhere"}},
		{"/ui/datasets?expose=maybe", 400, []string{"expose must be true or false, not \"maybe\""}},
		{"/ui/datasets?page=9223372036854775807", 400, []string{"page must be a whole number from 1 to 1000000000"}},
		{"/ui/datasets?per=0", 400, []string{"per must be a whole number from 1 to 250"}},
		{"/ui/report?severity=fatal", 400, []string{"severity must be error, warning or info"}},
	} {
		p := get(t, h, tt.target)
		if p.status != tt.status {
			t.Errorf("%s: status %d, want %d\n%s", tt.target, p.status, tt.status, p.text())
			continue
		}
		mustContain(t, tt.target, p.text(), tt.want...)
		if p.header.Get("Governance-Revision") != rev {
			t.Errorf("%s: Governance-Revision %q", tt.target, p.header.Get("Governance-Revision"))
		}
		// Every page shows the revision it was read from.
		mustContain(t, tt.target, p.text(), "Revision "+shortRevision(rev))
	}
}

// TestDatasetFilters narrows the demo's table by each filter and compares the
// rows with what the snapshot says of every dataset.
func TestDatasetFilters(t *testing.T) {
	store := demoStore(t)
	h := handler(store)
	snap := store.Current()
	for _, tt := range []struct {
		query string
		keep  func(id, app string) bool
	}{
		// A word: the keys and the app holding it (TestDatasetSearch
		// holds the order, best first).
		{"q=meters", func(id, app string) bool { return strings.Contains(id, "meters") || app == "meters" }},
		{"q=" + url.QueryEscape("datasets.demo_gold.*_1?"), func(id, _ string) bool {
			return governance.CompileGlob("datasets.demo_gold.*_1?").Match(id)
		}},
		{"app=weather", func(_, app string) bool { return app == "weather" }},
		{"expose=false", func(id, app string) bool { d, _ := snap.ResolveIn(app, id); return !d.Expose }},
		{"dataspace_expose=true", func(id, _ string) bool { return id == "datasets.demo_gold.community_energy_daily" }},
		{"access_level=open", func(_, app string) bool { return app == "weather" }},
		{"classification=yellow", func(id, app string) bool {
			d, _ := snap.ResolveIn(app, id)
			return d.Rule().Classification != nil && *d.Rule().Classification == "yellow"
		}},
		{"owner=dso", func(_, app string) bool { return app == "grid" }}, // an alias finds its owner
		{"owner=celine", func(_, app string) bool { return app == "weather" }},
		{"app=meters&expose=true&classification=green", func(id, _ string) bool { return id == "datasets.demo_gold.community_energy_daily" }},
	} {
		var want []string
		for _, d := range snap.Datasets() {
			if tt.keep(d.ID(), d.App.Name) {
				want = append(want, d.ID())
			}
		}
		if len(want) == 0 || len(want) == len(snap.Datasets()) {
			t.Errorf("%s: keeps %d of %d: the case tests nothing", tt.query, len(want), len(snap.Datasets()))
		}
		p := get(t, h, "/ui/datasets?"+tt.query)
		var got []string
		for _, row := range p.rows("Served datasets") {
			got = append(got, strings.TrimSuffix(strings.SplitN(row, " | ", 2)[0], " glob"))
		}
		if strings.HasPrefix(tt.query, "q=meters") {
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", tt.query, got, want)
		}
		mustContain(t, tt.query, p.text(), fmt.Sprintf("of %s", plural(len(want), "dataset", "datasets")))
	}
}

// TestDatasetPaging walks the demo's table three rows at a time.
func TestDatasetPaging(t *testing.T) {
	h := handler(demoStore(t))
	var all []string
	target := "/ui/datasets?per=3"
	for pages := 0; target != ""; pages++ {
		if pages > 4 {
			t.Fatal("more pages than 10 datasets make")
		}
		p := get(t, h, target)
		all = append(all, p.rows("Served datasets")...)
		target = ""
		for _, a := range p.all("a") {
			if attr(a, "rel") == "next" {
				target = attr(a, "href")
			}
		}
		if pages == 1 {
			mustContain(t, "page 2", p.text(), "Showing 4–6 of 10 datasets", "Page 2 of 4")
		}
	}
	if len(all) != 10 {
		t.Errorf("%d rows over every page, want 10", len(all))
	}
	if p := get(t, h, "/ui/datasets?per=3&page=9"); p.status != 200 || !strings.Contains(p.text(), "There is no page 9: the table has 4 pages") {
		t.Errorf("page 9: %d %s", p.status, p.text())
	}
	// The form sends empty fields; the address to share has none.
	p := get(t, h, "/ui/datasets?q=&app=meters&expose=&per=50")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/ui/datasets?app=meters" {
		t.Errorf("empty fields: %d to %q", p.status, p.header.Get("Location"))
	}
}

// TestLookup: the header search goes to a dataset page for any name that
// resolves (a glob included), and to the table otherwise.
func TestLookup(t *testing.T) {
	h := handler(demoStore(t))
	for name, want := range map[string]string{
		"datasets.demo_silver.meters_raw": "/ui/datasets/datasets.demo_silver.meters_raw",
		" datasets.demo_gold.meters_1h ":  "/ui/datasets/datasets.demo_gold.meters_1h",
		"datasets.demo_silver.meters_*":   "/ui/datasets/datasets.demo_silver.meters_%2A",
		"*community*":                     "/ui/datasets?q=%2Acommunity%2A",
		"nothing":                         "/ui/datasets?q=nothing",
		"":                                "/ui/datasets",
	} {
		p := get(t, h, "/ui/lookup?name="+url.QueryEscape(name))
		if p.status != http.StatusSeeOther || p.header.Get("Location") != want {
			t.Errorf("%q: %d to %q, want %q", name, p.status, p.header.Get("Location"), want)
		}
	}
	// The glob search finds the dataset it names.
	p := get(t, h, "/ui/datasets?q="+url.QueryEscape("*community*"))
	mustContain(t, "*community*", p.text(), "Showing 1–1 of 1 dataset whose key matches the glob *community*", "datasets.demo_gold.community_energy_daily")
}

// TestCelinePages renders every dataset of the 17 real pipelines and finds,
// for every path of its rule, the file, line and column that wrote it; and
// the report page, whose every finding names its place.
func TestCelinePages(t *testing.T) {
	store := celineStore(t)
	h := handler(store)
	snap := store.Current()
	paths := 0
	for _, d := range snap.Datasets() {
		target := datasetURL(d.ID(), d.App.Name)
		p := get(t, h, target)
		if p.status != 200 {
			t.Errorf("%s: %d", target, p.status)
			continue
		}
		text := p.text()
		mustContain(t, target, text, d.ID(), "Base "+d.App.File)
		for _, e := range d.Rule().Provenance() {
			want := e.Path + " "
			loc := location(e.Layer.File, int(e.Line), int(e.Column)) + " " + e.Layer.Name
			if !strings.Contains(text, want) || !strings.Contains(text, loc) {
				t.Errorf("%s: %s written at %s is not on the page", target, e.Path, loc)
			}
			paths++
		}
	}
	if paths < 1000 {
		t.Errorf("only %d paths over %d datasets", paths, len(snap.Datasets()))
	}

	rep := snap.Report()
	if len(rep.Findings) == 0 {
		t.Fatal("the real tree has no finding: the report page tests nothing")
	}
	codes := map[string]int{}
	for _, f := range rep.Findings {
		codes[f.Code]++
	}
	p := get(t, h, "/ui/report")
	text := p.text()
	for code, n := range codes {
		mustContain(t, "report", text, fmt.Sprintf("%s %d", code, n), check.CodeDescription(code))
		rows := p.rows("Findings of code " + code)
		if len(rows) != min(n, groupLimit) {
			t.Errorf("report: %s lists %d of %d", code, len(rows), n)
		}
	}
	for _, f := range rep.Findings[:min(len(rep.Findings), 50)] {
		mustContain(t, "report", text, location(f.File, f.Line, f.Column)+" ")
	}
	// Each finding about a dataset links to it in its app.
	hrefs := p.hrefs()
	for _, f := range rep.Findings {
		if f.Dataset == nil {
			continue
		}
		d, err := snap.Resolve(*f.Dataset)
		if err != nil {
			continue
		}
		if u := datasetURL(*f.Dataset, d.App.Name); !slices.Contains(hrefs, u) {
			t.Errorf("report: no link to %s", u)
		}
		break
	}
	// A code alone lists all of its findings.
	for code, n := range codes {
		if got := len(get(t, h, "/ui/report?code="+code).rows("Findings of code " + code)); got != n {
			t.Errorf("report?code=%s: %d rows, want %d", code, got, n)
		}
	}
	// Owners: dataset-api's registry, with what names each.
	op := get(t, h, "/ui/owners")
	for _, e := range snap.Owners.All() {
		mustContain(t, "owners", op.text(), e.ID)
	}
	for _, name := range snap.OwnershipNames() {
		if len(snap.OwnedBy(name)) == 0 {
			t.Errorf("%s owns nothing", name)
		}
		mustContain(t, "owner "+name, get(t, h, ownerURL(name)).text(), plural(len(snap.OwnedBy(name)), "dataset names", "datasets name"))
	}
	// Every app's page.
	for _, a := range snap.Apps() {
		if p := get(t, h, appURL(a.Name)); p.status != 200 || !strings.Contains(p.text(), "Base file "+a.File) {
			t.Errorf("%s: %d", appURL(a.Name), p.status)
		}
	}
}

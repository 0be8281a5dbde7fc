package ui

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// hostileTree states values a page must show as text: markup in a key, a
// title, a description, an ownership name and an extra key.
var hostileTree = map[string]string{
	"apps/evil/governance.yaml": `depends_on:
  - dataset: "datasets.x<script>alert(1)</script>"
    description: "<img src=x onerror=alert(2)>"
  - dataset: "datasets.<b>nobody</b>*"
defaults:
  ownership:
    - name: '"><img src=x onerror=alert(1)>'
      type: DATA_OWNER
sources:
  "datasets.x<script>alert(1)</script>":
    title: "<script>alert('title')</script>"
    description: "javascript:alert(1)"
    expose: true
    row_filters: []
    "on<b>click</b>": "<style>body{display:none}</style>"
`,
}

// pagesOf are the pages a test visits on a tree: every page kind.
func pagesOf(snap *snapshot.Snapshot) []string {
	out := []string{"/ui/", "/ui/datasets", "/ui/apps", "/ui/owners", "/ui/report", "/ui/graph", "/ui/graph?overlays=false", "/ui/datasets?q=x", "/ui/nowhere", "/ui/datasets/no.such.name"}
	for _, a := range snap.Apps() {
		// The app, its neighbourhood in the graph, and a search by its
		// name (every dataset of it, each saying why).
		out = append(out, appURL(a.Name), graphURL(a.Name, 1, true), datasetsURL("q", a.Name+" "+a.Name[:1]))
		for _, d := range a.Datasets()[:min(3, a.DatasetCount())] {
			out = append(out, datasetURL(d.ID(), ""), datasetURL(d.ID(), a.Name))
		}
	}
	for _, name := range snap.OwnershipNames() {
		out = append(out, ownerURL(name))
	}
	return out
}

// TestPagesAreSafe: on the demo tree and on a tree of hostile values, every
// page carries the security headers, holds no inline script, style or
// event handler (the CSP would refuse them, and they would be a way in),
// and shows every value as text.
func TestPagesAreSafe(t *testing.T) {
	hostile := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{testfs.Tree(t, hostileTree)}}})
	for name, store := range map[string]*snapshot.Store{"demo": demoStore(t), "hostile": hostile} {
		h := handler(store)
		targets := pagesOf(store.Current())
		for _, target := range targets {
			p := get(t, h, target)
			if p.doc == nil {
				t.Errorf("%s %s: %d %s, not HTML", name, target, p.status, p.header.Get("Content-Type"))
				continue
			}
			for k, want := range map[string]string{
				"Content-Security-Policy": contentSecurityPolicy,
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "same-origin",
			} {
				if got := p.header.Get(k); got != want {
					t.Errorf("%s %s: %s %q", name, target, k, got)
				}
			}
			if !strings.Contains(contentSecurityPolicy, "script-src 'self'") || strings.Contains(contentSecurityPolicy, "unsafe") {
				t.Fatalf("the policy allows inline code: %s", contentSecurityPolicy)
			}
			checkNoInline(t, name+" "+target, p.doc)
		}
	}
	// The hostile values are on the pages, as text.
	h := handler(hostile)
	key := "datasets.x<script>alert(1)</script>"
	p := get(t, h, datasetURL(key, ""))
	if p.status != 200 {
		t.Fatalf("the hostile dataset: %d", p.status)
	}
	mustContain(t, "hostile dataset", p.text(), key, "<script>alert('title')</script>", "javascript:alert(1)", `"><img src=x onerror=alert(1)>`,
		"extra.on<b>click</b>", "<style>body{display:none}</style>")
	if n := len(p.all("img")) + len(p.all("style")) + len(p.all("b")); n != 0 {
		t.Errorf("the hostile values made %d elements", n)
	}
	for _, target := range []string{"/ui/datasets", "/ui/owners", "/ui/graph", "/ui/apps/evil", "/ui/datasets?q=" + "%3Cscript%3E"} {
		p := get(t, h, target)
		if p.status != 200 || len(p.all("img"))+len(p.all("b")) != 0 {
			t.Errorf("%s: %d, or hostile values made elements", target, p.status)
		}
		if target == "/ui/graph" || target == "/ui/apps/evil" {
			mustContain(t, target, p.text(), "datasets.<b>nobody</b>*")
		}
	}
}

// checkNoInline fails for a script without src, a style element or
// attribute, an event handler attribute or a javascript: URL.
func checkNoInline(t *testing.T, what string, n *html.Node) {
	t.Helper()
	if n.Type == html.ElementNode {
		switch n.Data {
		case "script":
			if src := attr(n, "src"); !strings.HasPrefix(src, Prefix+"/static/") || n.FirstChild != nil {
				t.Errorf("%s: an inline or foreign script (src %q)", what, src)
			}
		case "style":
			t.Errorf("%s: a style element", what)
		}
		for _, a := range n.Attr {
			switch {
			case a.Key == "style", strings.HasPrefix(a.Key, "on"):
				t.Errorf("%s: <%s %s=%q>", what, n.Data, a.Key, a.Val)
			case (a.Key == "href" || a.Key == "src" || a.Key == "action") && !strings.HasPrefix(a.Val, "/") && !strings.HasPrefix(a.Val, "#") && a.Val != "data:,":
				t.Errorf("%s: <%s %s=%q> leaves the server", what, n.Data, a.Key, a.Val)
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		checkNoInline(t, what, c)
	}
}

// TestPagesAreAccessible holds every page of the demo and the real tree to
// the structure assistive technology reads: a skip link to the main
// region, one h1, a label for every form control, tables with a caption
// and header cells with a scope, the current section marked, the page's
// language, and ids that are unique.
func TestPagesAreAccessible(t *testing.T) {
	for name, store := range map[string]*snapshot.Store{"demo": demoStore(t), "celine": celineStore(t)} {
		h := handler(store)
		for _, target := range pagesOf(store.Current()) {
			p := get(t, h, target)
			what := name + " " + target
			if htmlEl := p.all("html"); len(htmlEl) != 1 || attr(htmlEl[0], "lang") != "en" {
				t.Errorf("%s: no lang", what)
			}
			if len(p.all("h1")) != 1 {
				t.Errorf("%s: %d h1", what, len(p.all("h1")))
			}
			if m := p.all("main"); len(m) != 1 || attr(m[0], "id") != "main" {
				t.Errorf("%s: no main#main", what)
			}
			if a := p.all("a"); len(a) == 0 || attr(a[0], "href") != "#main" {
				t.Errorf("%s: the first link is not the skip link", what)
			}
			ids := map[string]bool{}
			var labels []string
			for _, l := range p.all("label") {
				labels = append(labels, attr(l, "for"))
			}
			for _, tag := range []string{"input", "select", "button", "table", "th", "section", "nav"} {
				for _, n := range p.all(tag) {
					switch tag {
					case "input", "select":
						if attr(n, "type") == "hidden" {
							continue // carries a reading along; no one fills it in
						}
						if id := attr(n, "id"); id == "" || !contains(labels, id) {
							t.Errorf("%s: <%s name=%q> has no label", what, tag, attr(n, "name"))
						}
					case "table":
						if nodeText(firstChild(n, "caption")) == "" {
							t.Errorf("%s: a table without a caption", what)
						}
					case "th":
						if s := attr(n, "scope"); s != "col" && s != "row" {
							t.Errorf("%s: <th>%s</th> without scope", what, nodeText(n))
						}
					case "section":
						if !hasAttr(n, "aria-labelledby") && !hasAttr(n, "aria-label") {
							t.Errorf("%s: a section without a name", what)
						}
					case "nav":
						if !hasAttr(n, "aria-label") {
							t.Errorf("%s: a nav without a name", what)
						}
					}
				}
			}
			var walk func(n *html.Node)
			walk = func(n *html.Node) {
				if id := attr(n, "id"); n.Type == html.ElementNode && id != "" {
					if ids[id] {
						t.Errorf("%s: id %q twice", what, id)
					}
					ids[id] = true
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(p.doc)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCaching: a page answers 304 to its own ETag until the tree or the
// reload status changes; HEAD answers as GET without a body; the
// stylesheet at its hashed address may be kept for good.
func TestCaching(t *testing.T) {
	store := demoStore(t)
	h := handler(store)
	p := get(t, h, "/ui/datasets")
	etag := p.header.Get("ETag")
	if etag == "" || p.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, p.header.Get("Cache-Control"))
	}
	if p := get(t, h, "/ui/datasets", "If-None-Match", etag); p.status != http.StatusNotModified || len(p.body) != 0 {
		t.Errorf("If-None-Match: %d", p.status)
	}
	store.Reload(context.Background(), false) // unchanged, but a reload: the overview shows it
	if p := get(t, h, "/ui/datasets", "If-None-Match", etag); p.status != http.StatusOK {
		t.Errorf("after a reload: %d", p.status)
	}
	req := httpRequest(http.MethodHead, "/ui/")
	rec := recorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD /ui/: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	css := get(t, h, New(Options{Store: store}).assetURL("ui.css"))
	if css.status != 200 || !strings.Contains(css.header.Get("Cache-Control"), "immutable") || css.header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("ui.css: %d %v", css.status, css.header)
	}
	if stale := get(t, h, "/ui/static/ui.css?v=old"); stale.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an old hash: %q", stale.header.Get("Cache-Control"))
	}
	if p := get(t, h, "/ui/static/nope.js"); p.status != 404 {
		t.Errorf("a missing file: %d", p.status)
	}
}

// TestRejectedReload: a reload that breaks a file leaves the last good tree
// served, and the overview says what the check found and where; every page
// carries the banner.
func TestRejectedReload(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"apps/a/governance.yaml": "defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true}\n"})
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Dir: dir}})
	served := store.Current().Revision
	h := handler(store)
	if p := get(t, h, "/ui/"); strings.Contains(p.text(), "rejected") || len(p.all("div")) == 0 {
		t.Fatalf("before: %s", p.text())
	}
	if err := os.WriteFile(filepath.Join(dir, "apps/a/governance.yaml"), []byte("defaults: {row_filters: []}\nsources:\n  ds.x: {expose: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Rejected {
		t.Fatalf("outcome %v", st.Outcome)
	}
	p := get(t, h, "/ui/")
	mustContain(t, "overview", p.text(), "The last reload was rejected", "1 error", "Still serving revision "+shortRevision(served),
		"Outcome rejected", "Serving revision "+served)
	rows := p.rows("What the check found in the rejected tree")
	if len(rows) == 0 || !strings.Contains(rows[0], "error | load-error | apps/a/governance.yaml:") {
		t.Errorf("rejected findings: %v", rows)
	}
	if p := get(t, h, "/ui/datasets"); !strings.Contains(p.text(), "The last reload was rejected") || !strings.Contains(p.text(), "ds.x") {
		t.Errorf("the datasets page during a rejection: %s", p.text())
	}
}

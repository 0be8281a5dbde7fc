package ui

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"golang.org/x/net/html"

	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/treegen"
)

// demoStore serves the demo tree `governanced serve` serves by default.
func demoStore(t testing.TB) *snapshot.Store {
	t.Helper()
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Owners: []string{demo.OwnersFile}}, FS: demo.FS()})
}

// celineStore serves the 17 real CELINE pipelines with dataset-api's
// owners registry, display paths relative to the pipelines' repository.
func celineStore(t testing.TB) *snapshot.Store {
	t.Helper()
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:  []string{"."},
		Dir:    testcorpus.Path(t, "reference/celine-pipelines"),
		Owners: []string{testcorpus.Path(t, "reference/dataset-api/owners.yaml")},
	}})
}

// handler mounts the pages as api/routes.go does, with the snapshot's
// dependency graph.
func handler(store *snapshot.Store) http.Handler {
	return handlerWith(Options{Store: store, Version: "test", Graph: (*snapshot.Snapshot).GraphOf})
}

func handlerWith(opts Options) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.GetHead)
	r.Route(Prefix, New(opts).Routes)
	return r
}

type page struct {
	status int
	header http.Header
	body   []byte
	doc    *html.Node
}

func get(t testing.TB, h http.Handler, target string, header ...string) page {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	p := page{status: rec.Code, header: rec.Header(), body: bytes.Clone(rec.Body.Bytes())}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		doc, err := html.Parse(bytes.NewReader(p.body))
		if err != nil {
			t.Fatalf("%s: not HTML: %v", target, err)
		}
		p.doc = doc
	}
	return p
}

// text is the page's visible text with runs of white space as one space,
// as a reader sees it.
func (p page) text() string {
	if p.doc == nil {
		return ""
	}
	return nodeText(p.doc)
}

// all returns every element named tag.
func (p page) all(tag string) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if p.doc != nil {
		walk(p.doc)
	}
	return out
}

// hrefs are the targets of every link.
func (p page) hrefs() []string {
	var out []string
	for _, a := range p.all("a") {
		out = append(out, attr(a, "href"))
	}
	return out
}

// rows are the text of each row of the tables whose caption contains
// caption, cells joined by " | ".
func (p page) rows(caption string) []string {
	var out []string
	for _, table := range p.all("table") {
		if !strings.Contains(nodeText(firstChild(table, "caption")), caption) {
			continue
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" {
				var cells []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
						cells = append(cells, nodeText(c))
					}
				}
				out = append(out, strings.Join(cells, " | "))
				return
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(table)
	}
	return out
}

func firstChild(n *html.Node, tag string) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			return c
		}
	}
	return nil
}

// blocks are the elements that break a line of text: text on either side
// of one is two words, while inline elements (a, code, span) join.
var blocks = map[string]bool{
	"address": true, "article": true, "aside": true, "br": true, "button": true, "caption": true, "dd": true, "details": true,
	"div": true, "dl": true, "dt": true, "footer": true, "form": true, "h1": true, "h2": true, "h3": true, "header": true,
	"input": true, "label": true, "li": true, "main": true, "nav": true, "ol": true, "option": true, "p": true, "pre": true,
	"section": true, "select": true, "summary": true, "table": true, "td": true, "th": true, "tr": true, "ul": true,
}

func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		block := n.Type == html.ElementNode && blocks[n.Data]
		if block {
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

// mustContain fails for each want the text lacks.
func mustContain(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q in\n%s", what, w, text)
		}
	}
}

func httpRequest(method, target string) *http.Request {
	return httptest.NewRequest(method, target, nil)
}

func recorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// pipelinesStore serves a generated many-pipelines tree of apps apps of
// 100 sources each (treegen.GeneratePipelines, gen_tree.py's shape): broad
// depends_on entries between apps, overlays beside 30% of them.
func pipelinesStore(t testing.TB, apps int) *snapshot.Store {
	t.Helper()
	tree := treegen.GeneratePipelines(treegen.PipelinesOptions{Apps: apps, Sources: 100, Seed: 1})
	dir := t.TempDir()
	if err := tree.Write(dir); err != nil {
		t.Fatal(err)
	}
	return snapshottest.Loaded(t, &snapshot.Loader{Inputs: snapshot.Inputs{
		Trees:       []string{dir},
		Owners:      []string{filepath.Join(dir, "owners.yaml")},
		OverlayName: tree.Options.OverlayName,
	}})
}

package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/snapshot"
)

//go:embed templates static
var files embed.FS

// Options are what the pages need from the process.
type Options struct {
	// Store holds the snapshot the pages show. Required.
	Store *snapshot.Store
	// Version is shown in every page's footer.
	Version string
	// Graph is the snapshot's pipeline dependency graph in one of its two
	// readings: the base files (graph.md's, what `governanced graph`
	// prints), or with overlays, each base merged with its overlay. Nil
	// leaves out the graph page and the producers and consumers.
	Graph func(snap *snapshot.Snapshot, overlays bool) *graph.Graph
	// OnError is told of a page that failed to render (a bug: the view
	// models are this package's own); nil ignores it. The visitor gets a
	// plain 500 either way.
	OnError func(r *http.Request, err error)
}

// Pages serves the web page. Its handlers are registered by the caller
// (Routes), under /ui.
type Pages struct {
	store   *snapshot.Store
	version string
	onError func(*http.Request, error)
	graph   func(*snapshot.Snapshot, bool) *graph.Graph
	tmpl    map[string]*template.Template // page name → layout + page
	assets  map[string]asset              // static file name → content
	// derived is what the pages count over the whole tree, for the
	// snapshot it was worked out from.
	derived atomic.Pointer[derived]
	// derivedMu makes one request work out a new revision's counts while
	// the others wait for it, rather than all of them at once.
	derivedMu sync.Mutex
}

type asset struct {
	body        []byte
	hash        string // hex SHA-256, first 16 digits: the version in its URL
	contentType string
}

// Prefix is where the pages are mounted; every link they write is absolute
// under it.
const Prefix = "/ui"

// pageNames are the templates under templates/, each rendered inside
// layout.html.
var pageNames = []string{"overview", "datasets", "dataset", "choose", "apps", "app", "owners", "owner", "report", "graph", "error"}

// New returns the pages over opts.Store. It panics when an embedded template
// does not parse: that is a build defect, found by every test.
func New(opts Options) *Pages {
	p := &Pages{store: opts.Store, version: opts.Version, onError: opts.OnError, graph: opts.Graph,
		tmpl: map[string]*template.Template{}, assets: map[string]asset{}}
	static, _ := fs.Sub(files, "static")
	entries, err := fs.ReadDir(static, ".")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := fs.ReadFile(static, e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ct := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}[path.Ext(e.Name())]
		p.assets[e.Name()] = asset{body: body, hash: hex.EncodeToString(sum[:8]), contentType: ct}
	}
	funcs := p.funcs()
	for _, name := range pageNames {
		p.tmpl[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return p
}

// Routes registers every page on r, which the caller mounts at Prefix:
// GET only, HEAD answering as GET. (A router's GetHead does not reach into
// a mounted one, which routes HEAD itself.)
func (p *Pages) Routes(r chi.Router) {
	r.Use(middleware.GetHead, securityHeaders)
	r.Get("/", p.withSnapshot(p.overview))
	r.Get("/datasets", p.withSnapshot(p.datasets))
	r.Get("/datasets/{id}", p.withSnapshot(p.dataset))
	r.Get("/lookup", p.withSnapshot(p.lookup))
	r.Get("/apps", p.withSnapshot(p.apps))
	r.Get("/apps/{app}", p.withSnapshot(p.app))
	r.Get("/owners", p.withSnapshot(p.owners))
	r.Get("/owners/{key}", p.withSnapshot(p.owner))
	r.Get("/report", p.withSnapshot(p.report))
	r.Get("/graph", p.withSnapshot(p.graphPage)) // 404 when the pages are given no graph
	r.Get("/static/{name}", p.static)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		p.fail(w, r, http.StatusNotFound, "No such page", "There is no page at "+r.URL.Path+".")
	})
}

// contentSecurityPolicy allows the page's own stylesheet, script and images
// and nothing inline: every value on a page is the tree's, written by
// people outside this server, and the template engine's escaping is one
// defence; refusing inline script is the second.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// static serves an embedded file. A URL carrying the file's current hash
// (as every page writes it) may be cached for good; any other is
// revalidated by its ETag.
func (p *Pages) static(w http.ResponseWriter, r *http.Request) {
	a, ok := p.assets[chi.URLParam(r, "name")]
	if !ok {
		p.fail(w, r, http.StatusNotFound, "No such file", "There is no file "+r.URL.Path+".")
		return
	}
	h := w.Header()
	etag := `"` + a.hash + `"`
	h.Set("ETag", etag)
	if r.URL.Query().Get("v") == a.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if httpread.ETagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
}

// assetURL is a static file's URL with its content hash.
func (p *Pages) assetURL(name string) string {
	return Prefix + "/static/" + name + "?v=" + p.assets[name].hash
}

// A pageFunc answers a request from one snapshot, so that everything it shows
// is of one revision.
type pageFunc func(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot)

// withSnapshot hands a page the snapshot to show, or answers that none is
// loaded yet.
func (p *Pages) withSnapshot(h pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		snap := p.store.Current()
		if snap == nil {
			w.Header().Set("Retry-After", "1")
			p.fail(w, r, http.StatusServiceUnavailable, "Not loaded yet", "The server has not loaded its first tree yet; try again in a moment.")
			return
		}
		h(w, r, snap)
	}
}

// etag is a page's entity tag: what a page shows is a function of its URL,
// the revision, the last reload (every page's banner) and the templates.
func (p *Pages) etag(snap *snapshot.Snapshot) string {
	var b strings.Builder
	b.WriteString(`"ui-`)
	rev := strings.TrimPrefix(snap.Revision, "sha256:")
	b.WriteString(rev[:min(16, len(rev))])
	if st := p.store.LastReload(); st != nil {
		b.WriteByte('-')
		b.WriteString(strconv.FormatInt(st.At.UnixNano(), 36))
	}
	b.WriteByte('-')
	b.WriteString(templatesHash)
	b.WriteByte('"')
	return b.String()
}

// templatesHash tells builds with different templates apart in an ETag.
var templatesHash = func() string {
	h := sha256.New()
	_ = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(files, name)
			h.Write([]byte(name))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:6])
}()

// render writes page name with its view, or a 304 when the client's copy
// is current (status 200 only). It renders into a buffer first, so a
// failure is a clean 500 rather than half a page.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	if v.snap != nil {
		h.Set("Governance-Revision", v.snap.Revision)
		if status == http.StatusOK {
			etag := p.etag(v.snap)
			h.Set("ETag", etag)
			h.Set("Cache-Control", "no-cache")
			if httpread.ETagMatches(r.Header.Get("If-None-Match"), etag) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
	}
	if status != http.StatusOK {
		h.Set("Cache-Control", "no-store")
	}
	var buf bytes.Buffer
	if err := p.tmpl[name].Execute(&buf, v); err != nil {
		if p.onError != nil {
			p.onError(r, err)
		}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("the page failed to render; the server's log has the request id\n"))
		return
	}
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// errorView is the body of the error page.
type errorView struct {
	Heading, Detail string
	// Links are ways on: pages that may hold what was looked for.
	Links []link
}

type link struct{ Text, URL string }

// fail answers an error page: never problem+json, since a person reads it.
func (p *Pages) fail(w http.ResponseWriter, r *http.Request, status int, heading, detail string, links ...link) {
	v := p.newView(r, p.store.Current(), "", heading)
	v.Body = errorView{Heading: heading, Detail: detail, Links: links}
	p.render(w, r, status, "error", v)
}

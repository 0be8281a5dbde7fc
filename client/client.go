package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client reads a governanced server. Create it with New; it is safe for
// concurrent use.
type Client struct {
	base      *url.URL
	http      *http.Client
	token     string
	userAgent string
	cache     *cache
	idle      time.Duration // how long Watch waits for a byte before it reconnects

	mu      sync.Mutex
	watched watchState
	changed chan struct{} // closed when watched changes
}

// watchState is what Watch knows of the server: the revision it serves,
// and whether a stream is following it now.
type watchState struct {
	revision string
	live     bool
}

// An Option configures a Client.
type Option func(*Client)

// WithToken sends Authorization: Bearer token with every request (the
// server requires it for POSTs when authentication is on).
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient sends the requests through hc instead of a client with a
// 30-second timeout. Watch's stream is not bounded by hc.Timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithCacheEntries keeps at most n answers (default 10000), the least
// recently used dropped first; 0 keeps none.
func WithCacheEntries(n int) Option { return func(c *Client) { c.cache = newCache(n) } }

// WithUserAgent names the calling service in the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// DefaultCacheEntries is how many answers a client keeps by default.
const DefaultCacheEntries = 10000

// New returns a client of the server at baseURL (http://host:port, with a
// path prefix when the server is behind one).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("governanced client: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("governanced client: base URL %q: want http(s)://host[:port][/prefix]", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	c := &Client{
		base:      u,
		http:      &http.Client{Timeout: 30 * time.Second},
		userAgent: "governanced-client-go",
		cache:     newCache(DefaultCacheEntries),
		idle:      time.Minute,
		changed:   make(chan struct{}),
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// StaleError is returned with an answer the server could not be asked
// for: the last answer it gave, from Revision. Err says why it could not
// be asked (no connection, or a 502, 503 or 504 problem). The caller
// decides whether a stale answer will do.
type StaleError struct {
	Revision string // the revision the answer was derived from
	Err      error
}

func (e *StaleError) Error() string {
	return "governanced: answered from the cache (revision " + e.Revision + "), stale: " + e.Err.Error()
}

func (e *StaleError) Unwrap() error { return e.Err }

func (p *Problem) Error() string {
	msg := "governanced: " + strconv.Itoa(p.Status) + " " + p.Title
	if p.Detail != "" {
		msg += ": " + p.Detail
	}
	return msg
}

// Kind is the problem's type without the documentation prefix:
// dataset-not-found, ambiguous-dataset, unresolved-owners, …
func (p *Problem) Kind() string {
	if _, kind, ok := strings.Cut(p.Type, "#problem-"); ok {
		return kind
	}
	return p.Type
}

// IsNotFound reports whether err is the server saying there is no such
// dataset, app, owner, pipeline or schema.
func IsNotFound(err error) bool {
	var p *Problem
	return errors.As(err, &p) && p.Status == http.StatusNotFound
}

// A ReadOption adds a query parameter to a read of one dataset; the server
// refuses one its route does not take (400).
type ReadOption func(url.Values)

// InApp resolves inside one app: its key, else its longest glob, else its
// defaults alone — the library's resolver of that app's file.
func InApp(app string) ReadOption { return func(q url.Values) { q.Set("app", app) } }

// Explain adds where each field came from (Rule only).
func Explain() ReadOption { return func(q url.Values) { q.Set("explain", "true") } }

// Producer names the facet's _producer (Facet only); the server writes
// its own URL without it.
func Producer(uri string) ReadOption { return func(q url.Values) { q.Set("producer", uri) } }

// WithoutDataspace leaves the dataspace fields out of the facet (Facet
// only), as the lineage extractors emit it.
func WithoutDataspace() ReadOption {
	return func(q url.Values) { q.Set("include_dataspace", "false") }
}

func datasetPath(id, what string) string {
	// A glob key's * must be percent-encoded, and PathEscape leaves it.
	return "/datasets/" + strings.ReplaceAll(url.PathEscape(id), "*", "%2A") + "/" + what
}

func query(opts []ReadOption) url.Values {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	return q
}

// Rule is the resolved rule of a dataset name: the key declaring it, else
// the longest glob over all apps (InApp for one app's resolution).
func (c *Client) Rule(ctx context.Context, dataset string, opts ...ReadOption) (*RuleBody, error) {
	var v RuleBody
	return answer(&v, c.read(ctx, datasetPath(dataset, "rule"), query(opts), "", &v))
}

// Exposure is a dataset's two gates.
func (c *Client) Exposure(ctx context.Context, dataset string, opts ...ReadOption) (*ExposureBody, error) {
	var v ExposureBody
	return answer(&v, c.read(ctx, datasetPath(dataset, "exposure"), query(opts), "", &v))
}

// Facet is a dataset's OpenLineage governance facet (the library's
// build_facet): pass Producer and, for the lineage extractors' payload,
// WithoutDataspace.
func (c *Client) Facet(ctx context.Context, dataset string, opts ...ReadOption) (*Facet, error) {
	var v Facet
	return answer(&v, c.read(ctx, datasetPath(dataset, "facet"), query(opts), "", &v))
}

// DatasetFilter selects datasets; zero fields select all.
type DatasetFilter struct {
	App             string
	Expose          *bool // the catalogue gate
	DataspaceExpose *bool
	Conflict        *bool
	Tags            []string // every one present
	// AccessLevel and Classification compare normalised: restricted finds
	// rules written secret.
	AccessLevel    string
	Classification string
	// IncludeRule adds each item's resolved rule.
	IncludeRule bool
	// Query is what a person knows of a dataset (GET /datasets?q=): words
	// of its key, title, description, tags, owners, app or source system,
	// in any order, every one found; the items come best first, each with
	// Search. A query holding *, ? or [ is a glob over the keys instead.
	Query string
}

func (f DatasetFilter) query() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	flag := func(k string, b *bool) {
		if b != nil {
			q.Set(k, strconv.FormatBool(*b))
		}
	}
	set("q", f.Query)
	set("app", f.App)
	flag("expose", f.Expose)
	flag("dataspace_expose", f.DataspaceExpose)
	flag("conflict", f.Conflict)
	for _, t := range f.Tags {
		q.Add("tag", t)
	}
	set("access_level", f.AccessLevel)
	set("classification", f.Classification)
	if f.IncludeRule {
		q.Set("include", "rule")
	}
	return q
}

// Datasets is every sources key the filter keeps, in one request (the
// listing streamed as NDJSON, unpaged).
func (c *Client) Datasets(ctx context.Context, f DatasetFilter) ([]DatasetItem, error) {
	var items []DatasetItem
	err := c.read(ctx, "/datasets", f.query(), "application/x-ndjson", func(body []byte) error {
		items = items[:0]
		dec := json.NewDecoder(bytes.NewReader(body))
		for dec.More() {
			var it DatasetItem
			if err := dec.Decode(&it); err != nil {
				return err
			}
			items = append(items, it)
		}
		return nil
	})
	if err != nil && !isStale(err) {
		return nil, err
	}
	return items, err
}

// Owners is the merged owners registry.
func (c *Client) Owners(ctx context.Context) (*OwnerList, error) {
	var v OwnerList
	return answer(&v, c.read(ctx, "/owners", nil, "", &v))
}

// Owner is one owner, by id then alias.
func (c *Client) Owner(ctx context.Context, key string) (*Owner, error) {
	var v Owner
	return answer(&v, c.read(ctx, "/owners/"+url.PathEscape(key), nil, "", &v))
}

// OwnerByURI is the owner registered under a DID or URL; nil when none is.
func (c *Client) OwnerByURI(ctx context.Context, uri string) (*OwnerEntry, error) {
	var v OwnerList
	err := c.read(ctx, "/owners", url.Values{"uri": {uri}}, "", &v)
	if err != nil && !isStale(err) || len(v.Items) == 0 {
		return nil, err
	}
	return &v.Items[0], err
}

// Report is the check report of the served tree.
func (c *Client) Report(ctx context.Context) (*Report, error) {
	var v Report
	return answer(&v, c.read(ctx, "/report", nil, "", &v))
}

// Graph is the pipelines' dependency graph; overlays reads the served
// configurations (each base merged with its overlay) instead of the base
// files.
func (c *Client) Graph(ctx context.Context, overlays bool) (*Graph, error) {
	var v Graph
	var q url.Values
	if overlays {
		q = url.Values{"overlays": {"true"}}
	}
	return answer(&v, c.read(ctx, "/graph", q, "", &v))
}

// GraphFocus is one pipeline's neighbourhood (GET /graph?focus=&depth=):
// the pipelines up to depth edges upstream and downstream of it (1 to 3),
// the edges between them, each in the whole graph's tier, and the findings
// about them. A graph too large to be read whole is read so, one
// pipeline at a time.
func (c *Client) GraphFocus(ctx context.Context, pipeline string, depth int, overlays bool) (*Graph, error) {
	q := url.Values{"focus": {pipeline}, "depth": {strconv.Itoa(depth)}}
	if overlays {
		q.Set("overlays", "true")
	}
	var v Graph
	return answer(&v, c.read(ctx, "/graph", q, "", &v))
}

// Resolve resolves a dataset against a document the caller sends (POST
// /resolve): the library's GovernanceResolver.from_dict(…).resolve(name),
// with owner names resolved as from_file(…, owners=, strict_owners=) does.
func (c *Client) Resolve(ctx context.Context, req ResolveRequest) (*ResolveResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var q url.Values
	if req.Strict {
		q = url.Values{"strict": {"true"}}
	}
	var v ResolveResponse
	if err := c.post(ctx, "/resolve", q, "application/json", body, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ValidateOptions are the check options of one document.
type ValidateOptions struct {
	Strict    bool // warnings fail the report (the library's strict unknown keys)
	Dataspace bool // the dataspace rules of the check
}

// Validate checks one governance document as the server checks the files
// it serves (POST /validate as application/yaml): the library's
// validate(data), with the tree check's every rule. The report says
// whether it passes; err is about the request only.
func (c *Client) Validate(ctx context.Context, document []byte, o ValidateOptions) (*Report, error) {
	q := url.Values{}
	if o.Strict {
		q.Set("strict", "true")
	}
	if o.Dataspace {
		q.Set("dataspace", "true")
	}
	var v Report
	if err := c.post(ctx, "/validate", q, "application/yaml", document, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// answer returns v with err, keeping a stale answer and dropping any other
// on error.
func answer[T any](v *T, err error) (*T, error) {
	if err != nil && !isStale(err) {
		return nil, err
	}
	return v, err
}

func isStale(err error) bool {
	var s *StaleError
	return errors.As(err, &s)
}

// read GETs path and decodes the answer into into (a pointer, or a
// func([]byte) error). It answers from the cache without a request when
// Watch says the cached answer's revision is the one served, asks with
// If-None-Match otherwise, and returns the cached answer with a
// *StaleError when the server cannot be asked.
func (c *Client) read(ctx context.Context, path string, q url.Values, accept string, into any) error {
	u := c.url(path, q)
	key := accept + " " + u
	cached, ok := c.cache.get(key)
	if ok && c.current(cached.revision) {
		return decodeInto(cached.body, into)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	c.headers(req)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if ok {
		req.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ok && ctx.Err() == nil {
			return c.stale(cached, into, err)
		}
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && ok:
		_, _ = io.Copy(io.Discard, resp.Body)
		return decodeInto(cached.body, into)
	case resp.StatusCode == http.StatusOK:
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			if ok && ctx.Err() == nil {
				return c.stale(cached, into, err)
			}
			return err
		}
		if err := decodeInto(body, into); err != nil {
			return fmt.Errorf("governanced: %s: %w", path, err)
		}
		if etag := resp.Header.Get("ETag"); etag != "" {
			c.cache.put(key, entry{etag: etag, revision: resp.Header.Get("Governance-Revision"), body: body})
		}
		return nil
	}
	p := problemOf(resp)
	if ok && (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout) {
		return c.stale(cached, into, p)
	}
	return p
}

// stale answers from the cache, saying why the server was not asked.
func (c *Client) stale(e entry, into any, why error) error {
	if err := decodeInto(e.body, into); err != nil {
		return err
	}
	return &StaleError{Revision: e.revision, Err: why}
}

func (c *Client) post(ctx context.Context, path string, q url.Values, contentType string, body []byte, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(path, q), bytes.NewReader(body))
	if err != nil {
		return err
	}
	c.headers(req)
	req.Header.Set("Content-Type", contentType)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return problemOf(resp)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return decodeInto(b, into)
}

// url is the address of path (escaped already) under the base URL.
func (c *Client) url(path string, q url.Values) string {
	u := *c.base
	u.RawPath = c.base.EscapedPath() + path
	if p, err := url.PathUnescape(u.RawPath); err == nil {
		u.Path = p
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func (c *Client) headers(req *http.Request) {
	req.Header.Set("User-Agent", c.userAgent)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}

func decodeInto(body []byte, into any) error {
	if f, ok := into.(func([]byte) error); ok {
		return f(body)
	}
	return json.Unmarshal(body, into)
}

// problemOf reads an error answer: the problem the server sent, or one
// made of the status when the body is not one (a proxy's page).
func problemOf(resp *http.Response) *Problem {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	p := &Problem{}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/problem+json" || json.Unmarshal(body, p) != nil {
		p = &Problem{Title: http.StatusText(resp.StatusCode), Detail: strings.TrimSpace(string(body))}
		if len(p.Detail) > 200 {
			p.Detail = p.Detail[:200] + "…"
		}
	}
	p.Status = resp.StatusCode
	p.Raw = body
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		p.RetryAfter = time.Duration(min(secs, 24*60*60)) * time.Second // a day at most: no overflow
	}
	return p
}

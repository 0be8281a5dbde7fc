package snapshot

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
)

// Filter selects datasets for the /datasets listing. Zero fields select all.
type Filter struct {
	App             string
	Expose          *bool
	DataspaceExpose *bool
	Conflict        *bool
	Tags            []string // every tag must be on the rule
	// Classification and AccessLevel keep the datasets whose level
	// normalises to the same as the filter's (ASCII case ignored, secret
	// the same as restricted), as the library's consumers compare them.
	Classification string
	AccessLevel    string
	// Query keeps what a search box's text finds (NewQuery): the keys a
	// glob matches, in listing order, or the datasets every word is found
	// in, best first; nil keeps every key.
	Query *Query
	// Owner keeps the datasets whose merged ownership names it, as the
	// served rule says it: an owner id when the name resolved, else the
	// name as written.
	Owner string
}

func (f *Filter) keep(d *Dataset) bool {
	switch {
	case f.App != "" && d.App.Name != f.App,
		f.Expose != nil && *f.Expose != d.Expose,
		f.DataspaceExpose != nil && *f.DataspaceExpose != d.DataspaceExpose,
		f.Conflict != nil && *f.Conflict != d.conflict:
		return false
	}
	if f.Classification != "" && !governance.SameClassification(d.Classification(), f.Classification) {
		return false
	}
	if f.AccessLevel != "" && !governance.SameAccessLevel(d.AccessLevel(), f.AccessLevel) {
		return false
	}
	for _, t := range f.Tags {
		if !d.hasTag(t) {
			return false
		}
	}
	if f.Query != nil && f.Query.glob != nil && !f.Query.glob.Match(d.ID()) {
		return false
	}
	if f.Owner != "" && !slices.ContainsFunc(d.Owners(), func(o governance.Owner) bool { return o.Name == f.Owner }) {
		return false
	}
	return true
}

// searching reports whether f searches by words: its datasets are then
// ranked, best first, rather than listed in order.
func (f *Filter) searching() bool { return f.Query != nil && f.Query.words != nil }

// walk calls fn with every dataset f keeps in listing order (apps by name,
// keys in sources order), until fn returns false; f does not search by
// words.
func (s *Snapshot) walk(f *Filter, fn func(*Dataset) bool) {
	if f.Owner != "" {
		for _, d := range s.OwnedBy(f.Owner) { // in listing order too
			if f.keep(d) && !fn(d) {
				return
			}
		}
		return
	}
	for _, a := range s.apps {
		for i := range a.DatasetCount() {
			if d := a.Dataset(i); f.keep(d) && !fn(d) {
				return
			}
		}
	}
}

// Page is the datasets the filter keeps from the offset-th on, at most
// limit of them, and how many it keeps in all: a numbered page of a
// listing for people, who want to know how far it goes. It reads every
// dataset (only those naming the owner, with Owner; only those of the apps
// holding every word, with a search by words): time linear in the tree,
// which BenchmarkUIDatasets (api/ui) and BenchmarkSearch measure.
func (s *Snapshot) Page(f Filter, offset, limit int) (items []Hit, total int) {
	if f.searching() {
		r := s.search(&f)
		defer r.release()
		return r.window(s, offset, limit), len(r.hits)
	}
	s.walk(&f, func(d *Dataset) bool {
		if total >= offset && len(items) < limit {
			items = append(items, Hit{Dataset: d})
		}
		total++
		return true
	})
	return items, total
}

// Page is one page of a listing and the cursor of the next ("" on the last).
type Page struct {
	Items []Hit
	Next  string
}

// List pages through the datasets the filter keeps. The cursor is opaque to
// clients; it carries the position and the revision it was issued under, so a
// cursor from before a reload is refused (ErrStaleCursor) rather than silently
// skipping or repeating datasets.
func (s *Snapshot) List(f Filter, limit int, cursor string) (Page, error) {
	offset := 0
	if cursor != "" {
		var err error
		if offset, err = s.decodeCursor(cursor); err != nil {
			return Page{}, err
		}
	}
	var p Page
	if f.searching() {
		r := s.search(&f)
		defer r.release()
		p.Items = r.window(s, offset, limit)
		if offset+limit < len(r.hits) {
			p.Next = s.encodeCursor(offset + limit)
		}
		return p, nil
	}
	skipped := 0
	s.walk(&f, func(d *Dataset) bool {
		if skipped < offset {
			skipped++
			return true
		}
		if len(p.Items) == limit {
			p.Next = s.encodeCursor(offset + limit)
			return false
		}
		p.Items = append(p.Items, Hit{Dataset: d})
		return true
	})
	return p, nil
}

// Each calls fn for every dataset the filter keeps, in the listing's order
// (best first under a search by words), until fn returns false.
func (s *Snapshot) Each(f Filter, fn func(Hit) bool) {
	if f.searching() {
		r := s.search(&f)
		defer r.release()
		for _, h := range r.window(s, 0, len(r.hits)) {
			if !fn(h) {
				return
			}
		}
		return
	}
	s.walk(&f, func(d *Dataset) bool { return fn(Hit{Dataset: d}) })
}

// cursorTag is enough of the revision to tell two revisions apart.
func (s *Snapshot) cursorTag() string {
	r := strings.TrimPrefix(s.Revision, "sha256:")
	if len(r) > 16 {
		r = r[:16]
	}
	return r
}

func (s *Snapshot) encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1:" + s.cursorTag() + ":" + strconv.Itoa(offset)))
}

func (s *Snapshot) decodeCursor(c string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, ErrInvalidCursor
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return 0, ErrInvalidCursor
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, ErrInvalidCursor
	}
	if parts[1] != s.cursorTag() {
		return 0, ErrStaleCursor
	}
	return n, nil
}

// NameQuery is a glob a person types to find datasets by key
// (governance.CompileGlob's, matching the whole key), or text the key
// contains. A glob key is matched as the text it is, not by the names it
// would match.
type NameQuery struct {
	text string
	glob *governance.Glob
	// runs are literal texts every key the glob matches contains: a key
	// lacking one is refused without running the matcher, the costly part
	// of a query over many keys.
	runs []string
}

// NewNameQuery reads q as a glob or as text.
func NewNameQuery(q string) *NameQuery {
	if !governance.HasMeta(q) {
		return &NameQuery{text: q}
	}
	nq := &NameQuery{glob: governance.CompileGlob(q)}
	// Without a bracket every character but * and ? stands for itself.
	// With one, which characters a class holds (and whether it is a class
	// at all) takes fnmatch's reading: no shortcut is taken.
	if !strings.Contains(q, "[") {
		nq.runs = strings.FieldsFunc(q, func(r rune) bool { return r == '*' || r == '?' })
	}
	return nq
}

// Glob reports whether the query is a glob rather than text.
func (q *NameQuery) Glob() bool { return q.glob != nil }

// Match reports whether the key matches the query.
func (q *NameQuery) Match(key string) bool {
	if q.glob == nil {
		return strings.Contains(key, q.text)
	}
	for _, run := range q.runs {
		if !strings.Contains(key, run) {
			return false
		}
	}
	return q.glob.Match(key)
}

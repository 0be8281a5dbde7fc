package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// view is what the layout shows around every page's body.
type view struct {
	Title string
	Nav   string // the section the page belongs to, marked in the menu
	// Name is the header search's value: the dataset a page is about.
	Name     string
	Revision string
	LoadedAt time.Time
	Version  string
	// Graph tells whether the pages have a dependency graph to show.
	Graph bool
	// Reload is the last reload when it did not leave the tree as the
	// inputs say (rejected or failed): every page says so.
	Reload *reloadView
	Body   any

	snap *snapshot.Snapshot
}

func (p *Pages) newView(r *http.Request, snap *snapshot.Snapshot, nav, title string) *view {
	v := &view{Title: title, Nav: nav, Version: p.version, Graph: p.graph != nil, snap: snap}
	if snap != nil {
		v.Revision, v.LoadedAt = snap.Revision, snap.LoadedAt
	}
	if st := p.store.LastReload(); st != nil && !st.OK() {
		v.Reload = newReloadView(st, snap)
	}
	return v
}

func (p *Pages) funcs() template.FuncMap {
	return template.FuncMap{
		"asset":       p.assetURL,
		"datasetURL":  datasetURL,
		"appURL":      appURL,
		"ownerURL":    ownerURL,
		"num":         num,
		"shortRev":    shortRevision,
		"when":        when,
		"location":    location,
		"plural":      plural,
		"datasetsURL": datasetsURL,
		"isGlob":      governance.HasMeta,
		"dur":         duration,
		"nameURL":     nameURL,
		"breakable":   breakable,
		"prose":       prose,
		"path":        breakablePath,
	}
}

// breakable is a dataset key, escaped, with a line break allowed (<wbr>)
// after each dot and underscore and nowhere else: on a narrow screen a
// key wraps between its parts, never inside one.
func breakable(key string) template.HTML { return withBreaks(key, "._") }

// breakablePath is a file path or a file:line:column, escaped, with a line
// break allowed after each slash only: it wraps between directories, and
// never between a file and its line and column.
func breakablePath(path string) template.HTML { return withBreaks(path, "/") }

func withBreaks(s, after string) template.HTML {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, after)
		if i < 0 {
			b.WriteString(template.HTMLEscapeString(s))
			return template.HTML(b.String())
		}
		b.WriteString(template.HTMLEscapeString(s[:i+1]))
		b.WriteString("<wbr>")
		s = s[i+1:]
	}
}

// datasetURL is a dataset's page: the name resolved globally, or inside
// app when app is not "". Every character a glob or a name may hold is
// escaped, so a key such as datasets.x_[ab]? survives the trip.
func datasetURL(name, app string) string {
	u := Prefix + "/datasets/" + url.PathEscape(name)
	if app != "" {
		u += "?app=" + url.QueryEscape(app)
	}
	return u
}

// nameURL is where a name a dependency or a finding states leads: a glob
// to the datasets table searched with it (the keys it covers), any other
// name to its dataset page.
func nameURL(name string) string {
	if governance.HasMeta(name) {
		return datasetsURL("q", name)
	}
	return datasetURL(name, "")
}

func appURL(app string) string { return Prefix + "/apps/" + url.PathEscape(app) }

func ownerURL(key string) string { return Prefix + "/owners/" + url.PathEscape(key) }

// datasetsURL is the datasets table filtered by pairs of query key and
// value.
func datasetsURL(pairs ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	if len(q) == 0 {
		return Prefix + "/datasets"
	}
	return Prefix + "/datasets?" + q.Encode()
}

// num writes an integer with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// shortRevision is a revision's first twelve hex digits, as people quote
// a commit.
func shortRevision(rev string) string {
	rev = strings.TrimPrefix(rev, "sha256:")
	return rev[:min(12, len(rev))]
}

// when is a time as people read it, in UTC so that every reader sees the
// same text.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// location is file:line:column, leaving out what is unknown.
func location(file string, line, column int) string {
	switch {
	case file == "":
		return ""
	case line <= 0:
		return file
	case column <= 0:
		return file + ":" + strconv.Itoa(line)
	}
	return file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(column)
}

// plural is "1 dataset" or "2 datasets".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// duration is a reload's duration to the millisecond, or to the
// microsecond below one.
func duration(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

package ui

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/search"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// datasetsView is the datasets table's body.
type datasetsView struct {
	Filters datasetFilters
	// The choices of the filters' menus.
	Apps            []string
	AccessLevels    []string
	Classifications []string
	Owners          []ownerOption
	PageSizes       []int

	Rows                    []datasetRow
	Total, From, To         int // From and To count from 1; both 0 on an empty page
	Page, Pages             int
	First, Prev, Next, Last string // "" where there is no such page
	// Notices say what a filter could not mean, rather than failing a
	// shared link over a name a reload removed.
	Notices []string
}

// datasetFilters are the table's query parameters, as given: the same
// names and values as GET /datasets where the two share a filter.
type datasetFilters struct {
	Q               string // words to find, or a glob of keys
	App             string
	Expose          string // "", "true" or "false"
	DataspaceExpose string
	Conflict        string
	AccessLevel     string
	Classification  string
	Owner           string
	Per             int
	Glob            bool     // Q has glob metacharacters
	Words           []string // Q's words, for a search by words
}

type datasetRow struct {
	ID, App                     string
	Key                         []search.Span // ID, its words a search found marked
	Pattern                     bool
	Expose, DataspaceExpose     bool
	Conflict                    bool
	AccessLevel, Classification string
	Owners                      []ownerRef
	// Why are the fields other than the key a search by words found the
	// dataset in, each with its words marked.
	Why []whyView
}

// ownerRef is an ownership name as a page shows it: the registry's id
// (linked) and display name, or the name as written when no owner has it.
type ownerRef struct {
	Key   string
	Label string
	Type  string // the ownership entry's type (DATA_OWNER, …)
	Known bool
}

type ownerOption struct{ Key, Label string }

var pageSizes = []int{25, 50, 100, 250}

const defaultPageSize = 50

// maxPage bounds a page number so that its offset cannot overflow; a
// billion pages is more than any tree has.
const maxPage = 1_000_000_000

func (p *Pages) datasets(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	q := r.URL.Query()
	if clean, ok := canonicalQuery(q); !ok {
		// The filter form sends every field, most of them empty; the
		// address to share names only the filters in force.
		http.Redirect(w, r, Prefix+"/datasets"+clean, http.StatusSeeOther)
		return
	}
	fv, f, page, bad := readDatasetFilters(q)
	if bad != "" {
		p.fail(w, r, http.StatusBadRequest, "This table cannot be filtered so", bad+".", link{"Every dataset", Prefix + "/datasets"})
		return
	}
	body := datasetsView{AccessLevels: governance.AccessLevels, Classifications: governance.Classifications, PageSizes: pageSizes}
	nothing := body.applyFilters(snap, &fv, &f)
	var items []snapshot.Hit
	if !nothing {
		items, body.Total = snap.Page(f, (page-1)*fv.Per, fv.Per)
	}
	body.paginate(q, page, fv.Per, len(items))
	body.Rows = make([]datasetRow, len(items))
	for i, h := range items {
		body.Rows[i] = newDatasetRow(snap, h.Dataset)
		if f.Query != nil && f.Query.Words() != nil {
			body.Rows[i].Key = f.Query.Words().Spans(h.Dataset.ID())
			body.Rows[i].Why = why(snap, f.Query.Words(), h)
		}
	}
	v := p.newView(r, snap, "datasets", "Datasets")
	v.Body = body
	p.render(w, r, http.StatusOK, "datasets", v)
}

// readDatasetFilters reads the table's query: the filters as given, the
// snapshot filter they make but for the search and the owner (which need
// the snapshot: applyFilters), and the page. bad is the first parameter
// that cannot mean anything, "" when all can.
func readDatasetFilters(q url.Values) (fv datasetFilters, f snapshot.Filter, page int, bad string) {
	fv = datasetFilters{Q: q.Get("q"), App: q.Get("app"), Expose: q.Get("expose"), DataspaceExpose: q.Get("dataspace_expose"),
		Conflict: q.Get("conflict"), AccessLevel: q.Get("access_level"), Classification: q.Get("classification"), Owner: q.Get("owner"), Per: defaultPageSize}
	f = snapshot.Filter{App: fv.App, AccessLevel: fv.AccessLevel, Classification: fv.Classification}
	var problems []string
	for _, b := range []struct {
		name, value string
		dst         **bool
	}{{"expose", fv.Expose, &f.Expose}, {"dataspace_expose", fv.DataspaceExpose, &f.DataspaceExpose}, {"conflict", fv.Conflict, &f.Conflict}} {
		if b.value == "" {
			continue
		}
		v, err := strconv.ParseBool(b.value)
		if err != nil {
			problems = append(problems, b.name+" must be true or false, not "+quoted(b.value))
			continue
		}
		*b.dst = &v
	}
	page = 1
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			problems = append(problems, "page must be a whole number from 1 to "+strconv.Itoa(maxPage)+", not "+quoted(v))
		}
		page = n
	}
	if v := q.Get("per"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > pageSizes[len(pageSizes)-1] {
			problems = append(problems, "per must be a whole number from 1 to "+strconv.Itoa(pageSizes[len(pageSizes)-1])+", not "+quoted(v))
		}
		fv.Per = n
	}
	if len(problems) > 0 {
		bad = problems[0]
	}
	return fv, f, page, bad
}

// applyFilters completes the filter with what needs the snapshot (the
// search, the owner an alias names), notes what a filter cannot mean, and
// fills the menus' choices. nothing is true when the search cannot find
// anything.
func (body *datasetsView) applyFilters(snap *snapshot.Snapshot, fv *datasetFilters, f *snapshot.Filter) (nothing bool) {
	if fv.Q != "" {
		query, err := snapshot.NewQuery(fv.Q)
		if err != nil {
			body.Notices = append(body.Notices, "This search finds nothing: "+err.Error()+".")
			nothing = true
		} else {
			f.Query = query
			fv.Glob = query.Glob()
			if w := query.Words(); w != nil {
				fv.Words = w.Words()
			}
		}
	}
	if fv.Owner != "" {
		// An alias finds its owner, as ownership names resolve.
		if e := snap.Owners.ByID(fv.Owner); e != nil {
			f.Owner = e.ID
		} else {
			f.Owner = fv.Owner
		}
	}
	if fv.App != "" && snap.App(fv.App) == nil {
		body.Notices = append(body.Notices, "No app called "+quoted(fv.App)+" is served.")
	}
	body.Filters = *fv
	for _, a := range snap.Apps() {
		body.Apps = append(body.Apps, a.Name)
	}
	body.Owners = ownerOptions(snap)
	return nothing
}

// paginate sets the page's place in the table (body.Total is the rows the
// filters keep, shown the rows on this page) and the links to the other
// pages, each the query q with another page.
func (body *datasetsView) paginate(q url.Values, page, per, shown int) {
	body.Page = page
	body.Pages = max(1, (body.Total+per-1)/per)
	if shown > 0 {
		body.From = (page-1)*per + 1
		body.To = body.From + shown - 1
	} else if page > body.Pages {
		body.Notices = append(body.Notices, "There is no page "+strconv.Itoa(page)+": the table has "+plural(body.Pages, "page", "pages")+".")
	}
	pageURL := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			if k != "page" {
				v[k] = vs
			}
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return Prefix + "/datasets"
		}
		return Prefix + "/datasets?" + v.Encode()
	}
	if page > 1 {
		body.First, body.Prev = pageURL(1), pageURL(min(page-1, body.Pages))
	}
	if page < body.Pages {
		body.Next, body.Last = pageURL(page+1), pageURL(body.Pages)
	}
}

func newDatasetRow(snap *snapshot.Snapshot, d *snapshot.Dataset) datasetRow {
	return datasetRow{ID: d.ID(), App: d.App.Name, Pattern: d.Pattern, Expose: d.Expose, DataspaceExpose: d.DataspaceExpose,
		Conflict: d.Conflict() != "", AccessLevel: d.AccessLevel(), Classification: d.Classification(), Owners: ownerRefs(snap, d.Owners())}
}

// ownerRefs are a rule's ownership names as the pages show them.
func ownerRefs(snap *snapshot.Snapshot, owners []governance.Owner) []ownerRef {
	refs := make([]ownerRef, 0, len(owners))
	for _, o := range owners {
		ref := ownerRef{Key: o.Name, Label: o.Name, Type: o.Type}
		if e := snap.Owners.ByID(o.Name); e != nil {
			ref.Known = true
			ref.Key = e.ID
			if e.Name != nil && *e.Name != "" {
				ref.Label = *e.Name
			}
		}
		refs = append(refs, ref)
	}
	return refs
}

// ownerOptions are the owner filter's choices: every registry owner, then
// every ownership name no owner has.
func ownerOptions(snap *snapshot.Snapshot) []ownerOption {
	var opts []ownerOption
	for _, e := range snap.Owners.All() {
		label := e.ID
		if e.Name != nil && *e.Name != "" {
			label = *e.Name + " (" + e.ID + ")"
		}
		opts = append(opts, ownerOption{e.ID, label})
	}
	for _, name := range snap.OwnershipNames() {
		if snap.Owners.ByID(name) == nil {
			opts = append(opts, ownerOption{name, name + " (not in the registry)"})
		}
	}
	return opts
}

// canonicalQuery drops empty parameters and the default page size and
// first page; ok is true when there was nothing to drop.
func canonicalQuery(q url.Values) (clean string, ok bool) {
	ok = true
	out := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if v == "" || k == "per" && v == strconv.Itoa(defaultPageSize) || k == "page" && v == "1" {
				ok = false
				continue
			}
			out.Add(k, v)
		}
	}
	if ok || len(out) == 0 {
		return "", ok
	}
	return "?" + out.Encode(), false
}

func quoted(s string) string { return strconv.Quote(s) }

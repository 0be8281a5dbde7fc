package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// datasetView is one dataset's page: the rule a name resolves to, field by
// field with where each value was written.
type datasetView struct {
	Name      string // as asked
	App       string
	AppChosen bool   // resolved inside App (app=), not globally
	Match     string // "exact", "glob" or "defaults" (governance.MatchKind)
	Pattern   string // the key that matched; "" for the defaults
	File      string // the app's base file
	Overlay   string // its overlay, "" for none

	Expose, DataspaceExpose bool
	Conflict                string
	Owners                  []ownerRef

	Fields    []fieldRow
	RowPolicy rowPolicyView
	Facet     string // the governance facet, indented
	Findings  []findingView
	// Graph is who produces and who consumes the name; nil without a graph.
	Graph *neighbours
}

// fieldRow is one path of the rule: a top-level field, or one below dcat,
// ontology, dataspace or extra.
type fieldRow struct {
	Path       string
	Depth      int // 0 for a top-level field
	Value      valueView
	Origin     *originView // nil when no file stated it
	MergedFrom []originView
}

// valueView is a value as a page shows it.
type valueView struct {
	Kind   string // "null", "text", "prose" (a description), "list", "owners", "block" or "json"
	Text   string
	Items  []string
	Owners []ownerRef
}

// originView is where a value was written.
type originView struct {
	Layer    string // defaults, source, overlay.defaults or overlay.source
	Overlay  bool
	Location string // file:line:column
}

// rowPolicyView is what restricts the rows a caller receives (check.md
// §9.4): row_filters, or the legacy user_filter_column.
type rowPolicyView struct {
	Filters []rowFilterView
	Legacy  string // user_filter_column when a non-empty string
	State   string // "filtered", "legacy", "whole" (row_filters: []) or "undeclared"
}

type rowFilterView struct {
	Handler string
	Args    string // the args mapping as JSON; "" when none
	Entry   string // the whole entry as JSON, when it is not a mapping with a handler
}

// blockPaths are the mappings whose members have provenance of their own.
var blockPaths = map[string]bool{"dcat": true, "dcat.temporal": true, "ontology": true, "dataspace": true}

func (p *Pages) dataset(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	name, app := httpread.PathParam(r, "id"), r.URL.Query().Get("app")
	d, err := snap.ResolveScoped(app, name)
	if err != nil {
		p.notResolved(w, r, snap, name, app, err)
		return
	}
	body, err := p.datasetBody(snap, d, name)
	if err != nil {
		p.internal(w, r, err)
		return
	}
	body.AppChosen = app != ""
	if g, overlays := p.graphOf(snap, r); g != nil {
		body.Graph = datasetNeighbours(g, overlays, name)
	}
	title := name
	if title == "" {
		title = d.App.Name + " defaults"
	}
	v := p.newView(r, snap, "datasets", title)
	v.Name = name
	v.Body = body
	p.render(w, r, http.StatusOK, "dataset", v)
}

// chooseView is the page of a name that resolves to no one dataset: the
// apps to resolve it in.
type chooseView struct {
	Heading, Detail string
	Name            string
	Apps            []string
	Search          string // the datasets table searched for the name
}

func (p *Pages) notResolved(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, name, app string, err error) {
	var amb *snapshot.AmbiguousError
	body := chooseView{Name: name, Search: datasetsURL("q", name)}
	status := http.StatusNotFound
	switch {
	case errors.Is(err, snapshot.ErrUnknownApp):
		p.fail(w, r, http.StatusNotFound, "No such app", "No app called "+quoted(app)+" is served.", link{"Every app", Prefix + "/apps"})
		return
	case errors.As(err, &amb):
		status = http.StatusConflict
		body.Heading = "Several apps claim " + name
		body.Detail = amb.Error() + ". Choose the app to resolve it in."
		body.Apps = amb.Apps
	case errors.Is(err, snapshot.ErrNoMatch):
		body.Heading = "No dataset " + name
		body.Detail = "No app declares " + quoted(name) + " and no glob matches it. Inside one app it resolves to that app's defaults."
		for _, a := range snap.Apps() {
			body.Apps = append(body.Apps, a.Name)
		}
	default:
		p.internal(w, r, err)
		return
	}
	v := p.newView(r, snap, "datasets", body.Heading)
	v.Name = name
	v.Body = body
	p.render(w, r, status, "choose", v)
}

func (p *Pages) internal(w http.ResponseWriter, r *http.Request, err error) {
	if p.onError != nil {
		p.onError(r, err)
	}
	p.fail(w, r, http.StatusInternalServerError, "The page failed", "The server could not build this page; its log has the request id.")
}

// lookup is the header search: a name any dataset page would resolve goes
// to that page, anything else to the datasets table searched for it.
func (p *Pages) lookup(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	name := strings.TrimSpace(r.URL.Query().Get("name"))
	if name == "" {
		http.Redirect(w, r, Prefix+"/datasets", http.StatusSeeOther)
		return
	}
	var amb *snapshot.AmbiguousError
	if _, err := snap.Resolve(name); err == nil || errors.As(err, &amb) {
		http.Redirect(w, r, datasetURL(name, ""), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, datasetsURL("q", name), http.StatusSeeOther)
}

func (p *Pages) datasetBody(snap *snapshot.Snapshot, d *snapshot.Dataset, name string) (*datasetView, error) {
	m := d.MatchFor(name)
	body := &datasetView{Name: name, App: d.App.Name, Match: m.Kind.String(), Pattern: m.Pattern, File: d.App.File, Overlay: d.App.OverlayFile,
		Expose: d.Expose, DataspaceExpose: d.DataspaceExpose, Conflict: d.Conflict(), Owners: ownerRefs(snap, d.Owners())}
	rule := d.Rule()
	rows, err := ruleRows(snap, rule)
	if err != nil {
		return nil, err
	}
	body.Fields = rows
	if body.RowPolicy, err = rowPolicy(rule); err != nil {
		return nil, err
	}
	var facet bytes.Buffer
	if err := json.Indent(&facet, d.Facet(governance.DefaultProducer, true), "", "  "); err != nil {
		return nil, err
	}
	body.Facet = facet.String()
	if d.ID() != "" || d.Pattern {
		der := p.derivedFor(snap)
		rep := snap.Report()
		for _, i := range der.findings[datasetKey{d.App.Name, d.ID()}] {
			body.Findings = append(body.Findings, newFindingView(rep.Findings[i], d.App.Name))
		}
	}
	return body, nil
}

// ruleRows are the rule's fields in rendering order, each with its origin.
func ruleRows(snap *snapshot.Snapshot, rule *governance.Rule) ([]fieldRow, error) {
	var buf bytes.Buffer
	rule.AppendJSON(&buf)
	value, err := parseJSON(buf.Bytes())
	if err != nil {
		return nil, err
	}
	prov := map[string]governance.ProvenanceEntry{}
	for _, e := range rule.Provenance() {
		prov[e.Path] = e
	}
	var rows []fieldRow
	var walk func(prefix string, obj *jsonValue, depth int)
	walk = func(prefix string, obj *jsonValue, depth int) {
		for i, key := range obj.Keys {
			path := prefix + key
			v := &obj.Items[i]
			if path == "extra" && v.Kind == jsonObject {
				walk("extra.", v, depth) // each key is a field of its own
				continue
			}
			row := fieldRow{Path: path, Depth: depth, Value: presentValue(snap, path, v)}
			if e, ok := prov[path]; ok {
				row.Origin = newOrigin(e.Origin)
				for _, m := range e.MergedFrom {
					row.MergedFrom = append(row.MergedFrom, *newOrigin(m))
				}
			}
			rows = append(rows, row)
			if blockPaths[path] && v.Kind == jsonObject {
				walk(path+".", v, depth+1)
			}
		}
	}
	walk("", &value, 0)
	return rows, nil
}

func newOrigin(o governance.Origin) *originView {
	if o.Layer == nil {
		return nil
	}
	return &originView{Layer: o.Layer.Name, Overlay: o.Layer.Kind == "overlay", Location: location(o.Layer.File, int(o.Line), int(o.Column))}
}

// presentValue chooses how a value reads: text, a list of strings, owners
// with links, a mapping shown by its rows below, or JSON.
func presentValue(snap *snapshot.Snapshot, path string, v *jsonValue) valueView {
	switch v.Kind {
	case jsonNull:
		return valueView{Kind: "null", Text: "null"}
	case jsonString, jsonNumber, jsonBool:
		if path == "description" && v.Kind == jsonString {
			return valueView{Kind: "prose", Text: v.Text}
		}
		return valueView{Kind: "text", Text: v.Text}
	case jsonObject:
		if blockPaths[path] {
			return valueView{Kind: "block"}
		}
	case jsonArray:
		if path == "ownership" {
			var owners []governance.Owner
			if err := json.Unmarshal([]byte(v.Encoded), &owners); err == nil {
				return valueView{Kind: "owners", Owners: ownerRefs(snap, owners)}
			}
		}
		items := make([]string, 0, len(v.Items))
		for _, it := range v.Items {
			if it.Kind != jsonString {
				items = nil
				break
			}
			items = append(items, it.Text)
		}
		if items != nil || len(v.Items) == 0 {
			return valueView{Kind: "list", Items: items}
		}
	}
	return valueView{Kind: "json", Text: v.Encoded}
}

func rowPolicy(rule *governance.Rule) (rowPolicyView, error) {
	var rp rowPolicyView
	if c := rule.UserFilterColumn(); c != nil && *c != "" {
		rp.Legacy = *c
	}
	for _, f := range rule.RowFilters() {
		entry, err := parseJSON([]byte(f.JSON))
		if err != nil {
			return rp, err
		}
		fv := rowFilterView{Handler: f.Handler}
		if args := entry.get("args"); args != nil {
			fv.Args = args.Encoded
		}
		if entry.Kind != jsonObject || f.Handler == "" {
			fv.Entry = f.JSON
		}
		rp.Filters = append(rp.Filters, fv)
	}
	switch {
	case len(rp.Filters) > 0:
		rp.State = "filtered"
	case rp.Legacy != "":
		rp.State = "legacy"
	case rule.Set.Has(governance.FieldRowFilters):
		rp.State = "whole"
	default:
		rp.State = "undeclared"
	}
	return rp, nil
}

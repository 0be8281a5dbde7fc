package ui

import (
	"net/http"
	"slices"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// findingView is one finding as a page lists it.
type findingView struct {
	Severity string
	Code     string
	Location string // file:line:column
	Path     string // the JSON pointer into the file
	Dataset  string
	App      string // the app whose dataset it is; "" when not served
	Subject  string
	Message  string
}

func newFindingView(f check.Finding, app string) findingView {
	v := findingView{Severity: string(f.Severity), Code: f.Code, Location: location(f.File, f.Line, f.Column), Message: f.Message, App: app}
	if p := f.Path(); p != nil {
		v.Path = *p
	}
	if f.Dataset != nil {
		v.Dataset = *f.Dataset
	}
	if f.Subject != nil {
		v.Subject = *f.Subject
	}
	return v
}

// reportView is the report page's body.
type reportView struct {
	Summary check.Summary
	Strict  bool
	// Severity and Code are the filters in force ("" for all).
	Severity, Code string
	Groups         []findingGroup
	Shown, Total   int
}

// findingGroup is the findings of one code.
type findingGroup struct {
	Code        string
	Description string
	Severity    string // the worst severity in the group
	Count       int    // every finding of the code the filter keeps
	Findings    []findingView
}

// groupLimit caps the findings a group lists when no code is chosen: a
// large tree may hold thousands of one code, and its own page lists them
// all.
const groupLimit = 100

func (p *Pages) report(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	q := r.URL.Query()
	body := reportView{Severity: q.Get("severity"), Code: q.Get("code")}
	switch check.Severity(body.Severity) {
	case "", check.Error, check.Warning, check.Info:
	default:
		p.fail(w, r, http.StatusBadRequest, "Unknown severity", "severity must be error, warning or info, not "+quoted(body.Severity)+".",
			link{"All findings", Prefix + "/report"})
		return
	}
	rep := snap.Report()
	d := p.derivedFor(snap)
	body.Summary, body.Strict = rep.Summary, rep.Strict
	byCode := map[string]*findingGroup{}
	var order []string
	for _, f := range rep.Findings {
		if body.Severity != "" && string(f.Severity) != body.Severity || body.Code != "" && f.Code != body.Code {
			continue
		}
		g := byCode[f.Code]
		if g == nil {
			g = &findingGroup{Code: f.Code, Description: check.CodeDescription(f.Code), Severity: string(f.Severity)}
			byCode[f.Code] = g
			order = append(order, f.Code)
		}
		if rank(f.Severity) < rank(check.Severity(g.Severity)) {
			g.Severity = string(f.Severity)
		}
		g.Count++
		body.Total++
		if body.Code == "" && len(g.Findings) == groupLimit {
			continue
		}
		g.Findings = append(g.Findings, newFindingView(f, d.fileApp[f.File]))
		body.Shown++
	}
	// The worst codes first, then the most frequent, then by name.
	slices.SortFunc(order, func(a, b string) int {
		ga, gb := byCode[a], byCode[b]
		if c := rank(check.Severity(ga.Severity)) - rank(check.Severity(gb.Severity)); c != 0 {
			return c
		}
		if ga.Count != gb.Count {
			return gb.Count - ga.Count
		}
		if a < b {
			return -1
		}
		return 1
	})
	for _, c := range order {
		body.Groups = append(body.Groups, *byCode[c])
	}
	v := p.newView(r, snap, "report", "Report")
	v.Body = body
	p.render(w, r, http.StatusOK, "report", v)
}

func rank(s check.Severity) int {
	switch s {
	case check.Error:
		return 0
	case check.Warning:
		return 1
	}
	return 2
}

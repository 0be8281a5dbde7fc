package ui

import (
	"net/http"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// appsView is the apps page's body.
type appsView struct {
	Apps  []appRow
	Total appCounts
}

type appRow struct {
	Name, File, Overlay string
	Active              bool
	appCounts
}

func (p *Pages) apps(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	d := p.derivedFor(snap)
	body := appsView{Total: d.exposure}
	for _, a := range snap.Apps() {
		row := appRow{Name: a.Name, File: a.File, Overlay: a.OverlayFile, Active: a.Config.Active, appCounts: *d.apps[a.Name]}
		body.Total.Errors += row.Errors
		body.Total.Warnings += row.Warnings
		body.Total.Infos += row.Infos
		body.Apps = append(body.Apps, row)
	}
	v := p.newView(r, snap, "apps", "Apps")
	v.Body = body
	p.render(w, r, http.StatusOK, "apps", v)
}

// appView is one app's page.
type appView struct {
	appRow
	Defaults  []fieldRow
	DependsOn []dependencyView
	// DependsOnSet tells an app that states no dependencies (depends_on
	// absent) from one stating an empty list.
	DependsOnSet bool
	Findings     []findingView
	// Pipeline is the app's place in the dependency graph; nil without a
	// graph.
	Pipeline *pipelineView
}

type dependencyView struct {
	Dataset            string
	External, Optional bool
	Description        string
	// Producers are the pipelines producing it, when the graph's reading
	// states the same depends_on as the served configuration.
	Producers []producerView
}

func (p *Pages) app(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	a := snap.App(httpread.PathParam(r, "app"))
	if a == nil {
		p.fail(w, r, http.StatusNotFound, "No such app", "No app called "+quoted(httpread.PathParam(r, "app"))+" is served.", link{"Every app", Prefix + "/apps"})
		return
	}
	d := p.derivedFor(snap)
	body := appView{appRow: appRow{Name: a.Name, File: a.File, Overlay: a.OverlayFile, Active: a.Config.Active, appCounts: *d.apps[a.Name]},
		DependsOnSet: a.Config.DependsOnSet}
	rows, err := ruleRows(snap, a.Defaults().Rule())
	if err != nil {
		p.internal(w, r, err)
		return
	}
	body.Defaults = rows
	for _, dep := range a.Config.DependsOn {
		body.DependsOn = append(body.DependsOn, dependencyView{Dataset: dep.Dataset, External: dep.External, Optional: dep.Optional, Description: deref(dep.Description)})
	}
	if g, overlays := p.graphOf(snap, r); g != nil {
		body.Pipeline = appPipeline(g, overlays, a.Name)
		if pv := body.Pipeline; pv != nil && len(pv.Inputs) == len(body.DependsOn) {
			for i, in := range pv.Inputs {
				if in.Dependency.Dataset != body.DependsOn[i].Dataset {
					break // another reading's depends_on: its producers are not these
				}
				for _, pr := range in.Producers {
					body.DependsOn[i].Producers = append(body.DependsOn[i].Producers, producerView{Pipeline: pr.Pipeline, Key: pr.Key})
				}
			}
		}
	}
	// The findings about the app's files that name no dataset: those about a
	// dataset are on its own page.
	for _, f := range snap.Report().Findings {
		if d.fileApp[f.File] == a.Name && f.Dataset == nil {
			body.Findings = append(body.Findings, newFindingView(f, a.Name))
		}
	}
	v := p.newView(r, snap, "apps", a.Name)
	v.Body = body
	p.render(w, r, http.StatusOK, "app", v)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

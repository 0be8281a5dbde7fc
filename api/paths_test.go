package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/snapshot/snapshottest"
	"github.com/celine-eu/governanced/internal/testfs"
)

// syncLikeTree lays testdata/tree out as a deployment does: the tree behind
// git-sync's link (current → .worktrees/<hash>), the owners registry and
// the placeholder map in a ConfigMap's directory, an overlay directory of
// its own. It returns the directory everything is under and the inputs.
func syncLikeTree(t *testing.T) (string, snapshot.Inputs) {
	t.Helper()
	disk := t.TempDir()
	wt := filepath.Join(disk, "srv/governance/.worktrees/4f2a9c1e")
	if err := os.CopyFS(wt, os.DirFS(filepath.Join(testTree))); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(wt, "owners.yaml"), filepath.Join(disk, "owners.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".worktrees/4f2a9c1e", filepath.Join(disk, "srv/governance/current")); err != nil {
		t.Fatal(err)
	}
	owners, err := os.ReadFile(filepath.Join(disk, "owners.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, disk, map[string]string{
		"etc/governanced/owners.yaml":       string(owners),
		"etc/governanced/placeholders.yaml": "operator: open-data\n",
		"etc/overlays/governance.twin.yaml": "defaults:\n  tags: [overlaid]\n",
	})
	return disk, snapshot.Inputs{
		Trees:        []string{filepath.Join(disk, "srv/governance/current")},
		Owners:       []string{filepath.Join(disk, "etc/governanced/owners.yaml")},
		Placeholders: filepath.Join(disk, "etc/governanced/placeholders.yaml"),
		OverlayDir:   filepath.Join(disk, "etc/overlays"),
	}
}

// getTargets are the GET requests that reach every GET route of
// openapi.yaml (the web page's too) with values from the served tree, once
// plain and once with each value of each enumerated or boolean query
// parameter.
func getTargets(t *testing.T, values map[string][]string) []string {
	t.Helper()
	doc := loadOpenAPI(t)
	params := doc["components"].(map[string]any)["parameters"].(map[string]any)
	placeholder := regexp.MustCompile(`\{([^}]+)\}`)
	var out []string
	for route, item := range doc["paths"].(map[string]any) {
		op, ok := item.(map[string]any)["get"].(map[string]any)
		if !ok {
			continue
		}
		var paths []string
		if names := placeholder.FindAllStringSubmatch(route, -1); len(names) == 0 {
			paths = []string{route}
		} else {
			key := names[len(names)-1][1]
			if strings.HasPrefix(route, "/graph/pipelines/") || strings.HasPrefix(route, "/schemas/") || strings.HasPrefix(route, "/ui/static/") {
				key = route // {name} means something else on each
			}
			vs := values[key]
			if len(vs) == 0 {
				t.Fatalf("no value for %s in %s", key, route)
			}
			for _, v := range vs {
				p := placeholder.ReplaceAllStringFunc(route, func(m string) string {
					if name := m[1 : len(m)-1]; name == "app" && key != "app" {
						return url.PathEscape(values["app"][0])
					}
					return url.PathEscape(v)
				})
				paths = append(paths, p)
			}
		}
		var queries []string
		prms, _ := op["parameters"].([]any)
		for _, p := range prms {
			prm := p.(map[string]any)
			if ref, ok := prm["$ref"].(string); ok {
				prm = params[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
			}
			if prm["in"] != "query" {
				continue
			}
			schema, _ := prm["schema"].(map[string]any)
			switch {
			case schema["enum"] != nil:
				for _, v := range schema["enum"].([]any) {
					queries = append(queries, prm["name"].(string)+"="+url.QueryEscape(v.(string)))
				}
			case schema["type"] == "boolean":
				queries = append(queries, prm["name"].(string)+"=true")
			}
		}
		for _, p := range paths {
			out = append(out, p)
			for _, q := range queries {
				out = append(out, p+"?"+q)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestNoServerPathInAnyAnswer walks every GET route of openapi.yaml and
// every page the web page links to, for a tree served from behind a
// git-sync link with its owners, placeholders and overlays elsewhere on the
// disk, then once more after a rejected and a failed reload: no answer
// names where anything lies on the server.
func TestNoServerPathInAnyAnswer(t *testing.T) {
	disk, in := syncLikeTree(t)
	store := snapshottest.Loaded(t, &snapshot.Loader{Inputs: in})
	h, _ := newServer(Deps{Store: store})
	forbidden := []string{disk, ".worktrees", "srv/governance", "current/", "etc/governanced", "4f2a9c1e"}
	values := routeValues(t, h)
	walkAnswers(t, h, values, forbidden, "served")
	for _, sarif := range []string{"/report?format=sarif"} {
		r := do(t, h, "GET", sarif, nil)
		if !strings.Contains(string(r.body), `"uriBaseId": "%SRCROOT%"`) && strings.Contains(string(r.body), `"uri"`) {
			t.Errorf("the served SARIF places no file relative to %%SRCROOT%%:\n%s", r.body)
		}
	}
	wt := filepath.Join(disk, "srv/governance/.worktrees/4f2a9c1e")
	diffsNameNoPlace(t, h, wt, forbidden)

	// A rejected reload (its report in /status) and a failed one (a link
	// out of the tree): what they say names no place either.
	testfs.Write(t, wt, map[string]string{"apps/weather/governance.yaml": "defaults: {access_level: publik}\nsources: {x: {}}\n"})
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Rejected {
		t.Fatalf("a broken file: %v (%v)", st.Outcome, st.Err)
	}
	walkAnswers(t, h, values, forbidden, "after a rejected reload")
	if err := os.Symlink(filepath.Join(disk, "etc/governanced/owners.yaml"), filepath.Join(wt, "apps/leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(wt, "apps/leak2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(disk, "etc/governanced/owners.yaml"), filepath.Join(wt, "apps/leak2/governance.yaml")); err != nil {
		t.Fatal(err)
	}
	if st := store.Reload(context.Background(), false); st.Outcome != snapshot.Failed {
		t.Fatalf("a link out: %v (%v)", st.Outcome, st.Err)
	}
	walkAnswers(t, h, values, forbidden, "after a failed reload")
}

// routeValues are the values to fill each route parameter with: every app,
// dataset, owner, schema and static file the server names.
func routeValues(t *testing.T, h http.Handler) map[string][]string {
	list := func(target, field string) []string {
		var body struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(do(t, h, "GET", target, nil).body, &body); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range body.Items {
			out = append(out, it[field].(string))
		}
		return out
	}
	return map[string][]string{
		"app":                     list("/apps", "name"),
		"id":                      list("/datasets", "id"),
		"key":                     list("/owners", "id"),
		"/graph/pipelines/{name}": list("/apps", "name"),
		"/schemas/{name}":         {"governance", "governance-overlay", "owners", "facet"},
		"/ui/static/{name}":       {"ui.css", "ui.js"},
		"/ui/apps/{app}":          list("/apps", "name"),
		"/apps/{app}":             list("/apps", "name"),
		"/ui/owners/{key}":        list("/owners", "id"),
		"/owners/{key}":           list("/owners", "id"),
		"/ui/datasets/{id}":       list("/datasets", "id"),
	}
}

// walkAnswers GETs every route with every value, and every page the web
// page links to: none answers 5xx, and none names anything of forbidden.
func walkAnswers(t *testing.T, h http.Handler, values map[string][]string, forbidden []string, phase string) {
	t.Helper()
	seen := map[string]bool{}
	queue := getTargets(t, values)
	link := regexp.MustCompile(`href="(/ui/[^"#]*)"`)
	for len(queue) > 0 && len(seen) < 2000 {
		target := queue[0]
		queue = queue[1:]
		if seen[target] {
			continue
		}
		seen[target] = true
		r := do(t, h, "GET", target, nil)
		if r.status >= 500 && target != "/events" {
			t.Errorf("%s: GET %s: %d %s", phase, target, r.status, r.body)
		}
		text := string(r.body) + " " + strings.Join(flatten(r.header), " ")
		for _, f := range forbidden {
			if i := strings.Index(text, f); i >= 0 {
				t.Errorf("%s: GET %s names %q: …%s…", phase, target, f, text[max(0, i-80):min(len(text), i+80)])
			}
		}
		if strings.HasPrefix(target, "/ui/") {
			for _, m := range link.FindAllStringSubmatch(string(r.body), -1) {
				u := strings.ReplaceAll(m[1], "&amp;", "&")
				if !seen[u] {
					queue = append(queue, u)
				}
			}
		}
	}
	if len(seen) < 100 {
		t.Errorf("%s: walked %d answers only", phase, len(seen))
	}
}

// diffsNameNoPlace posts a pull request's diff against the served tree,
// read from its checkout wt, in every format: none names anything of
// forbidden.
func diffsNameNoPlace(t *testing.T, h http.Handler, wt string, forbidden []string) {
	t.Helper()
	head := map[string]string{}
	for _, f := range []string{"apps/meters/governance.yaml", "apps/meters/governance.meters.yaml", "apps/twin/governance.yaml", "apps/weather/governance.yaml"} {
		b, err := os.ReadFile(filepath.Join(wt, f))
		if err != nil {
			t.Fatal(err)
		}
		head[f] = string(b)
	}
	head["apps/twin/governance.yaml"] += "\n# edited\n"
	head = edited(t, head, "apps/meters/governance.meters.yaml", "      expose: false\n", "      expose: true\n")
	for _, format := range []string{"json", "markdown", "text"} {
		r := do(t, h, "POST", "/diff?format="+format, strings.NewReader(string(uploadOf(t, head))), "Content-Type", "application/x-tar")
		if r.status != 200 {
			t.Fatalf("POST /diff?format=%s: %d %s", format, r.status, r.body)
		}
		for _, f := range forbidden {
			if strings.Contains(string(r.body), f) {
				t.Errorf("POST /diff?format=%s names %q:\n%s", format, f, r.body)
			}
		}
	}
}

func flatten(h map[string][]string) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k)
		out = append(out, vs...)
	}
	slices.Sort(out)
	return out
}

package graph

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Flow is one scheduled flow of a deployment (graph.md §7). Schedules are a
// deployment fact: they are never read from governance files.
type Flow struct {
	Name string
	App  string // the app directory name it runs, compared with Pipeline.App
	Cron string
}

// LoadFlows reads a flows document from path; display names it in errors.
func LoadFlows(path, display string) ([]Flow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{File: display, Msg: "cannot read: " + unwrapPathError(err), Err: err}
	}
	return ParseFlows(data, display)
}

// ParseFlows reads a flows document the way the reference does (§7.2 with
// §12.1 C10):
//
//	flows:
//	  - name: weather
//	    path: /pipelines/apps/weather/flows/pipeline.py   # or: app: weather
//	    schedule: {cron: "15 * * * *"}
//
// A falsy root or flows means no flows. An entry's cron is schedule.cron when
// truthy, else its own cron, as Python's str() prints it; an entry without
// one is skipped (a flow started by hand has no schedule to compare). Its app
// is app when truthy, else the path segment after the first segment that
// starts with "apps"; an entry with neither is skipped. An app that is not a
// string can match no pipeline and is dropped; one that is a list or a
// mapping is an error (the reference cannot group flows by it). Its name is
// name when truthy, else the app.
func ParseFlows(data []byte, file string) ([]Flow, error) {
	if !utf8.Valid(data) {
		return nil, &LoadError{File: file, Msg: fmt.Sprintf("not UTF-8 text (invalid byte at offset %d)", invalidUTF8At(data))}
	}
	doc, err := yaml11.Parse(data)
	if err != nil {
		var ye *yaml11.Error
		if errors.As(err, &ye) {
			return nil, &LoadError{File: file, Pos: textpos.Pos{Line: ye.Line, Column: ye.Column}, Msg: "YAML error: " + ye.Msg, Err: err}
		}
		return nil, &LoadError{File: file, Msg: "YAML error: " + err.Error(), Err: err}
	}
	if doc.Falsy() {
		return nil, nil
	}
	if doc.Kind != yaml11.Map {
		return nil, errAt(file, doc, "", "the document root must be a mapping, not %s", yaml11.Describe(doc))
	}
	list := doc.Get("flows")
	if list.Falsy() {
		return nil, nil
	}
	if list.Kind != yaml11.Seq {
		return nil, errAt(file, list, "flows", "expected a list of flows, got %s", yaml11.Describe(list))
	}
	var flows []Flow
	for i, entry := range list.Items {
		at := fmt.Sprintf("flows/%d", i)
		if entry.Kind != yaml11.Map {
			return nil, errAt(file, entry, at, "expected a mapping, got %s", yaml11.Describe(entry))
		}
		var cron *yaml11.Node
		if s := entry.Get("schedule"); !s.Falsy() {
			if s.Kind != yaml11.Map {
				return nil, errAt(file, s, at+"/schedule", "expected a mapping, got %s", yaml11.Describe(s))
			}
			cron = s.Get("cron")
		}
		if cron.Falsy() {
			cron = entry.Get("cron")
		}
		if cron.Falsy() {
			continue
		}
		var app string
		if a := entry.Get("app"); !a.Falsy() {
			switch a.Kind {
			case yaml11.String:
				app = a.Str
			case yaml11.Seq, yaml11.Map:
				return nil, errAt(file, a, at+"/app", "expected a string, got %s", yaml11.Describe(a))
			default:
				continue // kept by the reference, and matching no pipeline
			}
		} else {
			p := entry.Get("path")
			if !p.Falsy() {
				if p.Kind != yaml11.String {
					return nil, errAt(file, p, at+"/path", "expected a string, got %s", yaml11.Describe(p))
				}
				app = appFromPath(p.Str)
			}
			if app == "" {
				continue
			}
		}
		name := app
		if n := entry.Get("name"); !n.Falsy() {
			name = yaml11.PyStr(n)
		}
		flows = append(flows, Flow{Name: name, App: app, Cron: yaml11.PyStr(cron)})
	}
	return flows, nil
}

// appFromPath is the segment after the first one that starts with "apps",
// or "" when there is none (a deployment manifest names the app in the
// path of the flow's code).
func appFromPath(path string) string {
	parts := pathParts(path)
	if strings.HasPrefix(path, "/") {
		parts = append([]string{"/"}, parts...)
	}
	for i, p := range parts {
		if strings.HasPrefix(p, "apps") && i+1 < len(parts) {
			return parts[i+1]
		}
	}
	return ""
}

// checkSchedules compares the graph with a deployment's crons (§7.3, §7.4):
// for the first edge of each producer → consumer pair, every flow of the
// producer's app against every flow of the consumer's; then every active
// pipeline whose app has no flow.
func checkSchedules(g *Graph, flows []Flow) []Finding {
	byApp := map[string][]Flow{}
	for _, f := range flows {
		byApp[f.App] = append(byApp[f.App], f)
	}
	var out []Finding
	seen := map[[2]int32]bool{}
	for i := range g.Edges {
		e := &g.Edges[i]
		pair := [2]int32{e.producer, e.consumer}
		if seen[pair] {
			continue
		}
		seen[pair] = true
		pf, cf := byApp[appOf(e.Producer)], byApp[appOf(e.Consumer)]
		ambiguous := len(pf) > 1 || len(cf) > 1
		for _, p := range pf {
			for _, c := range cf {
				if f, ok := compareFlows(e, p, c, ambiguous); ok {
					out = append(out, f)
				}
			}
		}
	}
	for i := range g.Pipelines {
		p := &g.Pipelines[i]
		if _, ok := byApp[p.App()]; p.Active && !ok {
			out = append(out, Finding{Kind: NotDeployed, Pipeline: p.Name,
				Detail: p.Name + " is marked active but no scheduled flow in this deployment runs it"})
		}
	}
	return out
}

func compareFlows(e *Edge, p, c Flow, ambiguous bool) (Finding, bool) {
	finding := func(kind Kind, detail string) (Finding, bool) {
		if ambiguous {
			kind = ScheduleUnverified
			detail += " — one of these apps deploys several flows, so this pairing may not be the one that moves the data"
		}
		return Finding{Kind: kind, Pipeline: e.Consumer, Dataset: e.Dataset, Detail: detail}, true
	}
	reads := e.Consumer + " reads " + e.Dataset + " from " + e.Producer
	if p.Cron == c.Cron {
		return finding(ScheduleCollision, c.Name+" and "+p.Name+" both run '"+p.Cron+"', yet "+reads+" — which run it sees depends on which starts first")
	}
	if !hourly(p.Cron) || !hourly(c.Cron) {
		return Finding{}, false
	}
	pm, cm := minutes(pyFields(p.Cron)[0]), minutes(pyFields(c.Cron)[0])
	var shared []int
	for _, m := range pm {
		if _, ok := slices.BinarySearch(cm, m); ok {
			shared = append(shared, m)
		}
	}
	if len(shared) > 0 {
		list := make([]string, 0, 6)
		for _, m := range shared[:min(6, len(shared))] {
			list = append(list, strconv.Itoa(m))
		}
		more := ""
		if len(shared) > 6 {
			more = "…"
		}
		return finding(ScheduleCollision, c.Name+" ('"+c.Cron+"') and "+p.Name+" ('"+p.Cron+"') both fire at minute "+
			strings.Join(list, ", ")+more+", and "+reads)
	}
	if len(cm) > 0 && len(pm) > 0 && cm[len(cm)-1] < pm[0] {
		return finding(ScheduleInversion, c.Name+" ('"+c.Cron+"') always runs before "+p.Name+" ('"+p.Cron+"') within the hour, yet "+
			reads+" — it succeeds every time on the previous hour's data")
	}
	return Finding{}, false
}

// hourly reports whether a cron fires every hour of every day: exactly five
// fields, the last four "*". Only then are its minutes comparable.
func hourly(cron string) bool {
	f := pyFields(cron)
	return len(f) == 5 && f[1] == "*" && f[2] == "*" && f[3] == "*" && f[4] == "*"
}

// pyFields is Python's str.split(): runs of whitespace, which for Python
// also include the separators U+001C–U+001F.
func pyFields(s string) []string { return strings.FieldsFunc(s, pySpace) }

func pySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// maxMinute bounds the minutes a field may name. Real fields stay under 60;
// a range such as 0-99999999999 would have the reference build a set of
// that size, and here is cut at the bound.
const maxMinute = 1 << 20

// minutes expands a cron minute field into the sorted minutes it names
// (§7.3): a comma-separated list of "*" or "", a-b, n, each with an optional
// /s; a bare n with a step s > 1 runs from n to 59 (Prefect's reading). A
// part of any other form, a step of 0 or a number Python's int() refuses
// contributes nothing (§12 N4).
func minutes(field string) []int {
	set := map[int]bool{}
	for _, part := range strings.Split(field, ",") {
		step := 1
		if before, rawStep, ok := strings.Cut(part, "/"); ok {
			part = before
			if isDigits(rawStep) {
				n, ok := pyInt(rawStep)
				if !ok {
					continue
				}
				step = n
			}
		}
		var start, end int
		switch {
		case part == "*" || part == "":
			start, end = 0, 59
		case strings.Contains(part, "-"):
			rawStart, rawEnd, _ := strings.Cut(part, "-")
			var ok1, ok2 bool
			start, ok1 = pyInt(rawStart)
			end, ok2 = pyInt(rawEnd)
			if !ok1 || !ok2 {
				continue
			}
		case isDigits(part):
			start, _ = pyInt(part)
			end = start
			if step > 1 {
				end = 59
			}
		default:
			continue
		}
		if step <= 0 {
			continue // range() refuses a step of 0
		}
		for m := start; m <= min(end, maxMinute); m += step {
			set[m] = true
		}
	}
	out := make([]int, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// isDigits is str.isdigit() for ASCII digits: non-empty, digits only.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pyInt is Python's int() of a string, for ASCII digits: surrounding
// whitespace, a sign, and single underscores between digits allowed. Values
// beyond maxMinute read as maxMinute+1, which names no minute.
func pyInt(s string) (int, bool) {
	s = strings.TrimFunc(s, pySpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		if n <= maxMinute {
			n = n*10 + int(c-'0')
		}
	}
	n = min(n, maxMinute+1)
	if neg {
		n = -n
	}
	return n, true
}

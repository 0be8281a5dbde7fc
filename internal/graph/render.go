package graph

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Format is one of the graph's renderings (graph.md §8).
type Format string

// The renderings.
const (
	Tree    Format = "tree"
	Order   Format = "order"
	JSON    Format = "json"
	Mermaid Format = "mermaid"
)

// ParseFormat accepts the four format names, exactly.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(s); f {
	case Tree, Order, JSON, Mermaid:
		return f, true
	}
	return "", false
}

// Render writes a rendering of g, ending with exactly one newline (§12.1 C11).
func Render(w io.Writer, g *Graph, f Format) error {
	bw := bufio.NewWriter(w)
	switch f {
	case Tree:
		writeTree(bw, g)
	case Order:
		writeOrder(bw, g)
	case Mermaid:
		writeMermaid(bw, g)
	case JSON:
		writeJSON(bw, g)
	default:
		return fmt.Errorf("unknown format %q", f)
	}
	return bw.Flush()
}

// writeTree is §8.1: each tier, each pipeline with its producers, then the
// external dependencies no edge used. Like every text rendering it is a
// list of lines joined with newlines, a line that starts with one making the
// empty line between sections.
func writeTree(w *bufio.Writer, g *Graph) {
	var lines []string
	var b strings.Builder
	for i, tier := range g.tiers {
		lines = append(lines, "\ntier "+strconv.Itoa(i))
		for _, p := range tier {
			pl := &g.Pipelines[p]
			b.Reset()
			b.WriteString("  ")
			b.WriteString(pl.Name)
			if !pl.Active {
				b.WriteString(" (inactive)")
			}
			producers := g.producersOf(p)
			switch {
			case len(producers) > 0:
				b.WriteString("  <- ")
				for k, u := range producers {
					if k > 0 {
						b.WriteString(", ")
					}
					b.WriteString(g.Pipelines[u].Name)
					if g.optionalFrom(u, p) {
						b.WriteString(" (optional)")
					}
					if !g.Pipelines[u].Active {
						b.WriteString(" (inactive)")
					}
				}
			case !pl.Declared:
				b.WriteString("  (inputs not declared)")
			}
			lines = append(lines, b.String())
		}
	}
	if unmet := g.Unmet(); len(unmet) > 0 {
		lines = append(lines, "\nsatisfied outside this scan")
		for _, d := range unmet {
			lines = append(lines, "  "+d)
		}
	}
	writeLines(w, lines)
}

// writeLines writes lines joined with newlines, and the final newline.
func writeLines(w *bufio.Writer, lines []string) {
	for i, l := range lines {
		if i > 0 {
			w.WriteByte('\n')
		}
		w.WriteString(l)
	}
	w.WriteByte('\n')
}

// Unmet are the patterns of external dependencies that no edge of the whole
// graph used, distinct and sorted: the datasets satisfied outside this scan.
func (g *Graph) Unmet() []string {
	used := make(map[string]bool, len(g.Edges))
	for _, e := range g.Edges {
		used[e.Pattern] = true
	}
	var out []string
	for i := range g.Pipelines {
		for _, d := range g.Pipelines[i].DependsOn {
			if d.External && !used[d.Dataset] {
				out = append(out, d.Dataset)
			}
		}
	}
	return sortedSet(out)
}

func (g *Graph) optionalFrom(producer, consumer int32) bool {
	for _, e := range g.in[consumer] {
		if g.Edges[e].producer == producer && g.Edges[e].Optional {
			return true
		}
	}
	return false
}

// writeOrder is §8.2: the run order, numbered, right-aligned to the width of
// its own length (§12.1 C12).
func writeOrder(w *bufio.Writer, g *Graph) {
	n := 0
	for _, t := range g.tiers {
		n += len(t)
	}
	width := len(strconv.Itoa(n))
	pos := 0
	for _, t := range g.tiers {
		for _, p := range t {
			pos++
			if pos > 1 {
				w.WriteByte('\n')
			}
			fmt.Fprintf(w, "%*d. %s", width, pos, g.Pipelines[p].Name)
			if !g.Pipelines[p].Active {
				w.WriteString("   # inactive")
			}
		}
	}
	w.WriteByte('\n')
}

// writeMermaid is §8.3: every pipeline, then every edge, duplicates kept.
func writeMermaid(w *bufio.Writer, g *Graph) {
	w.WriteString("graph LR")
	for i := range g.Pipelines {
		name := g.Pipelines[i].Name
		fmt.Fprintf(w, "\n    %s[\"%s\"]", mermaidID(name), name)
	}
	for _, e := range g.Edges {
		arrow := "-->"
		if e.Optional {
			arrow = "-.->"
		}
		fmt.Fprintf(w, "\n    %s %s %s", mermaidID(e.Producer), arrow, mermaidID(e.Consumer))
	}
	w.WriteByte('\n')
}

var mermaidReplacer = strings.NewReplacer("/", "__", "-", "_", ".", "_")

func mermaidID(name string) string { return mermaidReplacer.Replace(name) }

// writeJSON is §8.4, laid out as the reference's json.dumps(indent=2) lays
// it out, strings escaped to ASCII as it escapes them, so that the text is
// the reference's byte for byte and not only an equal JSON value.
func writeJSON(w *bufio.Writer, g *Graph) {
	j := &pyJSON{w: w}
	j.open('{')
	writeJSONMembers(j, g)
	j.close('}')
	w.WriteByte('\n')
}

// WriteJSONMembers writes the members of the json rendering's object (§8.4:
// pipelines, edges, tiers, findings, in that order) as compact JSON, without
// the braces around them: for a caller that sets members of its own beside
// them, as the server sets the revision. The values are those of the json
// rendering.
func WriteJSONMembers(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	j := &pyJSON{w: bw, compact: true}
	// The members are written as inside an object of their own, whose
	// braces are not written.
	j.count = append(j.count, 0)
	writeJSONMembers(j, g)
	return bw.Flush()
}

func writeJSONMembers(j *pyJSON, g *Graph) {
	j.objects("pipelines", len(g.Pipelines), func(i int) {
		p := &g.Pipelines[i]
		j.strMember("name", p.Name)
		j.strMember("path", p.Path)
		j.boolMember("declared", p.Declared)
		j.key("produces")
		j.strs(p.Keys())
		j.objects("depends_on", len(p.DependsOn), func(i int) {
			d := &p.DependsOn[i]
			j.strMember("dataset", d.Dataset)
			j.boolMember("external", d.External)
			j.boolMember("optional", d.Optional)
			j.key("description")
			j.strOrNull(d.Description)
		})
	})
	j.objects("edges", len(g.Edges), func(i int) {
		e := &g.Edges[i]
		j.strMember("producer", e.Producer)
		j.strMember("consumer", e.Consumer)
		j.strMember("dataset", e.Dataset)
		j.strMember("pattern", e.Pattern)
		j.boolMember("optional", e.Optional)
	})
	j.key("tiers")
	j.open('[')
	for _, t := range g.tiers {
		j.item()
		j.open('[')
		for _, p := range t {
			j.item()
			j.str(g.Pipelines[p].Name)
		}
		j.close(']')
	}
	j.close(']')
	j.objects("findings", len(g.Findings), func(i int) {
		f := &g.Findings[i]
		j.strMember("kind", string(f.Kind))
		j.key("pipeline")
		j.strOrNull(stringIf(f.Pipeline, f.HasPipeline()))
		j.key("dataset")
		j.strOrNull(stringIf(f.Dataset, f.HasDataset()))
		j.strMember("detail", f.Detail)
	})
}

// stringIf is &s when ok, else nil.
func stringIf(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// pyJSON writes JSON as Python's json.dumps(indent=2) does: a newline and
// two more spaces before every member, ", "-free separators at line ends,
// ": " after keys, "[]" and "{}" for empty containers.
type pyJSON struct {
	w     *bufio.Writer
	depth int
	count []int // members written, per open container
	// compact writes no newlines or indentation and no space after a
	// key's colon: the same value in fewer bytes.
	compact bool
}

// objects writes the member key: a list of n objects, the members of the
// i-th written by members(i).
func (j *pyJSON) objects(key string, n int, members func(i int)) {
	j.key(key)
	j.open('[')
	for i := range n {
		j.item()
		j.open('{')
		members(i)
		j.close('}')
	}
	j.close(']')
}

func (j *pyJSON) open(c byte) {
	j.w.WriteByte(c)
	j.depth++
	j.count = append(j.count, 0)
}

func (j *pyJSON) close(c byte) {
	n := j.count[len(j.count)-1]
	j.count = j.count[:len(j.count)-1]
	j.depth--
	if n > 0 {
		j.newline()
	}
	j.w.WriteByte(c)
}

// item starts an array element or an object member.
func (j *pyJSON) item() {
	if j.count[len(j.count)-1] > 0 {
		j.w.WriteByte(',')
	}
	j.count[len(j.count)-1]++
	j.newline()
}

func (j *pyJSON) newline() {
	if j.compact {
		return
	}
	j.w.WriteByte('\n')
	for range j.depth {
		j.w.WriteString("  ")
	}
}

func (j *pyJSON) key(k string) {
	j.item()
	j.str(k)
	if j.compact {
		j.w.WriteByte(':')
		return
	}
	j.w.WriteString(": ")
}

func (j *pyJSON) bool(b bool) {
	if b {
		j.w.WriteString("true")
	} else {
		j.w.WriteString("false")
	}
}

func (j *pyJSON) null() { j.w.WriteString("null") }

// strOrNull writes *s, or null for nil.
func (j *pyJSON) strOrNull(s *string) {
	if s == nil {
		j.null()
		return
	}
	j.str(*s)
}

// strs writes an array of strings.
func (j *pyJSON) strs(ss []string) {
	j.open('[')
	for _, s := range ss {
		j.item()
		j.str(s)
	}
	j.close(']')
}

func (j *pyJSON) strMember(k, v string) {
	j.key(k)
	j.str(v)
}

func (j *pyJSON) boolMember(k string, v bool) {
	j.key(k)
	j.bool(v)
}

// str writes s as json.dumps with ensure_ascii does: \" \\ \n \r \t \b \f,
// any other character outside printable ASCII as \uXXXX (lower-case hex, a
// surrogate pair beyond the BMP). A byte that is not UTF-8 is written as
// U+FFFD.
func (j *pyJSON) str(s string) {
	const hex = "0123456789abcdef"
	u := func(r rune) {
		j.w.WriteString(`\u`)
		j.w.WriteByte(hex[r>>12&0xf])
		j.w.WriteByte(hex[r>>8&0xf])
		j.w.WriteByte(hex[r>>4&0xf])
		j.w.WriteByte(hex[r&0xf])
	}
	j.w.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			j.w.WriteString(`\"`)
		case r == '\\':
			j.w.WriteString(`\\`)
		case r == '\n':
			j.w.WriteString(`\n`)
		case r == '\r':
			j.w.WriteString(`\r`)
		case r == '\t':
			j.w.WriteString(`\t`)
		case r == '\b':
			j.w.WriteString(`\b`)
		case r == '\f':
			j.w.WriteString(`\f`)
		case r >= 0x20 && r <= 0x7e:
			j.w.WriteByte(byte(r))
		case r > 0xffff:
			r -= 0x10000
			u(0xd800 | (r>>10)&0x3ff)
			u(0xdc00 | r&0x3ff)
		default:
			u(r) // utf8.RuneError for a byte that is not UTF-8
		}
	}
	j.w.WriteByte('"')
}

// WriteSummary writes what the command prints on standard error after every
// rendering but json (§2 step 5): an empty line, the counts, the skipped
// overlays, then every finding.
func WriteSummary(w io.Writer, g *Graph, skippedOverlays []string) error {
	bw := bufio.NewWriter(w)
	declared := 0
	for i := range g.Pipelines {
		if g.Pipelines[i].Declared {
			declared++
		}
	}
	fmt.Fprintf(bw, "\n%d pipelines (%d declaring inputs), %d edges\n", len(g.Pipelines), declared, len(g.Edges))
	for _, p := range skippedOverlays {
		fmt.Fprintf(bw, "  skipped overlay: %s\n", p)
	}
	for _, f := range g.Findings {
		fmt.Fprintf(bw, "  %s: %s\n", f.Kind, f.Detail)
	}
	return bw.Flush()
}

// producersOf are the distinct producers of a pipeline's edges, by name.
func (g *Graph) producersOf(c int32) []int32 {
	var out []int32
	for _, e := range g.in[c] {
		out = append(out, g.Edges[e].producer)
	}
	return g.byNameSet(out)
}

// consumersOf are the distinct consumers of a pipeline's edges, by name.
func (g *Graph) consumersOf(p int32) []int32 {
	var out []int32
	for _, e := range g.out[p] {
		out = append(out, g.Edges[e].consumer)
	}
	return g.byNameSet(out)
}

func (g *Graph) byNameSet(ps []int32) []int32 {
	slices.Sort(ps)
	ps = slices.Compact(ps)
	slices.SortFunc(ps, func(a, b int32) int { return strings.Compare(g.Pipelines[a].Name, g.Pipelines[b].Name) })
	return ps
}

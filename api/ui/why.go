package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/search"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// whyView is one field a search by words found a dataset in: its name as
// a page says it, and its value (or the part of it around the words) with
// the words found marked.
type whyView struct {
	Field string
	Texts [][]search.Span // one per value: each tag, each owner
}

// excerptBytes is how much of a long text (a description) a results page
// shows around the first word found.
const excerptBytes = 160

// why are the fields other than the key that q found h in, in the order
// of search.Field, each value holding a word found.
func why(snap *snapshot.Snapshot, q *search.Query, h snapshot.Hit) []whyView {
	rule := h.Dataset.Rule()
	var out []whyView
	add := func(field string, texts ...string) {
		v := whyView{Field: field}
		for _, t := range texts {
			spans := q.Spans(t)
			if marked(spans) {
				v.Texts = append(v.Texts, spans)
			}
		}
		if len(v.Texts) > 0 {
			out = append(out, v)
		}
	}
	f := h.Found.Fields
	if t, ok := rule.Title(); f.Has(search.Title) && ok {
		add("title", t)
	}
	if f.Has(search.Tag) {
		add("tag", rule.Tags()...)
	}
	if f.Has(search.Owner) {
		var names []string
		for _, o := range rule.Ownership() {
			name := o.Name
			if e := snap.Owners.ByID(o.Name); e != nil {
				if e.Name != nil && *e.Name != "" {
					name = *e.Name + " (" + e.ID + ")"
				}
				if len(e.Aliases) > 0 {
					name += ", also " + strings.Join(e.Aliases, ", ")
				}
			}
			names = append(names, name)
		}
		add("owner", names...)
	}
	if f.Has(search.App) {
		add("app", h.Dataset.App.Name)
	}
	if s := rule.SourceSystem(); f.Has(search.Source) && s != nil {
		add("source system", *s)
	}
	if d, ok := rule.Description(); f.Has(search.Description) && ok {
		// Folded YAML keeps line breaks; an excerpt reads as one line.
		text := strings.Join(strings.Fields(d), " ")
		if v := excerpt(q.Spans(text), excerptBytes); marked(v) {
			out = append(out, whyView{Field: "description", Texts: [][]search.Span{v}})
		}
	}
	return out
}

func marked(spans []search.Span) bool {
	for _, s := range spans {
		if s.Mark {
			return true
		}
	}
	return false
}

// excerpt keeps about n bytes of spans from a little before the first
// marked one, an ellipsis where text was cut.
func excerpt(spans []search.Span, n int) []search.Span {
	first := 0 // the first marked span: spans alternate, so 0 or 1
	for i, s := range spans {
		if s.Mark {
			first = i
			break
		}
	}
	var out []search.Span
	budget := n
	// Up to a third of the budget before the first word found.
	if first > 0 {
		before := spans[first-1].Text
		if keep := n / 3; len(before) > keep {
			// From the first word that starts in the last third.
			cut := len(before) - keep
			if sp := strings.IndexByte(before[cut:], ' '); sp >= 0 {
				cut += sp + 1
			}
			for cut < len(before) && !utf8.RuneStart(before[cut]) {
				cut++
			}
			before = "…" + before[cut:]
		}
		out = append(out, search.Span{Text: before})
		budget -= len(before)
	}
	for _, s := range spans[first:] {
		if budget <= 0 {
			out = append(out, search.Span{Text: "…"})
			break
		}
		if !s.Mark && len(s.Text) > budget {
			cut := budget
			for cut > 0 && !utf8.RuneStart(s.Text[cut]) {
				cut--
			}
			out = append(out, search.Span{Text: s.Text[:cut] + "…"})
			break
		}
		out = append(out, s)
		budget -= len(s.Text)
	}
	return out
}

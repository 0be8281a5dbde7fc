package ui

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/search"
)

func TestProse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []paragraph
	}{
		{"plain text", []paragraph{{{Text: "plain text"}}}},
		{"Published by `mt`, so a search\nfinds it.", []paragraph{{{Text: "Published by "}, {Text: "mt", Code: true}, {Text: ", so a search finds it."}}}},
		{"one\n\n  two  \n\n\n three", []paragraph{{{Text: "one"}}, {{Text: "two"}}, {{Text: "three"}}}},
		{"a `` b`c `` d", []paragraph{{{Text: "a "}, {Text: "b`c", Code: true}, {Text: " d"}}}},
		{"an unclosed ` tick", []paragraph{{{Text: "an unclosed ` tick"}}}},
		{"``not closed`", []paragraph{{{Text: "``not closed`"}}}},
		{"`<script>alert(1)</script>` and <b>bold</b>", []paragraph{{{Text: "<script>alert(1)</script>", Code: true}, {Text: " and <b>bold</b>"}}}},
		{"` `", []paragraph{{{Text: " ", Code: true}}}},
		{"", nil},
		{"\n \n", nil},
	} {
		if diff := cmp.Diff(c.want, prose(c.in)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.in, diff)
		}
	}
}

// FuzzProse: any description reads as paragraphs holding its words, in
// order, and renders to HTML with no element but p and code.
func FuzzProse(f *testing.F) {
	for _, s := range []string{"a `b` c", "``x`` `", "one\n\ntwo", "<b>`<i>`</b>", "`` ` ``", "\x00`\xff`"} {
		f.Add(s)
	}
	tmpl := template.Must(template.New("p").Parse(`{{range .}}<p>{{range .}}{{if .Code}}<code>{{.Text}}</code>{{else}}{{.Text}}{{end}}{{end}}</p>{{end}}`))
	f.Fuzz(func(t *testing.T, s string) {
		paras := prose(s)
		var words []string
		for _, p := range paras {
			for _, r := range p {
				words = append(words, search.Words(r.Text)...)
			}
		}
		if want := search.Words(s); strings.Join(want, " ") != strings.Join(words, " ") {
			t.Fatalf("%q: words %q, want %q", s, words, want)
		}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, paras); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		out = strings.NewReplacer("<p>", "", "</p>", "", "<code>", "", "</code>", "").Replace(out)
		if strings.ContainsAny(out, "<>") {
			t.Fatalf("%q renders markup: %s", s, buf.String())
		}
	})
}

package ui

import (
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/search"
)

// TestExcerpt: a long description is cut around its first word found, at
// word boundaries before it, the cuts marked.
func TestExcerpt(t *testing.T) {
	q, err := search.ParseQuery("gust")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("lorem ipsum dolor ", 20) + "the gust is strong " + strings.Repeat("sit amet ", 40)
	var b strings.Builder
	for _, s := range excerpt(q.Spans(long), excerptBytes) {
		if s.Mark {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	got := b.String()
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "the [gust] is strong") || len(got) > excerptBytes+16 {
		t.Errorf("excerpt %q", got)
	}
	if strings.Contains(got, "…orem") || strings.Contains(got, "…psum") || strings.Contains(got, "…olor") {
		t.Errorf("cut inside a word: %q", got)
	}
	short := q.Spans("a gust")
	if got := excerpt(short, excerptBytes); len(got) != 2 || got[1].Text != "gust" {
		t.Errorf("a short text: %v", got)
	}
}

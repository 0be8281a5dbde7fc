package api

import (
	"os"
	"strings"
	"testing"
)

// TestEveryProblemTypeIsDocumented holds each problem kind's type URI to a
// section of README.md: a client following the link must land on an
// explanation, not a 404 or the top of the page.
func TestEveryProblemTypeIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for kind := range problemTitles {
		if !strings.Contains(string(readme), `id="problem-`+kind+`"`) {
			t.Errorf("README.md has no anchor problem-%s for the problem type %s%s", kind, ProblemBase, kind)
		}
	}
}

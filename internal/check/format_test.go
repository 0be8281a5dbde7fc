package check

import (
	"strings"
	"testing"
)

func TestGitHubEscaping(t *testing.T) {
	if got := ghProperty("a,b:c%\n"); got != "a%2Cb%3Ac%25%0A" {
		t.Errorf("ghProperty = %q", got)
	}
	if got := ghData("50% done\r\nnext"); got != "50%25 done%0D%0Anext" {
		t.Errorf("ghData = %q", got)
	}
}

func TestURIReference(t *testing.T) {
	for in, want := range map[string]string{
		"apps/grid/governance.yaml": "apps/grid/governance.yaml",
		"apps/[ab] x/*":             "apps/%5Bab%5D%20x/*",
		"apps/%zz":                  "apps/%25zz",
		"a:b/c":                     "a%3Ab/c",
		"x/a:b":                     "x/a:b",
		"/abs/path":                 "/abs/path",
		"apps/é":                    "apps/%C3%A9",
	} {
		if got := uriReference(in); got != want {
			t.Errorf("uriReference(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(uriReference(in), " []") {
			t.Errorf("uriReference(%q) keeps a character a URI cannot hold", in)
		}
	}
}

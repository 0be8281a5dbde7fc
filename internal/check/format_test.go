package check

import (
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

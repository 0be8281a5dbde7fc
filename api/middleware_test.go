package api

import (
	"net/http"
	"testing"
)

// headerValue reads the map directly, which finds only canonical names.
func TestHeaderNamesAreCanonical(t *testing.T) {
	for _, name := range []string{requestIDHeader, revisionHeader} {
		if c := http.CanonicalHeaderKey(name); c != name {
			t.Errorf("%q is read with headerValue but its canonical form is %q", name, c)
		}
	}
}

package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// boolParam reads an optional true/false query parameter; nil when absent.
func boolParam(q url.Values, name string) (*bool, error) {
	v := q.Get(name)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, badRequest("query parameter %s must be true or false, not %q", name, v)
	}
	return &b, nil
}

// flag reads a boolean query parameter with a default.
func flag(q url.Values, name string, def bool) (bool, error) {
	b, err := boolParam(q, name)
	if err != nil || b == nil {
		return def, err
	}
	return *b, nil
}

func badRequest(format string, a ...any) *requestError {
	return &requestError{status: http.StatusBadRequest, kind: "bad-request", detail: fmt.Sprintf(format, a...)}
}

// intParam reads an optional whole-number query parameter within [lo, hi],
// def when absent.
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s must be a whole number from %d to %d, not %q", name, lo, hi, v)
	}
	return n, nil
}

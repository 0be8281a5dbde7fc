package api

import (
	"net/http"
)

// report is the check report of the tree being served: the same shape POST
// /validate answers, for the same inputs.
func (s *server) report(w http.ResponseWriter, r *http.Request) {
	snap := s.current(w, r)
	if snap == nil {
		return
	}
	format, err := reportFormat(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if treeHeaders(w, r, snap) {
		return
	}
	// The body is rendered once per revision and format and shared by every
	// request: no request renders or copies it, so concurrent reports cost
	// no more memory than one and need no slot of their own.
	body, err := snap.ReportBody(format)
	if err != nil {
		writeError(w, r, err)
		return
	}
	write(w, http.StatusOK, reportTypes[format], body)
}

// reportTypes are the formats a report is served in over HTTP and their media
// types. (The CLI's text and github formats are for terminals and workflow logs.)
var reportTypes = map[string]string{
	"json":  jsonType,
	"sarif": "application/sarif+json",
}

func reportFormat(r *http.Request) (string, error) {
	f := r.URL.Query().Get("format")
	if f == "" {
		return "json", nil
	}
	if _, ok := reportTypes[f]; !ok {
		return "", badRequest("format must be json or sarif, not %q", f)
	}
	return f, nil
}

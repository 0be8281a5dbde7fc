package api

import (
	"io"
	"net/http"

	"github.com/celine-eu/governanced/internal/check"
)

// report is the check report of the tree being served: the same shape POST
// /validate answers, for the same inputs. The body is rendered once per
// revision and format and shared by every request (revisionAnswers): no
// request renders or copies it, so concurrent reports cost no more memory
// than one and need no slot of their own.
func (s *server) report(r *http.Request) (result, error) {
	snap, err := s.current()
	if err != nil {
		return result{}, err
	}
	format, err := reportFormat(r)
	if err != nil {
		return result{}, err
	}
	body, err := s.answers.of(s.store, snap).reportBody(format)
	if err != nil {
		return result{snap: snap}, err
	}
	return result{snap: snap, tree: true, contentType: reportTypes[format], body: body}, nil
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

// uploadBases place an uploaded tree's files in a SARIF log: every path is
// relative to the upload's root, which stands for the repository's.
var uploadBases = &check.SARIFBases{
	Descriptions: map[string]string{check.SRCROOT: "The root of the uploaded tree: the repository it was taken from."},
	Locate:       func(file string) (string, string) { return check.SRCROOT, file },
}

// writeUploadReport renders the report of an uploaded tree's check in one
// of reportTypes' formats.
func writeUploadReport(w io.Writer, rep *check.Report, format string) error {
	if format == "sarif" {
		return rep.WriteSARIFIn(w, uploadBases)
	}
	return rep.Write(w, format)
}

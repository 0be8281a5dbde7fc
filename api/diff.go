package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/diff"
	"github.com/celine-eu/governanced/internal/memfs"
	"github.com/celine-eu/governanced/internal/reportformat"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// diffTypes are the media types of POST /diff's formats: ?format= names
// one, else the Accept header chooses by media type.
var diffTypes = map[string]string{
	"json":     jsonType,
	"markdown": "text/markdown; charset=utf-8",
	"text":     "text/plain; charset=utf-8",
	"sarif":    "application/sarif+json",
}

// diffFormats are diffTypes' formats in the order a message names them.
var diffFormats = []string{"json", "markdown", "text", "sarif"}

// diffRequest is a POST /diff read from its query and body.
type diffRequest struct {
	format string
	window diffWindow
	// inputs are the check options for two uploaded trees; nil when the
	// head is compared with the served tree, which brings its own.
	inputs     *snapshot.Inputs
	head, base *memfs.FS    // base nil: the served tree is the base
	budget     check.Budget // of each tree's check, as a validation's
}

// diffTrees are the two sides of a diff, built.
type diffTrees struct {
	base, head diff.Tree
}

// buildDiff is how POST /diff builds its two trees; a test replaces it to
// hold a diff in progress.
var buildDiff = func(ctx context.Context, store *snapshot.Store, req *diffRequest) (*diffTrees, error) {
	if req.base == nil {
		served, head, err := store.CheckUpload(ctx, req.head, req.budget)
		if err != nil {
			return nil, err
		}
		return &diffTrees{base: served.Tree(), head: head.Tree("")}, nil
	}
	loader := func(fsys *memfs.FS) *snapshot.Loader {
		return &snapshot.Loader{Inputs: *req.inputs, FS: fsys, Budget: req.budget}
	}
	base, err := loader(req.base).Check(ctx, nil)
	if err != nil {
		return nil, err
	}
	head, err := loader(req.head).Check(ctx, base)
	if err != nil {
		return nil, err
	}
	return &diffTrees{base: base.Tree(""), head: head.Tree("")}, nil
}

// diff compares an uploaded head tree with the served tree, or with an
// uploaded base tree (internal/diff), and answers the report, 200 whatever
// it finds. It takes a validation slot: a diff checks a tree as a
// validation does (against the served tree, only the units that differ
// from it).
func (s *server) diff(r *http.Request) (result, error) {
	format, err := diffFormat(r)
	var window diffWindow
	if err == nil {
		window, err = diffWindowOf(r)
	}
	if err != nil {
		s.metrics.diffs.WithLabelValues("rejected").Inc()
		return result{}, err
	}
	release, err := takeSlot(s.validations, "validation", retryAfterSeconds)
	if err != nil {
		s.metrics.diffs.WithLabelValues("busy").Inc()
		return result{}, err
	}
	mem := s.newAccount(r.Context(), "this diff")
	req, err := s.readDiff(r, bufio.NewReader(r.Body), mem)
	if err != nil {
		mem.release()
		release()
		s.metrics.diffs.WithLabelValues("rejected").Inc()
		return result{}, err
	}
	req.format, req.window = format, window
	// Each tree's check is bounded as a validation's, and the units it
	// builds, which the diff keeps, are charged to its working memory.
	req.budget = s.budget()
	req.budget.Memory = kept(mem)
	s.metrics.validating.Inc()
	build := buildDiff
	res, err := runBounded(r, mem, func() {
		s.metrics.validating.Dec()
		release()
	}, func(ctx context.Context, mem *account) (result, error) {
		trees, err := build(ctx, s.store, req)
		if err != nil {
			return result{}, diffError(err)
		}
		rep, err := diff.Compare(ctx, trees.base, trees.head)
		if err != nil {
			return result{}, diffError(err)
		}
		var buf bytes.Buffer
		if err := req.window.write(&buf, rep, req.format); err != nil {
			return result{}, err
		}
		outcome := "no-change"
		if !rep.Empty() {
			outcome = "changes"
		}
		s.metrics.diffs.WithLabelValues(outcome).Inc()
		return okResult(diffTypes[req.format], bytes.TrimRight(buf.Bytes(), "\n")), nil
	})
	if refused(r, err) {
		s.metrics.diffs.WithLabelValues("rejected").Inc()
	}
	return res, err
}

// A diff's answer is bounded however many datasets the trees change: it
// holds the report's summary (both sides, every kind with its count) in
// full, and of each list — apps, datasets, findings added, findings
// resolved — the entries from ?offset, at most ?limit of them (default
// defaultDiffLimit, at most maxDiffLimit). The JSON report's page member
// says how many each list holds in all and the offset of the next page, as
// does the SARIF log's run property page; the text and Markdown renderings
// end with a line saying so. A client gets the
// rest by posting the same trees again with ?offset=next_offset.
const (
	defaultDiffLimit = 1000
	maxDiffLimit     = 10_000
)

// diffWindow is the part of the lists an answer holds.
type diffWindow struct{ offset, limit int }

func diffWindowOf(r *http.Request) (diffWindow, error) {
	return pageWindow(r.URL.Query(), defaultDiffLimit)
}

// pageWindow reads ?limit (def when absent, at most maxDiffLimit) and
// ?offset.
func pageWindow(q url.Values, def int) (diffWindow, error) {
	limit, err := intParam(q, "limit", def, 1, maxDiffLimit)
	if err != nil {
		return diffWindow{}, err
	}
	offset, err := intParam(q, "offset", 0, 0, math.MaxInt32)
	return diffWindow{offset: offset, limit: limit}, err
}

// diffPage is what the window left out: the JSON report's page member.
type diffPage struct {
	Offset int        `json:"offset"`
	Limit  int        `json:"limit"`
	Total  diffTotals `json:"total"`
	// NextOffset is the offset of the next page, null on the last.
	NextOffset *int `json:"next_offset"`
}

// diffTotals are the lengths of the report's lists.
type diffTotals struct {
	Apps             int `json:"apps"`
	Datasets         int `json:"datasets"`
	FindingsAdded    int `json:"findings_added"`
	FindingsResolved int `json:"findings_resolved"`
}

// cut returns the report with each list cut to the window, and the page.
func (win diffWindow) cut(rep *diff.Report) (*diff.Report, diffPage) {
	page := diffPage{Offset: win.offset, Limit: win.limit, Total: diffTotals{
		Apps: len(rep.Apps), Datasets: len(rep.Datasets),
		FindingsAdded: len(rep.Findings.Added), FindingsResolved: len(rep.Findings.Resolved)}}
	t := page.Total
	if next := win.offset + win.limit; next < max(t.Apps, t.Datasets, t.FindingsAdded, t.FindingsResolved) {
		page.NextOffset = &next
	}
	out := *rep
	out.Apps = window(rep.Apps, win)
	out.Datasets = window(rep.Datasets, win)
	out.Findings.Added = window(rep.Findings.Added, win)
	out.Findings.Resolved = window(rep.Findings.Resolved, win)
	return &out, page
}

func window[T any](s []T, win diffWindow) []T {
	lo := min(win.offset, len(s))
	return s[lo:min(lo+win.limit, len(s))]
}

// write renders the window of rep in format.
func (win diffWindow) write(w io.Writer, rep *diff.Report, format string) error {
	cut, page := win.cut(rep)
	if format == "json" {
		// The report's own JSON rendering, with the page after its members.
		return reportformat.JSON(w, struct {
			*diff.Report
			Page diffPage `json:"page"`
		}{cut, page})
	}
	if format == "sarif" {
		return cut.WriteSARIF(w, page)
	}
	if err := cut.Write(w, format); err != nil {
		return err
	}
	if page.Offset == 0 && page.NextOffset == nil {
		return nil
	}
	t := page.Total
	note := fmt.Sprintf("This answer lists entries %d to %d of each list (apps: %d, datasets: %d, findings added: %d, resolved: %d).",
		page.Offset+1, page.Offset+page.Limit, t.Apps, t.Datasets, t.FindingsAdded, t.FindingsResolved)
	if page.NextOffset != nil {
		note += fmt.Sprintf(" POST the same trees with ?offset=%d for the next.", *page.NextOffset)
	}
	if format == "markdown" {
		note = "_" + note + "_"
	}
	_, err := fmt.Fprintf(w, "\n%s\n", note)
	return err
}

// diffError maps a failed build to its answer.
func diffError(err error) error {
	switch {
	case errors.Is(err, snapshot.ErrNotServing):
		return &requestError{status: http.StatusServiceUnavailable, kind: "not-ready",
			detail: "no tree is served yet to compare the upload with; send the base tree too (a part named base)"}
	case errors.Is(err, snapshot.ErrSeveralTrees):
		return badRequest("the served tree has several roots, which one upload cannot stand in for; send the base tree too (a part named base)")
	}
	return checkError(err)
}

// diffFormat is the answer's format: the format parameter, else the first
// of the Accept header's media types that is a format's (a wildcard is
// JSON), else JSON.
func diffFormat(r *http.Request) (string, error) {
	if f := r.URL.Query().Get("format"); f != "" {
		if _, ok := diffTypes[f]; !ok {
			return "", badRequest("format must be %s, not %q", strings.Join(diffFormats, ", "), f)
		}
		return f, nil
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		if mt == "*/*" || mt == "application/*" {
			return "json", nil
		}
		for _, f := range diffFormats {
			if t, _, _ := mime.ParseMediaType(diffTypes[f]); t == mt {
				return f, nil
			}
		}
	}
	return "json", nil
}

// readDiff reads the trees: a tar or gzip body is the head; multipart holds
// a part named head and, optionally, one named base, each a tar or gzip
// archive. Both count against the upload limits together. Check options in
// the query (relative to each upload's root, as POST /validate takes them)
// apply to two uploaded trees; against the served tree the served options
// apply, and giving any is refused.
func (s *server) readDiff(r *http.Request, body *bufio.Reader, mem *account) (*diffRequest, error) {
	kind, err := bodyKind(r, body)
	if err != nil {
		return nil, uploadError(err)
	}
	req := &diffRequest{}
	budget := &extractor{maxFiles: s.limits.MaxUploadFiles, maxBytes: s.limits.MaxUploadBytes, parseLimit: s.parseLimit()}
	extract := func(kind uploadKind, rd io.Reader) (*memfs.FS, error) {
		x := &extractor{maxFiles: budget.maxFiles - budget.entries, maxBytes: budget.maxBytes - budget.written, mem: mem, parseLimit: budget.parseLimit}
		err := x.extractArchive(kind, rd)
		budget.entries += x.entries
		budget.written += x.written
		budget.costliest = max(budget.costliest, x.costliest)
		if err != nil {
			return nil, uploadError(err)
		}
		return &x.tree, nil
	}
	if kind != uploadMultipart {
		if req.head, err = extract(kind, body); err != nil {
			return nil, err
		}
	} else {
		err := formParts(r.Header.Get("Content-Type"), body, func(name, _ string, content io.Reader) error {
			var dst **memfs.FS
			switch name {
			case "head":
				dst = &req.head
			case "base":
				dst = &req.base
			default:
				return &requestError{status: http.StatusBadRequest, kind: "invalid-upload",
					detail: fmt.Sprintf("part %q: the parts are head and base, each a tar or gzip archive", name)}
			}
			if *dst != nil {
				return &requestError{status: http.StatusBadRequest, kind: "invalid-upload", detail: fmt.Sprintf("part %q is given twice", name)}
			}
			br := bufio.NewReader(content)
			kind, ok := sniffArchive(br)
			if !ok {
				return &requestError{status: http.StatusBadRequest, kind: "invalid-upload", detail: fmt.Sprintf("part %q is neither a tar nor a gzip archive", name)}
			}
			var err error
			*dst, err = extract(kind, br)
			return err
		})
		if err != nil {
			return nil, uploadError(err)
		}
		if req.head == nil {
			return nil, &requestError{status: http.StatusBadRequest, kind: "invalid-upload", detail: "no part named head: it holds the tree to compare"}
		}
	}
	if err := s.chargeParsing(mem, budget.costliest); err != nil {
		return nil, err
	}
	opts, given, err := diffInputs(r)
	if err != nil {
		return nil, err
	}
	switch {
	case req.base != nil:
		req.inputs = &opts
	case given:
		return nil, badRequest("check options are given for an upload compared with the served tree, which is checked with the served options; send the base tree too (a part named base) to choose them")
	}
	return req, nil
}

// diffInputs reads the check options of two uploaded trees from the query:
// POST /validate's, but each tree is a tree root (no path). given reports
// whether any was.
func diffInputs(r *http.Request) (snapshot.Inputs, bool, error) {
	q := r.URL.Query()
	in := snapshot.Inputs{Trees: []string{"."}}
	if _, ok := q["path"]; ok {
		return in, true, badRequest("path is not an option of a diff: each upload is a tree root")
	}
	opts, err := checkOptionsQuery(q)
	if err != nil {
		return in, false, err
	}
	given := false
	for _, k := range []string{"owners", "overlay_dir", "overlay_name", "placeholders", "dataspace", "strict", "infer_from_dir"} {
		if _, ok := q[k]; ok {
			given = true
		}
	}
	in.Strict, in.NoInferFromDir = opts.Strict, opts.NoInferFromDir
	in.Owners = opts.Owners
	if opts.OverlayDir != nil {
		in.OverlayDir = *opts.OverlayDir
	}
	if opts.OverlayName != nil {
		if !check.ValidOverlayName(*opts.OverlayName) {
			return in, given, badRequest("invalid overlay_name %q: it must be non-empty, not . or .., and contain no / or \\", *opts.OverlayName)
		}
		in.OverlayName = *opts.OverlayName
	}
	if opts.PlaceholdersFile != nil {
		in.Placeholders = *opts.PlaceholdersFile
	}
	in.Dataspace = opts.Dataspace
	return in, given, nil
}

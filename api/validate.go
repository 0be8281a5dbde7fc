package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"sync"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// retryAfterSeconds is the Retry-After of a validation refused for want of a
// slot: about what a typical tree takes to check.
const retryAfterSeconds = 2

// checkGovernance is the tree check; a test replaces it to hold a validation
// in progress.
var runCheck = check.Run

// validate runs the tree check on an uploaded tree, or on one YAML document
// as the base of a one-app tree (check.md via check.Run, the function
// `governanced validate` runs) and answers the report, 200
// whatever it finds. A malformed upload or options the check refuses are
// 400, an upload over the limits 413. The tree is read into memory and the
// check ends with the request.
func (s *server) validate(r *http.Request) (result, error) {
	opts, format, err := validateOptions(r)
	if err == nil && isDocument(r) {
		err = documentOptions(opts)
	}
	if err != nil {
		s.metrics.validations.WithLabelValues("rejected").Inc()
		return result{}, err
	}
	release, err := takeSlot(s.validations, "validation", retryAfterSeconds)
	if err != nil {
		s.metrics.validations.WithLabelValues("busy").Inc()
		return result{}, err
	}
	mem := s.newAccount(r.Context(), "this validation")
	x := &extractor{maxFiles: s.limits.MaxUploadFiles, maxBytes: s.limits.MaxUploadBytes, mem: mem, parseLimit: s.parseLimit()}
	err = readUpload(r, bufio.NewReader(r.Body), x)
	if err == nil {
		err = s.chargeParsing(mem, x.costliest)
	}
	if err != nil {
		mem.release()
		release()
		s.metrics.validations.WithLabelValues("rejected").Inc()
		return result{}, err
	}
	if len(opts.Paths) == 0 {
		opts.Paths = defaultPaths(&x.tree)
	}
	opts.FS = &x.tree
	opts.Budget = s.budget()
	opts.Budget.Memory = checked(mem)
	s.metrics.validating.Inc()
	run := runCheck
	res, err := runBounded(r, mem, func() {
		s.metrics.validating.Dec()
		release()
	}, func(ctx context.Context, mem *account) (result, error) {
		rep, err := run(ctx, opts)
		if err != nil {
			return result{}, checkError(err)
		}
		var buf bytes.Buffer
		if err := writeUploadReport(&buf, rep, format); err != nil {
			return result{}, err
		}
		result := "pass"
		if !rep.OK {
			result = "fail"
		}
		s.metrics.validations.WithLabelValues(result).Inc()
		return okResult(reportTypes[format], bytes.TrimRight(buf.Bytes(), "\n")), nil
	})
	if refused(r, err) {
		s.metrics.validations.WithLabelValues("rejected").Inc()
	}
	return res, err
}

// checkError maps a check that could not run to its answer: 400 for
// options the check refuses, 413 over the budget; other errors (the
// context's) stay as they are.
func checkError(err error) error {
	var usage *check.UsageError
	var over *check.BudgetError
	switch {
	case errors.As(err, &usage):
		return badRequest("%s", usage.Msg)
	case errors.As(err, &over):
		return tooMuchToCheck(over)
	}
	return err
}

// takeSlot takes one of slots, or refuses the request at once with 429
// and Retry-After: a queue of waiting requests would hold their bodies and
// connections for nothing, and 429 is what curl --retry and CI clients back
// off on. release gives the slot back; calling it again does nothing.
func takeSlot(slots chan struct{}, kind string, retryAfter int) (release func(), err error) {
	select {
	case slots <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-slots }) }, nil
	default:
		return nil, busy(kind, cap(slots), retryAfter)
	}
}

// readUpload extracts the body into x, mapping every failure to 400 or 413.
func readUpload(r *http.Request, body *bufio.Reader, x *extractor) error {
	if isDocument(r) {
		return uploadError(x.file(documentName, body))
	}
	kind, err := bodyKind(r, body)
	switch {
	case err != nil:
	case kind == uploadMultipart:
		err = x.extractFiles(r.Header.Get("Content-Type"), body)
	default:
		err = x.extractArchive(kind, body)
	}
	return uploadError(err)
}

// uploadError maps a failure to read an upload to its answer: 400, 408 for
// a body that stopped arriving, 413 over the limits; nil stays nil.
func uploadError(err error) error {
	var re *requestError
	if errors.As(err, &re) {
		return re
	}
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case slowBody(err) != nil:
		return slowBody(err)
	case errors.As(err, &tooLarge):
		return bodyTooLarge(tooLarge)
	case errors.Is(err, errUploadTooLarge):
		return &requestError{status: http.StatusRequestEntityTooLarge, kind: "payload-too-large", detail: err.Error()}
	}
	return &requestError{status: http.StatusBadRequest, kind: "invalid-upload", detail: err.Error()}
}

// defaultPaths is what to check when the client names no path: the apps of a
// tree root, else a lone governance.yaml at the top.
func defaultPaths(tree fs.FS) []string {
	if info, err := fs.Stat(tree, "apps"); err == nil && info.IsDir() {
		return []string{"apps/*"}
	}
	return []string{"governance.yaml"}
}

// validateOptions reads the check's options and the report's format from
// the query.
func validateOptions(r *http.Request) (check.Options, string, error) {
	format, err := reportFormat(r)
	if err != nil {
		return check.Options{}, "", err
	}
	opts, err := checkOptionsQuery(r.URL.Query())
	return opts, format, err
}

// checkOptionsQuery reads the check's options from a query: the CLI's check
// options (cli.CheckFlags) under their snake_case names, every path
// relative to the upload's root.
func checkOptionsQuery(q url.Values) (check.Options, error) {
	var opts check.Options
	var err error
	inside := func(name, v string) (string, error) {
		rel, ok, err := safeRelPath(v)
		if err != nil {
			return "", badRequest("%s must be a path inside the upload: %v", name, err)
		}
		if !ok {
			return ".", nil
		}
		return rel, nil
	}
	// every is each value of name, a path inside the upload.
	every := func(name string) ([]string, error) {
		var rels []string
		for _, v := range q[name] {
			rel, err := inside(name, v)
			if err != nil {
				return nil, err
			}
			rels = append(rels, rel)
		}
		return rels, nil
	}
	if opts.Paths, err = every("path"); err != nil {
		return opts, err
	}
	if opts.Owners, err = every("owners"); err != nil {
		return opts, err
	}
	single := func(name string) (*string, error) {
		vs, ok := q[name]
		if !ok {
			return nil, nil
		}
		if len(vs) > 1 {
			return nil, badRequest("%s may be given once", name)
		}
		return &vs[0], nil
	}
	// once is name's one value, a path inside the upload; nil when absent.
	once := func(name string) (*string, error) {
		v, err := single(name)
		if err != nil || v == nil {
			return nil, err
		}
		rel, err := inside(name, *v)
		if err != nil {
			return nil, err
		}
		return &rel, nil
	}
	if opts.OverlayDir, err = once("overlay_dir"); err != nil {
		return opts, err
	}
	if opts.PlaceholdersFile, err = once("placeholders"); err != nil {
		return opts, err
	}
	// The check refuses an invalid overlay name as a usage error.
	if opts.OverlayName, err = single("overlay_name"); err != nil {
		return opts, err
	}
	if opts.Strict, err = flag(q, "strict", false); err != nil {
		return opts, err
	}
	if opts.Dataspace, err = flag(q, "dataspace", false); err != nil {
		return opts, err
	}
	infer, err := flag(q, "infer_from_dir", true)
	if err != nil {
		return opts, err
	}
	opts.NoInferFromDir = !infer
	return opts, nil
}

// chargeParsing charges what a check's workers parse at once: a document
// each, none costlier than the costliest of the upload.
func (s *server) chargeParsing(mem *account, costliest int64) error {
	return mem.charge(int64(s.limits.ValidationWorkers) * costliest)
}

// parseLimit is the largest file of an upload a check parses: a larger one
// is a load-error finding, unread.
func (s *server) parseLimit() int {
	return min(s.limits.MaxUploadDocumentBytes, yaml11.MaxDocumentBytes)
}

// budget is what checking one upload may cost (Limits).
func (s *server) budget() check.Budget {
	return check.Budget{
		Units: s.limits.MaxUploadApps, Sources: s.limits.MaxUploadSources, Values: s.limits.MaxUploadValues,
		DocumentBytes: s.limits.MaxUploadDocumentBytes, Workers: s.limits.ValidationWorkers,
	}
}

// tooMuchToCheck is the answer to an upload over its budget: 413.
func tooMuchToCheck(over *check.BudgetError) error {
	return &requestError{status: http.StatusRequestEntityTooLarge, kind: "payload-too-large",
		detail: over.Error() + "; check the tree in parts, or run `governanced validate` on it"}
}

package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/celine-eu/governanced/internal/check"
)

// CheckOptions are the tree check's options for the inputs: the same call
// `governanced validate` makes for the same PATHs and flags.
func (in Inputs) CheckOptions() check.Options {
	opts := check.Options{Paths: in.Paths(), Owners: in.Owners, Dir: in.Dir}
	if in.OverlayDir != "" {
		opts.OverlayDir = &in.OverlayDir
	}
	if in.OverlayName != "" {
		opts.OverlayName = &in.OverlayName
	}
	if in.Placeholders != "" {
		// The file, not a parsed map: the check then reports a broken map with
		// its file and line like any other input.
		opts.PlaceholdersFile = &in.Placeholders
	}
	return opts
}

// runCheck runs the tree check over the inputs and builds the app of every
// unit it materialises, from the check's own documents, as it goes: the check
// then lets go of a unit's documents at once, instead of holding the whole
// tree's until the end (Options.OnUnit). Apps built for a check that fails are
// dropped with it. A usage error (an invalid overlay name, placeholders
// without owners) is returned as an error: no revision of such inputs can
// ever pass.
//
// With a memo (a store's reloads), a unit whose bytes did not change since
// the memo's last check is not checked again, and its app is the one built
// then: apps hold nothing of the revision they were first served in.
func runCheck(in Inputs, workers int, memo *check.Memo) (*checked, error) {
	opts := in.CheckOptions()
	opts.Workers = workers
	opts.Memo = memo
	// The app travels on the unit itself (Unit.Served), so a reused unit
	// brings the app built from the same inputs.
	opts.OnUnit = func(u *check.Unit) {
		if !u.Reused {
			a, err := buildApp(servedUnit(u))
			u.Served = &builtApp{app: a, err: err}
		}
	}
	rep, err := check.CheckGovernance(opts)
	if err != nil {
		return nil, err
	}
	var apps []*App
	var buildErrs []error
	for _, u := range rep.Units {
		if !u.Materialized || u.Config == nil {
			continue
		}
		b, ok := u.Served.(*builtApp)
		if !ok { // only the hook above attaches to the memo's units
			b = &builtApp{err: fmt.Errorf("%s: reused without the app built from it", u.Base)}
		}
		if b.err != nil {
			buildErrs = append(buildErrs, b.err)
			continue
		}
		apps = append(apps, b.app)
	}
	if len(buildErrs) > 0 {
		return nil, errors.Join(buildErrs...)
	}
	// The report is kept for its findings (GET /report, a rejection's text).
	// Its units would keep every configuration and app of the check alive
	// with it, a rejected tree's included: what is served was taken above.
	rep.Units = nil
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		return nil, err
	}
	out := &checked{
		owners:       rep.Owners,
		placeholders: rep.Placeholders,
		report:       bytes.TrimSpace(buf.Bytes()),
		full:         rep,
		ok:           !rep.HasErrors(),
		apps:         apps,
	}
	for _, f := range rep.Findings {
		if f.Severity == check.Error {
			out.problems = append(out.problems, describe(f))
		}
	}
	return out, nil
}

// builtApp is what runCheck attaches to a unit (check.Unit.Served): the app
// built from it, or why it could not be (deterministic: the same bytes fail
// the same way).
type builtApp struct {
	app *App
	err error
}

// servedUnit is a materialised unit of the check as the snapshot serves it.
func servedUnit(u *check.Unit) unit {
	app := u.App
	if app == "" {
		// A tree root named as "." holds its governance.yaml with no
		// directory in its display path; the directory's own name serves.
		if abs, err := filepath.Abs(u.BaseFile); err == nil {
			app = filepath.Base(filepath.Dir(abs))
		}
	}
	return unit{app: app, base: u.Base, overlay: u.Overlay, baseFile: u.BaseFile, overlayFile: u.OverlayFile, config: u.Config,
		baseRoot: u.BaseRoot, overlayRoot: u.OverlayRoot}
}

// describe renders a finding as one log line: where, what, why.
func describe(f check.Finding) string {
	loc := f.File
	if loc == "" {
		loc = "-"
	} else if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	s := fmt.Sprintf("%s: %s: %s", loc, f.Severity, f.Code)
	if f.Dataset != nil {
		s += " [" + *f.Dataset + "]"
	}
	return s + ": " + f.Message
}

package diff

import (
	"fmt"
	"io"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/sarif"
)

// kindDescriptions say what each kind means, as a SARIF rule's short
// description.
var kindDescriptions = map[Kind]string{
	DatasetAdded:          "A dataset key the base does not resolve in its app.",
	DatasetRemoved:        "A dataset key the head no longer resolves in its app.",
	FieldChanged:          "A field of a dataset's resolved rule changes.",
	CatalogueExposed:      "The dataset is newly listed in the catalogue (expose turns true).",
	CatalogueWithdrawn:    "The dataset is withdrawn from the catalogue (expose turns false).",
	DataspaceOffered:      "The dataset is newly offered into the dataspace (dataspace.expose turns true).",
	DataspaceWithdrawn:    "The dataset is withdrawn from the dataspace (dataspace.expose turns false).",
	RowPolicyRemoved:      "The dataset's row policy is gone: it is served whole.",
	RowPolicyAdded:        "A dataset served whole gains a row policy.",
	RowPolicyChanged:      "The dataset's row policy is another one.",
	AccessLevelLowered:    "access_level moves down open < internal < restricted.",
	AccessLevelRaised:     "access_level moves up open < internal < restricted.",
	ClassificationLowered: "classification moves down green < yellow < red < pii.",
	ClassificationRaised:  "classification moves up green < yellow < red < pii.",
	OwnerChanged:          "The dataset's resolved owners differ.",
	LicenceChanged:        "The dataset's licence differs.",
	ConsentDropped:        "dataspace.consent_required turns from true to false.",
	ContractDropped:       "dataspace.contract_required turns from true to false.",
	NewError:              "An error of the head tree's check that the base's has not: a server would refuse the head.",
	NewWarning:            "A warning of the head tree's check that the base's has not.",
}

// appNotCompared is the SARIF rule of an app a side could not materialise:
// no kind of its own, but the reason its datasets are missing from the log.
const appNotCompared = "app-not-compared"

// sarifLevel is a kind's level: an error for a new error, a warning for a
// new warning and for a risky kind, a note for the rest.
func sarifLevel(k Kind) string {
	switch {
	case k == NewError:
		return "error"
	case k == NewWarning || k.Risky():
		return "warning"
	}
	return "note"
}

// sarifRunProps are the run's properties: the report's summary, in full
// whatever part of the lists the log holds, and the page when it holds a
// part.
type sarifRunProps struct {
	Version int         `json:"diff_version"`
	Base    Side        `json:"base"`
	Head    Side        `json:"head"`
	Kinds   []KindCount `json:"kinds"`
	Page    any         `json:"page,omitempty"`
}

// sarifResultProps say what a result is about, as the JSON report names it.
type sarifResultProps struct {
	App     string `json:"app"`
	Dataset string `json:"dataset,omitempty"`
	Field   string `json:"field,omitempty"`
	// Side is "base" when the location is the base tree's (a removed
	// dataset, a value the head no longer states), else "head".
	Side string `json:"side"`
}

// WriteSARIF renders the report as a SARIF 2.1.0 log with one run, for
// code scanning: a rule per kind that occurs (and app-not-compared), a
// result per line of the text rendering — an app not compared, a dataset
// added or removed, a derived change, a field change, a new finding
// (resolved findings are no result: nothing is left to show) — located at
// the head's file and line, or the base's where the head states nothing
// (the message names the base's file; the location is that file at the
// head's place, the base being the same repository at another commit).
// Every file is relative to %SRCROOT%, the directory the head's paths start
// from: the repository's root for a server's tree or a command run there. page, when not nil, is the run's
// page property: which part of the lists the log holds.
func (r *Report) WriteSARIF(w io.Writer, page any) error {
	run := sarif.NewRun(sarifRunProps{Version: r.Version, Base: r.Base, Head: r.Head, Kinds: r.Kinds, Page: page})
	run.OriginalURIBaseIDs = map[string]sarif.ArtifactLocation{
		check.SRCROOT: {Description: &sarif.Text{Text: "The directory the diff's paths start from: the root of the repository the head tree is a checkout of."}},
	}
	add := func(rule, description, level string, loc sarifPlace, msg string, props sarifResultProps) {
		i := run.Rule(rule, description, level)
		if loc.base {
			msg += " (at the base's " + loc.display + ")"
			props.Side = "base"
		} else {
			props.Side = "head"
		}
		region := sarif.Region{StartLine: max(loc.line, 1), StartColumn: loc.column}
		run.Results = append(run.Results, sarif.Result{
			RuleID: rule, RuleIndex: i, Level: level, Message: sarif.Text{Text: msg},
			Locations:  []sarif.Location{sarif.FileLocation(loc.file, check.SRCROOT, region)},
			Properties: props,
		})
	}
	kind := func(k Kind, loc sarifPlace, msg string, props sarifResultProps) {
		add(string(k), kindDescriptions[k], sarifLevel(k), loc, msg, props)
	}
	for _, a := range r.Apps {
		if a.Status != AppUnresolved {
			continue // its datasets are each added or removed
		}
		level := "warning"
		if a.Unresolved == "base" {
			level = "note"
		}
		add(appNotCompared, "An app a side could not materialise (its check has errors): its datasets are not compared.", level,
			r.headPlace(a.File, 1, 0),
			fmt.Sprintf("app %s: not materialised in the %s tree (its check has errors): its datasets are not compared", a.App, a.Unresolved),
			sarifResultProps{App: a.App})
	}
	for i := range r.Datasets {
		d := &r.Datasets[i]
		props := sarifResultProps{App: d.App, Dataset: d.Dataset}
		switch d.Status {
		case Added:
			kind(DatasetAdded, r.keySARIFPlace(d), fmt.Sprintf("added %s %s", d.App, d.Dataset), props)
		case Removed:
			kind(DatasetRemoved, r.keySARIFPlace(d), fmt.Sprintf("removed %s %s: the head no longer declares it", d.App, d.Dataset), props)
		}
		for j := range d.Derived {
			x := &d.Derived[j]
			props.Field = x.Field
			kind(x.Kind, r.originPlace(d, x.Origin, x.BaseOrigin),
				fmt.Sprintf("%s %s: %s: %s %s → %s", d.App, d.Dataset, x.Kind, x.Field, x.Old, x.New), props)
		}
		for j := range d.Fields {
			f := &d.Fields[j]
			props.Field = f.Field
			kind(FieldChanged, r.originPlace(d, f.Origin, f.BaseOrigin),
				fmt.Sprintf("%s %s: %s: %s → %s", d.App, d.Dataset, f.Field, value(f.Old, 200), value(f.New, 200)), props)
		}
	}
	for _, f := range r.Findings.Added {
		k := NewWarning
		if f.Severity == check.Error {
			k = NewError
		}
		file := f.File
		if file == "" {
			file = "." // a finding about the whole tree: its root
		}
		props := sarifResultProps{}
		if f.Dataset != nil {
			props.Dataset = *f.Dataset
		}
		kind(k, r.headPlace(file, f.Line, f.Column), "new "+r.findingText(f, r.headFile), props)
	}
	return sarif.Write(w, run)
}

// sarifPlace is where a result is: the file relative to %SRCROOT%, its
// display path as the text rendering names it, and whether it is the
// base's.
type sarifPlace struct {
	file, display string
	line, column  int
	base          bool
}

func (r *Report) headPlace(file string, line, column int) sarifPlace {
	p := r.headFile(file)
	return sarifPlace{file: p, display: p, line: line, column: column}
}

// baseSARIFPlace is a place in the base, located where the file is at the
// head's place: the base is the same repository at another commit (a ref's
// tree, a checkout beside), and code scanning places results in the head's
// repository. The display path, in the message, is the base's own.
func (r *Report) baseSARIFPlace(file string, line, column int) sarifPlace {
	return sarifPlace{file: r.headFile(file), display: fmt.Sprintf("%s:%d", r.baseFile(file), line), line: line, column: column, base: true}
}

// originPlace is where a changed value is best shown: the head's statement,
// else the base's, else the dataset's key.
func (r *Report) originPlace(d *DatasetChange, head, base *Origin) sarifPlace {
	switch {
	case head != nil:
		return r.headPlace(head.File, head.Line, head.Column)
	case base != nil:
		return r.baseSARIFPlace(base.File, base.Line, base.Column)
	}
	return r.keySARIFPlace(d)
}

// keySARIFPlace is where the dataset's key is declared: in the head, else
// in the base.
func (r *Report) keySARIFPlace(d *DatasetChange) sarifPlace {
	if d.Head != nil {
		return r.headPlace(d.Head.File, d.Head.Line, d.Head.Column)
	}
	return r.baseSARIFPlace(d.Base.File, d.Base.Line, d.Base.Column)
}

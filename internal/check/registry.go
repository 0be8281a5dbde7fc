package check

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// ownersArg is one --owners argument that loaded and validated.
type ownersArg struct {
	arg  int
	disp string
	doc  *yaml11.Node
	file *owners.File
}

// loadOwners examines every --owners file and the placeholder map, and builds
// the merged registry only when all of them are clean (check.md §9.6, §9.7):
// resolving names against part of a registry would report owners that exist.
// When they hold the bytes Options.RegistryBuild was made from, it is taken
// whole instead.
func (p *planner) loadOwners() {
	if len(p.opts.Owners) == 0 {
		return
	}
	p.readRegistryFiles()
	sum := p.registrySum()
	if prev := p.opts.RegistryBuild; prev != nil && prev.sum == sum && p.opts.Placeholders == nil {
		p.registry, p.placeholders = prev.registry, prev.placeholders
		p.findings = append(p.findings, prev.findings...)
		p.registryBuild = prev
		return
	}
	from := len(p.findings)
	p.buildRegistry()
	if p.opts.Placeholders == nil {
		p.registryBuild = &RegistryBuild{sum: sum, registry: p.registry, placeholders: p.placeholders,
			findings: slices.Clone(p.findings[from:])}
	}
}

// RegistryBuild is what a plan made of its owners files and placeholder
// map: the registry, the map, and the findings examining them gave. A
// later plan whose files hold the same bytes under the same names would
// make the same, and takes it (Options.RegistryBuild).
type RegistryBuild struct {
	sum          [32]byte // the files' names and bytes (registrySum)
	registry     *owners.Registry
	placeholders map[string]string
	findings     []Finding
}

// readRegistryFiles reads the owners files and the placeholder map, in
// that order, for buildRegistry.
func (p *planner) readRegistryFiles() {
	p.registryFiles = map[string]registryFile{}
	read := func(disp string) {
		if _, ok := p.registryFiles[disp]; !ok {
			p.registryFiles[disp] = registryFile{file: p.readFile(disp), regular: p.tree.isRegular(disp)}
		}
	}
	for _, arg := range p.opts.Owners {
		read(displayPath(arg))
	}
	if p.opts.Placeholders == nil && p.opts.PlaceholdersFile != nil {
		read(displayPath(*p.opts.PlaceholdersFile))
	}
}

// registryFile is an owners file or the placeholder map as read.
type registryFile struct {
	file    File
	regular bool
}

// registrySum is a hash of everything buildRegistry reads: each owners
// file and the placeholder map by name, whether it is a regular file, and
// its bytes or why they could not be read.
func (p *planner) registrySum() [32]byte {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	file := func(disp string) {
		f := p.registryFiles[disp]
		field([]byte(disp))
		switch {
		case !f.regular:
			field([]byte("irregular"))
		case f.file.Err != nil:
			field([]byte("error: " + f.file.Err.Error()))
		default:
			field([]byte("data"))
			field(f.file.Data)
		}
	}
	for _, arg := range p.opts.Owners {
		file(displayPath(arg))
	}
	if p.opts.PlaceholdersFile != nil {
		field([]byte("placeholders"))
		file(displayPath(*p.opts.PlaceholdersFile))
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// buildRegistry examines the owners files and the placeholder map read,
// and builds the registry when every one is clean.
func (p *planner) buildRegistry() {
	clean := true
	var args []ownersArg
	for i, arg := range p.opts.Owners {
		disp := displayPath(arg)
		l, t := p.readInput(disp, "owners", CodeOwnersFileNotFound)
		if l == nil {
			clean = false
			continue
		}
		for _, v := range mustViolations(l.root, schemas.Owners, disp) {
			t.add(violationFinding(CodeOwnersSchemaViolation, disp, v))
		}
		if t.errors {
			clean = false
			continue
		}
		f, err := owners.ParseDocument(l.root, l.dups, disp)
		if err != nil {
			// The strict schema is meant to refuse everything the loader does.
			t.add(Finding{Severity: Error, Code: CodeLoadError, File: disp, Message: err.Error()})
			clean = false
			continue
		}
		args = append(args, ownersArg{arg: i, disp: disp, doc: l.root, file: f})
	}
	if !p.loadPlaceholders() {
		clean = false
	}
	if !clean {
		p.placeholders = nil
		p.add(Finding{Severity: Info, Code: CodeOwnersNotLoaded,
			Message: "the owners registry was not built because an owners or placeholders input failed: ownership names were not checked"})
		return
	}
	files := make([]*owners.File, len(args))
	for i, a := range args {
		files[i] = a.file
	}
	p.registry = owners.Materialise(files...)
	p.registryDiagnostics(args)
}

// registryDiagnostics reports what merging the files did (check.md §9.7):
// replacements within one argument and across files, and aliases the
// registry ignored.
func (p *planner) registryDiagnostics(args []ownersArg) {
	type holder struct {
		arg  int
		disp string
	}
	held := map[string]holder{}
	for _, a := range args {
		items := a.doc.Get("owners").Items
		for i, e := range a.file.Entries {
			if h, seen := held[e.ID]; seen && i < len(items) {
				entry := items[i]
				switch {
				case h.arg == a.arg:
					idv := entry.Get("id")
					p.add(Finding{Severity: Warning, Code: CodeOwnersDuplicateID, File: a.disp, Line: idv.Pos.Line, Column: idv.Pos.Column,
						path: ptr("owners", strconv.Itoa(i), "id"), Subject: str(e.ID),
						Message: fmt.Sprintf("owner id %s is written twice in this file: the later entry replaces the earlier one whole", quoted(e.ID))})
				case h.disp != a.disp:
					p.add(Finding{Severity: Info, Code: CodeOwnersShadowed, File: a.disp, Line: entry.Pos.Line, Column: entry.Pos.Column,
						path: ptr("owners", strconv.Itoa(i)), Subject: str(e.ID),
						Message: fmt.Sprintf("owner %s of %s is replaced whole by this entry (no field-by-field merge)", quoted(e.ID), h.disp)})
				}
			}
			held[e.ID] = holder{arg: a.arg, disp: a.disp}
		}
	}

	// The registry itself decides which aliases it ignored; only their paths
	// are recovered here, from the alias positions it reports.
	type at struct {
		file string
		pos  yaml11.Pos
	}
	type aliasRef struct{ entry, index int }
	aliasAt := map[at]aliasRef{}
	for _, a := range args {
		for i, item := range a.doc.Get("owners").Items {
			if al := item.Get("aliases"); al != nil && al.Kind == yaml11.Seq {
				for j, it := range al.Items {
					aliasAt[at{a.disp, it.Pos}] = aliasRef{i, j}
				}
			}
		}
	}
	for _, w := range p.registry.Warnings() {
		var code string
		switch w.Code {
		case owners.WarnAliasShadowsID:
			code = CodeOwnersAliasShadowsID
		case owners.WarnAliasClaimed:
			code = CodeOwnersAliasConflict
		default:
			continue // replacements are reported above, duplicate YAML keys by the loader
		}
		f := Finding{Severity: Warning, Code: code, File: w.File, Line: w.Pos.Line, Column: w.Pos.Column, Message: w.Msg}
		if ref, ok := aliasAt[at{w.File, w.Pos}]; ok {
			f.path = ptr("owners", strconv.Itoa(ref.entry), "aliases", strconv.Itoa(ref.index))
			for _, a := range args {
				if a.disp == w.File {
					f.Subject = str(a.file.Entries[ref.entry].Aliases[ref.index])
					break
				}
			}
		}
		p.add(f)
	}
}

// loadPlaceholders reads the placeholder map, when one is given, and reports
// whether it is usable.
func (p *planner) loadPlaceholders() bool {
	if p.opts.Placeholders != nil {
		p.placeholders = p.opts.Placeholders
		return true
	}
	if p.opts.PlaceholdersFile == nil {
		return true
	}
	disp := displayPath(*p.opts.PlaceholdersFile)
	l, t := p.readInput(disp, "placeholders", CodePlaceholdersInvalid)
	if l == nil {
		return false
	}
	m, errs := owners.ReadPlaceholders(l.root, disp)
	for _, e := range errs {
		t.add(Finding{Severity: Error, Code: CodePlaceholdersInvalid, File: disp, Line: e.Pos.Line, Column: e.Pos.Column,
			path: ptr(e.Path), Subject: str(e.Path), Message: e.Msg})
	}
	if !t.errors {
		p.placeholders = m
	}
	return !t.errors
}

// tally passes findings about one input file on to the report and remembers
// whether any of them was an error.
type tally struct {
	p      *planner
	errors bool
}

func (t *tally) add(f Finding) {
	if f.Severity == Error {
		t.errors = true
	}
	t.p.add(f)
}

// readInput reads an owners or placeholders file: a missing file is a finding
// under missingCode, YAML problems and duplicate keys are findings too. The
// document is nil when there is nothing to read.
func (p *planner) readInput(disp, what, missingCode string) (*loaded, *tally) {
	t := &tally{p: p}
	rf := p.registryFiles[disp]
	f := rf.file
	if !rf.regular {
		t.add(Finding{Severity: Error, Code: missingCode, File: disp,
			Message: fmt.Sprintf("%s file %q does not exist or is not a regular file", what, disp)})
		return nil, t
	}
	l, _ := parseYAML(f.Data, f.Err, disp, t.add, nil)
	if l != nil {
		duplicateKeys(l, disp, t.add, nil)
	}
	return l, t
}

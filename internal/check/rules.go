package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// handler is what the check knows of one row-filter handler (check.md §9.3).
type handler struct {
	required  []string
	known     map[string]bool // other known arguments
	openArgs  bool            // arguments beyond the required ones are not checked
	delegable int             // 1 serves a delegated (consent) request, -1 refuses it, 0 not classified
}

const organizationMatch = "organization_match"

// handlers is the fixed registry: the four dataset-api built-ins, whose
// arguments and consent behaviour are read off their implementations, and
// organization_match, known only as far as the ADR's DID rule needs it
// (decision D14: extending the set is a change to the specification).
var handlers = map[string]handler{
	"direct_user_match": {required: []string{"column"}, delegable: 1},
	"rec_registry":      {required: []string{"column"}, known: set("url"), delegable: 1},
	"http_in_list": {required: []string{"column", "url"}, delegable: -1, known: set(
		"method", "headers", "params", "json", "response_path", "timeout_seconds", "max_items", "empty_means_deny", "forward_token")},
	"table_pointer":   {required: []string{"column", "pointer_table", "pointer_key_column"}, known: set("pointer_subject_column"), delegable: -1},
	organizationMatch: {required: []string{"org_type"}, openArgs: true},
}

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// unitView is one materialised unit with the documents it came from: the
// rules read the merged rules, and locate what they find in the file that
// wrote it.
type unitView struct {
	base, overlay       *loadedFile
	baseCfg, overlayCfg *governance.Config // overlayCfg nil without overlay
	cfg                 *governance.Config // the merge: what is served
}

// effective returns the effective block of the defaults (key "" with
// defaults true) or of a source key in a raw document, and whether it is
// the block's nested governance mapping (blockPath gives its path). The
// source is looked up in sources (the KeyIndex of root's sources mapping): a
// linear search of the mapping for every key would be quadratic in the file.
func effective(root *yaml11.Node, sources map[string]*yaml11.Node, defaults bool, key string) (block *yaml11.Node, nested bool) {
	if root == nil {
		return nil, false
	}
	if defaults {
		block = root.Get("defaults")
	} else {
		block = sources[key]
	}
	if block == nil || block.Kind != yaml11.Map {
		return nil, false
	}
	if block.Has("governance") {
		inner := block.Get("governance")
		if inner.Kind != yaml11.Map {
			return nil, false
		}
		return inner, true
	}
	return block, false
}

// blockPath is the path of the block effective found: made only for a
// finding, not for every source.
func blockPath(defaults bool, key string, nested bool) []string {
	segs := []string{"defaults"}
	if !defaults {
		segs = []string{"sources", key}
	}
	if nested {
		segs = with(segs, "governance")
	}
	return segs
}

func rowFilterList(block *yaml11.Node) []*yaml11.Node {
	if block == nil {
		return nil
	}
	if l := block.Get("row_filters"); l != nil && l.Kind == yaml11.Seq {
		return l.Items
	}
	return nil
}

func (c *unitChecker) unitRules(u *unitView) {
	var ovRoot *yaml11.Node
	if u.overlay != nil {
		ovRoot = u.overlay.root
	}
	// Filter entries: the defaults block once (a dataset matching no key is
	// served with it), then each source block (check.md §8, §9.3).
	base, overlay := u.base.root.Get("sources").KeyIndex(), ovRoot.Get("sources").KeyIndex()
	c.filterEntries(u, ovRoot, base, overlay, true, "", nil)
	for _, s := range u.cfg.Sources {
		c.filterEntries(u, ovRoot, base, overlay, false, s.Key, str(s.Key))
	}
	c.served = make([]ServedRule, len(u.cfg.Sources))
	for i := range u.cfg.Sources {
		c.served[i] = c.servedRules(u, i)
		if c.served[i].DataspaceExpose {
			c.offered = append(c.offered, int32(i))
		}
	}
}

// filterEntries checks every row_filters entry that survives the merge in one
// block. The list is the overlay's when the overlay supplied a non-empty one
// (a list it replaced is not served and not checked), else the base's.
func (c *unitChecker) filterEntries(u *unitView, ovRoot *yaml11.Node, baseSources, ovSources map[string]*yaml11.Node, defaults bool, key string, ds *string) {
	file := u.base.display
	block, nested := effective(u.base.root, baseSources, defaults, key)
	if ob, oNested := effective(ovRoot, ovSources, defaults, key); len(rowFilterList(ob)) > 0 {
		file, block, nested = u.overlay.display, ob, oNested
	}
	entries := rowFilterList(block)
	if len(entries) == 0 {
		return
	}
	segs := blockPath(defaults, key, nested)
	for i, entry := range entries {
		c.filterEntry(file, with(segs, "row_filters", strconv.Itoa(i)), entry, ds)
	}
}

func (c *unitChecker) filterEntry(file string, segs []string, entry *yaml11.Node, ds *string) {
	at := func(n *yaml11.Node, sev Severity, code string, path []string, subject, msg string) {
		c.add(Finding{Severity: sev, Code: code, File: file, Line: n.Pos.Line, Column: n.Pos.Column,
			path: ptr(path...), Dataset: ds, Subject: str(subject), Message: msg})
	}
	if entry.Kind != yaml11.Map {
		return // the schema refused it, and the unit would not have been materialised
	}
	hv := entry.Get("handler")
	if hv == nil {
		return
	}
	name := ""
	if hv.Kind == yaml11.String {
		name = hv.Str
	}
	h, known := handlers[name]
	if !known || hv.Kind != yaml11.String {
		at(hv, Error, CodeRowFilterUnknownHandler, with(segs, "handler"), keyText(hv),
			fmt.Sprintf("unknown row-filter handler %s: every query on the dataset would fail naming it (known: direct_user_match, rec_registry, http_in_list, table_pointer, organization_match)", yaml11.ShortRepr(hv)))
		return
	}
	args := entry.Get("args")
	for _, req := range h.required {
		var v *yaml11.Node
		if args != nil && args.Kind == yaml11.Map {
			v = args.Get(req)
		}
		if v == nil || v.Kind != yaml11.String || v.Str == "" {
			at(entry, Error, CodeRowFilterMissingArg, segs, req,
				fmt.Sprintf("handler %s needs argument %q as a non-empty string: it fails at query time without it", name, req))
		}
	}
	if args != nil && args.Kind == yaml11.Map && !h.openArgs {
		for _, p := range args.Pairs {
			t := keyText(p.Key)
			if p.Key.Kind == yaml11.String && (h.known[t] || contains(h.required, t)) {
				continue
			}
			at(p.Key, Warning, CodeRowFilterUnknownArg, with(segs, "args", t), t,
				fmt.Sprintf("handler %s has no argument %s: a misspelled optional argument silently takes its default", name, quoted(t)))
		}
	}
	if name == "http_in_list" && args != nil && args.Kind == yaml11.Map {
		if m := args.Get("method"); m != nil && !unsetMethod(m) {
			if !(m.Kind == yaml11.String && (strings.EqualFold(m.Str, "GET") || strings.EqualFold(m.Str, "POST"))) {
				at(m, Error, CodeRowFilterInvalidArg, with(segs, "args", "method"), "method",
					fmt.Sprintf("http_in_list method %s is neither GET nor POST: every query on the dataset would fail", yaml11.ShortRepr(m)))
			}
		}
	}
}

// unsetMethod is a method the handler reads as "use the default" (null,
// false, 0, "").
func unsetMethod(m *yaml11.Node) bool {
	switch m.Kind {
	case yaml11.Null:
		return true
	case yaml11.Bool:
		return !m.Bool
	case yaml11.Int:
		return m.BigInt == nil && m.Int == 0
	case yaml11.Float:
		return m.Float == 0
	case yaml11.String:
		return m.Str == ""
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// servedRules applies check.md §9.4, §9.5 and §9.8 to one source key through
// its resolved rule, and returns what the rule says of its exposure and
// levels.
func (c *unitChecker) servedRules(u *unitView, i int) ServedRule {
	c.datasets++
	src := &u.cfg.Sources[i]
	key := src.Key
	// The merged rule's gates, not the merged rule: the rest of it would
	// be made for every source and dropped at once.
	r := governance.MergeGates(u.cfg.Defaults, src.Rule)
	served := ServedRule{Expose: r.EffectiveExpose(), DataspaceExpose: r.DataspaceExpose(),
		Conflict: r.ExposureConflict(), Classification: r.Classification, AccessLevel: r.AccessLevel}
	at := c.sourceFinding(u.cfg, i)
	offer := served.DataspaceExpose
	if offer {
		c.offers++
	}
	if served.Conflict != "" {
		at(Error, CodeExposureConflict, nil, "an offered dataset must be listed: "+governance.ConflictSentence)
	}

	filters := r.RowFilters
	legacy := ""
	if c := r.UserFilterColumn; c != nil {
		legacy = *c
	}
	if served.Expose {
		if !c.declaresRowPolicy(u, key, &r) {
			at(Warning, CodeRowPolicyUndeclared, nil,
				"served to every caller whole: no row policy is declared in either layer; add a row_filters entry, or row_filters: [] to say it is deliberately unfiltered")
		}
		switch {
		case len(filters) == 0 && legacy != "":
			at(Warning, CodeLegacyRowFilter, str("user_filter_column"),
				fmt.Sprintf("the row policy exists only in the legacy user_filter_column; write it as row_filters: [{handler: direct_user_match, args: {column: %s}}]", legacy))
		case len(filters) > 0 && legacy != "":
			at(Warning, CodeLegacyRowFilterShadowed, str("user_filter_column"),
				"user_filter_column is ignored: row_filters is set and takes precedence; remove the legacy column")
		}
	}

	if offer && r.ConsentRequired {
		subjectFilter := len(filters) == 0 && legacy != ""
		for _, e := range filters {
			if h, ok := handlers[e.Handler]; ok && h.delegable > 0 {
				subjectFilter = true
			}
		}
		if !subjectFilter {
			at(Error, CodeConsentWithoutSubjectFilter, nil,
				"consent is required but no row filter maps subjects to rows (direct_user_match, rec_registry or the legacy column): consent cannot narrow the rows, so the offer would ignore it")
		}
		for _, e := range filters {
			name := e.Handler
			if h, ok := handlers[name]; ok && h.delegable < 0 {
				at(Warning, CodeConsentFilterNotDelegable, str(name),
					fmt.Sprintf("handler %s refuses delegated (consent) requests: a dataspace query on this offer fails", name))
			}
		}
	}

	if offer && c.owners != nil {
		c.ownerRules(&r, at)
	}
	return served
}

// sourceFinding adds the findings about cfg's i-th source key.
func (c *unitChecker) sourceFinding(cfg *governance.Config, i int) func(sev Severity, code string, subject *string, msg string) {
	src, file := &cfg.Sources[i], cfg.SourceFile(i)
	return func(sev Severity, code string, subject *string, msg string) {
		c.add(Finding{Severity: sev, Code: code, File: file, Line: int(src.Line), Column: int(src.Column),
			path: keyPath, Dataset: str(src.Key), Subject: subject, Message: msg})
	}
}

// declaresRowPolicy is check.md §9.4's test: a surviving filter, the legacy
// column, or row_filters stated — even as [] — in any of the four layers.
func (c *unitChecker) declaresRowPolicy(u *unitView, key string, r *governance.Gates) bool {
	if c := r.UserFilterColumn; len(r.RowFilters) > 0 || (c != nil && *c != "") {
		return true
	}
	states := func(cfg *governance.Config) bool {
		if cfg == nil {
			return false
		}
		if cfg.Defaults != nil && cfg.Defaults.Set.Has(governance.FieldRowFilters) {
			return true
		}
		s := cfg.Source(key)
		return s != nil && s.Rule.Set.Has(governance.FieldRowFilters)
	}
	return states(u.baseCfg) || states(u.overlayCfg)
}

// ownerRules checks the ownership names of a dataspace offer against the
// registry (check.md §9.8).
func (c *unitChecker) ownerRules(r *governance.Gates, at func(Severity, string, *string, string)) {
	orgFilter := false
	for _, e := range r.RowFilters {
		if e.Handler == organizationMatch {
			orgFilter = true
		}
	}
	seenName := map[string]bool{}
	seenID := map[string]bool{}
	for _, o := range r.Ownership {
		if seenName[o.Name] {
			continue
		}
		seenName[o.Name] = true
		id, ok := owners.ResolveName(o.Name, c.owners, c.env.Placeholders)
		if !ok {
			at(Error, CodeOwnerUnresolved, str(o.Name),
				fmt.Sprintf("ownership name %s resolves to no owner of the registry (by id, placeholder or alias): a dataspace offer must name a dataspace party", quoted(o.Name)))
			continue
		}
		if !c.env.Dataspace || !orgFilter || seenID[id] {
			continue
		}
		seenID[id] = true
		if e := c.owners.ByID(id); e != nil && !e.HasDID() {
			at(Error, CodeOwnerDIDMissing, str(id),
				fmt.Sprintf("owner %s has no DID (did or dataspace.did): this offer is narrowed by organization_match, which binds its rows to a dataspace participant", quoted(id)))
		}
	}
}

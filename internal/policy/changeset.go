package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/celine-eu/governanced/internal/textpos"
)

// Changeset is the engine's input (spec §4): the changed columns of a pull
// request, each with its downstream reach, plus the merged meta of every model
// and exposure a rule may inspect. It is produced by package dbt, read from JSON
// with ReadChangeset, or built by hand in tests.
type Changeset struct {
	ChangesetVersion int                  `json:"changeset_version"`
	Source           string               `json:"source,omitempty"`
	Precision        string               `json:"precision,omitempty"`
	Models           map[string]*Model    `json:"models"`
	Exposures        map[string]*Exposure `json:"exposures"`
	Changes          []*Change            `json:"changes"`
}

// Model is a model, snapshot or seed as the policy sees it.
type Model struct {
	UniqueID     string             `json:"unique_id,omitempty"`
	ResourceType string             `json:"resource_type,omitempty"`
	Meta         map[string]any     `json:"meta"`
	Columns      map[string]*Column `json:"columns"`
	// Relation is the warehouse relation the model writes
	// (database.schema.alias). It is an extension of spec §4 that lets a
	// hand-written changeset take part in governance-aware meta
	// (AttachGovernance); the dbt builder resolves governance itself and does
	// not emit it.
	Relation string `json:"relation,omitempty"`
}

// Column carries a column's merged meta. A changeset built with governance
// rules (dbt.Inputs.Rules) adds, under governance.inferred, the governance
// the column inherits along column lineage (propagate.Inferred.Meta).
type Column struct {
	Meta map[string]any `json:"meta"`
}

// Exposure is a dbt exposure or any BI object a producer feeds in as one.
// Type and Owner are kept as the JSON values they were (Owner is usually
// {name, email}, and email may be a list).
type Exposure struct {
	UniqueID string         `json:"unique_id,omitempty"`
	Type     any            `json:"type"`
	Owner    any            `json:"owner"`
	Meta     map[string]any `json:"meta"`
	Label    any            `json:"label"`
	Maturity any            `json:"maturity"`
	URL      any            `json:"url"`
}

// Change kinds (spec §3.4).
const (
	KindAdded        = "added"
	KindRemoved      = "removed"
	KindTypeChanged  = "type_changed"
	KindLogicChanged = "logic_changed"
)

// Semantic classifications (spec §3.4).
const (
	SemanticEquivalent     = "equivalent"
	SemanticMeaningChanged = "meaning_changed"
	SemanticIndeterminate  = "indeterminate"
)

// Mechanisms: how a change propagates to a reached column (spec §3.5).
const (
	MechanismDerivedRecompute   = "derived_recompute"
	MechanismRowsetFilter       = "rowset_filter"
	MechanismRenamedPassthrough = "renamed_passthrough"
	MechanismDirectPassthrough  = "direct_passthrough"
)

var (
	changeKinds = []string{KindAdded, KindRemoved, KindTypeChanged, KindLogicChanged}
	semantics   = []string{SemanticEquivalent, SemanticMeaningChanged, SemanticIndeterminate}
	mechanisms  = []string{MechanismDerivedRecompute, MechanismRowsetFilter, MechanismRenamedPassthrough, MechanismDirectPassthrough}
)

// Change is one subject: a changed column ("*" for a whole model whose columns
// are unknown).
type Change struct {
	Model             string   `json:"model"`
	Column            string   `json:"column"`
	Kind              string   `json:"kind"`
	Semantic          *string  `json:"semantic,omitempty"`
	Detail            *string  `json:"detail,omitempty"`
	ProvableTestBreak bool     `json:"provable_test_break,omitempty"`
	BrokenTests       []string `json:"broken_tests,omitempty"`
	Reach             Reach    `json:"reach"`
}

// SemanticOrIndeterminate is the semantic a policy sees: an unclassified change
// reads as indeterminate (spec §3.4).
func (c *Change) SemanticOrIndeterminate() string {
	if c.Semantic == nil {
		return SemanticIndeterminate
	}
	return *c.Semantic
}

// Breaking is the fail-safe signal: anything not proven equivalent.
func (c *Change) Breaking() bool { return c.SemanticOrIndeterminate() != SemanticEquivalent }

// Reach is where a change propagates. When Resolved is false the lists are
// ignored: the reach is unknown, not empty.
type Reach struct {
	Resolved bool           `json:"resolved"`
	Models   []ReachedModel `json:"models"`
	// Columns nil means column reach was not computed (level 1).
	Columns         []ReachedColumn   `json:"columns"`
	ColumnsComplete *bool             `json:"columns_complete,omitempty"`
	Exposures       []ReachedExposure `json:"exposures"`
}

// ColumnsKnownComplete reports whether Columns is the whole column reach rather
// than a lower bound.
func (r *Reach) ColumnsKnownComplete() bool {
	if r.Columns == nil {
		return false
	}
	return r.ColumnsComplete == nil || *r.ColumnsComplete
}

// ReachedModel is a downstream model or snapshot. Mechanisms nil or empty means
// the way it is reached is unknown.
type ReachedModel struct {
	Name       string   `json:"name"`
	Mechanisms []string `json:"mechanisms"`
}

// ReachedColumn is a downstream column; Mechanism nil means unknown.
type ReachedColumn struct {
	Model     string  `json:"model"`
	Column    string  `json:"column"`
	Mechanism *string `json:"mechanism"`
}

// ReachedExposure is an exposure (dashboard, application, …) the change feeds.
type ReachedExposure struct {
	Name string `json:"name"`
}

// ReadChangeset decodes and checks a changeset document (spec §4). Unknown keys
// are ignored, since producers may grow the format; anything the engine would
// misread — another changeset_version, an unknown kind or semantic, a subject
// listed twice, a reach without "resolved" — is an *Error with code
// changeset_invalid naming file and position.
func ReadChangeset(data []byte, file string) (*Changeset, error) {
	cs, version, resolved, err := decodeChangeset(data, file)
	if err != nil {
		return nil, err
	}
	bad := func(path, format string, args ...any) error {
		return &Error{Code: CodeChangesetInvalid, File: file, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if v := normalize(version); v != int64(1) {
		if version == nil {
			return nil, bad("changeset_version", "missing; this engine reads changeset_version 1")
		}
		return nil, bad("changeset_version", "is %v; this engine reads changeset_version 1", version)
	}
	cs.ChangesetVersion = 1
	if cs.Precision != "" && cs.Precision != "model" && cs.Precision != "column" {
		return nil, bad("precision", "%q is not model or column", cs.Precision)
	}
	cs.normalizeEntries()
	seen := make(map[[2]string]int, len(cs.Changes))
	for i, c := range cs.Changes {
		if err := checkChange(c, i, seen, resolved[i], bad); err != nil {
			return nil, err
		}
	}
	if cs.Changes == nil {
		cs.Changes = []*Change{}
	}
	return cs, nil
}

// decodeChangeset decodes a changeset document whole, with its version as
// written and whether each change's reach states "resolved", which has no
// safe default: absent must not read as "reaches nothing".
func decodeChangeset(data []byte, file string) (cs *Changeset, version any, resolved []*bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var wire struct {
		Changeset
		ChangesetVersion any `json:"changeset_version"`
	}
	if err := dec.Decode(&wire); err != nil {
		return nil, nil, nil, jsonError(data, file, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, nil, &Error{Code: CodeChangesetInvalid, File: file, Pos: textpos.OfOffset(data, dec.InputOffset()), Msg: "unexpected data after the changeset document"}
	}
	var presence struct {
		Changes []struct {
			Reach struct {
				Resolved *bool `json:"resolved"`
			} `json:"reach"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(data, &presence); err != nil {
		return nil, nil, nil, jsonError(data, file, err)
	}
	for _, c := range presence.Changes {
		resolved = append(resolved, c.Reach.Resolved)
	}
	return &wire.Changeset, wire.ChangesetVersion, resolved, nil
}

// normalizeEntries gives every model, column and exposure an entry and its
// values their canonical form.
func (cs *Changeset) normalizeEntries() {
	for name, m := range cs.Models {
		if m == nil {
			m = &Model{}
			cs.Models[name] = m
		}
		m.Meta = normalizeObject(m.Meta)
		if m.Columns == nil {
			m.Columns = map[string]*Column{}
		}
		for cname, c := range m.Columns {
			if c == nil {
				m.Columns[cname] = &Column{Meta: map[string]any{}}
				continue
			}
			c.Meta = normalizeObject(c.Meta)
		}
	}
	for name, e := range cs.Exposures {
		if e == nil {
			e = &Exposure{}
			cs.Exposures[name] = e
		}
		e.Meta = normalizeObject(e.Meta)
		e.Type = normalize(e.Type)
		e.Owner = normalize(e.Owner)
	}
}

// checkChange refuses change i when the engine would misread it: no
// subject, a subject already in seen, no "resolved" in its reach, an
// unknown kind or semantic, a reached entry without its name.
func checkChange(c *Change, i int, seen map[[2]string]int, resolved *bool, bad func(path, format string, args ...any) error) error {
	path := fmt.Sprintf("changes[%d]", i)
	if c == nil {
		return bad(path, "a change must be an object")
	}
	if c.Model == "" || c.Column == "" {
		return bad(path, "model and column are required")
	}
	key := [2]string{c.Model, c.Column}
	if first, dup := seen[key]; dup {
		return bad(path, "%s.%s is already changes[%d]; a subject may appear once", c.Model, c.Column, first)
	}
	seen[key] = i
	if resolved == nil {
		return bad(path+".reach.resolved", "is required (true, or false when the reach could not be computed)")
	}
	if !slices.Contains(changeKinds, c.Kind) {
		return bad(path+".kind", "%q is not one of %s", c.Kind, strings.Join(changeKinds, ", "))
	}
	if c.Semantic != nil && !slices.Contains(semantics, *c.Semantic) {
		return bad(path+".semantic", "%q is not one of %s", *c.Semantic, strings.Join(semantics, ", "))
	}
	for j, m := range c.Reach.Models {
		if m.Name == "" {
			return bad(fmt.Sprintf("%s.reach.models[%d]", path, j), "name is required")
		}
	}
	for j, col := range c.Reach.Columns {
		if col.Model == "" || col.Column == "" {
			return bad(fmt.Sprintf("%s.reach.columns[%d]", path, j), "model and column are required")
		}
	}
	for j, e := range c.Reach.Exposures {
		if e.Name == "" {
			return bad(fmt.Sprintf("%s.reach.exposures[%d]", path, j), "name is required")
		}
	}
	return nil
}

func normalizeObject(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return normalize(m).(map[string]any)
}

// jsonError turns a decoding error into an *Error with the line and column the
// decoder stopped at.
func jsonError(data []byte, file string, err error) error {
	e := &Error{Code: CodeChangesetInvalid, File: file, Msg: err.Error()}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	e.Pos, _ = textpos.OfJSONError(data, err)
	switch {
	case errors.As(err, &syn):
		e.Msg = "not valid JSON: " + syn.Error()
	case errors.As(err, &typ):
		e.Path = typ.Field
		e.Msg = fmt.Sprintf("expected %s, found JSON %s", typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Msg = "empty or truncated document"
	}
	return e
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/celine-eu/governanced/internal/check"
	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// yamlText is a request member that holds a document: YAML text in a JSON
// string, or the document itself as JSON (which the YAML reader reads too, with
// YAML 1.1 typing like every file).
func yamlText(raw json.RawMessage, member string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, badRequest("the member %q is required", member)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest("%s: %v", member, err)
		}
		return []byte(s), nil
	}
	return raw, nil
}

// documentError presents a document the governance reader refused: 422, with
// where and why as members.
func documentError(err error) error {
	var ge *governance.Error
	if errors.As(err, &ge) {
		ext := []member{{"file", ge.File}, {"class", string(ge.Class)}}
		if ge.Line > 0 {
			ext = append(ext, member{"line", ge.Line}, member{"column", ge.Column})
		}
		if ge.Path != "" {
			ext = append(ext, member{"path", ge.Path})
		}
		return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: ge.Error(), ext: ext}
	}
	var oe *owners.Error
	if errors.As(err, &oe) {
		ext := []member{{"file", oe.File}}
		if oe.Pos.Line > 0 {
			ext = append(ext, member{"line", oe.Pos.Line}, member{"column", oe.Pos.Column})
		}
		if oe.Path != "" {
			ext = append(ext, member{"path", oe.Path})
		}
		return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: oe.Error(), ext: ext}
	}
	var ye *yaml11.Error
	if errors.As(err, &ye) {
		return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: ye.Error(),
			ext: []member{{"line", ye.Line}, {"column", ye.Column}}}
	}
	return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: err.Error()}
}

// parseCharged is parseDocument once mem is charged for what parsing text
// costs.
func parseCharged(mem *account, text []byte, name string) (*yaml11.Node, error) {
	if err := mem.chargeParse(text); err != nil {
		return nil, err
	}
	return parseDocument(text, name)
}

// parseDocument reads a request member's YAML as the tree check does: a key
// written twice in one mapping is a 422 at the later key, as `validate`
// reports it (duplicate-key, an error), never the later value kept
// silently.
func parseDocument(text []byte, name string) (*yaml11.Node, error) {
	node, dups, err := yaml11.ParseWithWarnings(text, yaml11.Limits{})
	if err != nil {
		return nil, documentError(err)
	}
	if len(dups) > 0 {
		w := dups[0]
		detail := fmt.Sprintf("%s:%d:%d: %s; write the key once", name, w.Pos.Line, w.Pos.Column, w.Msg)
		if n := len(dups) - 1; n > 0 {
			detail += fmt.Sprintf(" (and %d more duplicate keys)", n)
		}
		return nil, &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: detail,
			ext: []member{{"file", name}, {"class", string(governance.ClassYAML)}, {"code", "duplicate-key"}, {"line", w.Pos.Line}, {"column", w.Pos.Column}}}
	}
	return node, nil
}

type resolveRequest struct {
	Document json.RawMessage `json:"document"`
	Overlay  json.RawMessage `json:"overlay"`
	Dataset  *string         `json:"dataset"`
	// Owners are owners registry documents, later shadowing earlier ones
	// (one document, or a list); with them ownership names are resolved
	// as the CLI resolves them, leniently.
	Owners json.RawMessage `json:"owners"`
	// Placeholders is the deployment's placeholder map: an object from
	// ownership name to owner id, or the same as YAML text. Needs owners.
	Placeholders json.RawMessage `json:"placeholders"`
}

// given reports whether an optional member was sent.
func given(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// registry reads the owners member: one document or a list of them.
func registry(mem *account, raw json.RawMessage) (*owners.Registry, error) {
	var docs []json.RawMessage
	if bytes.TrimSpace(raw)[0] == '[' {
		if err := json.Unmarshal(raw, &docs); err != nil {
			return nil, badRequest("owners: %v", err)
		}
	} else {
		docs = []json.RawMessage{raw}
	}
	files := make([]*owners.File, len(docs))
	for i, d := range docs {
		name := "owners"
		if len(docs) > 1 {
			name = fmt.Sprintf("owners[%d]", i)
		}
		text, err := yamlText(d, name)
		if err != nil {
			return nil, err
		}
		if err := mem.chargeParse(text); err != nil {
			return nil, err
		}
		if files[i], err = owners.Parse(text, name, owners.Options{Validate: true}); err != nil {
			return nil, documentError(err)
		}
	}
	return owners.Materialise(files...), nil
}

// placeholderMap reads the placeholders member: a JSON object of strings,
// or YAML text holding the mapping, read as the tree check reads a
// --placeholders file (owners.ReadPlaceholders): an entry that is not a
// string name and a string owner id is a 422 at the entry.
func placeholderMap(mem *account, raw json.RawMessage) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err == nil {
		return m, nil
	}
	text, err := yamlText(raw, "placeholders")
	if err != nil {
		return nil, err
	}
	if err := mem.chargeParse(text); err != nil {
		return nil, err
	}
	root, err := yaml11.Parse(text)
	if err != nil {
		return nil, documentError(err)
	}
	m, errs := owners.ReadPlaceholders(root, "placeholders")
	if len(errs) > 0 {
		perr := documentError(errs[0]).(*requestError)
		if n := len(errs) - 1; n > 0 {
			perr.detail += fmt.Sprintf(" (and %d more)", n)
		}
		return nil, perr
	}
	return m, nil
}

// resolve resolves one name against a document the client sends: the body of
// GET /datasets/{id}/rule without revision and app.
func (s *server) resolve(r *http.Request) (result, error) {
	return s.operation(r, func(r *http.Request) (work, error) {
		var req resolveRequest
		strict, err := flag(r.URL.Query(), "strict", false)
		if err == nil {
			err = decode(r, &req)
		}
		if err != nil {
			return nil, err
		}
		if req.Dataset == nil {
			return nil, badRequest(`the member "dataset" is required`)
		}
		return func(ctx context.Context, mem *account) (result, error) { return req.resolve(ctx, mem, strict) }, nil
	})
}

// resolve is POST /resolve's work on its request: the documents are served
// as the tree serves a unit (check.Materialise: the overlay merged over the
// document, then ownership names resolved, leniently: a name that resolves
// to nothing is kept as written, and listed), and the name is resolved in
// what they serve.
func (req *resolveRequest) resolve(ctx context.Context, mem *account, strict bool) (result, error) {
	base, err := parseConfig(mem, req.Document, "document", governance.ParseDocument)
	if err != nil {
		return result{}, err
	}
	var overlay *governance.Config
	if given(req.Overlay) {
		if err := ctx.Err(); err != nil {
			return result{}, err
		}
		if overlay, err = parseConfig(mem, req.Overlay, "overlay", governance.ParseOverlayDocument); err != nil {
			return result{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	reg, placeholders, err := req.owners(ctx, mem, strict)
	if err != nil {
		return result{}, err
	}
	served := check.Materialise(base, overlay, reg, placeholders)
	rule, m := served.Resolve(*req.Dataset)
	var unresolved []string
	if reg != nil {
		if u := owners.UnresolvedOwners(served, reg, placeholders); strict && len(u) > 0 {
			// The library's strict_owners: the whole document, merged with
			// its overlay, fails on any name that resolves to nothing.
			return result{}, unresolvedError(&owners.UnresolvedError{Names: u})
		}
		unresolved = []string{}
		for _, u := range owners.UnresolvedOwners(&governance.Config{Defaults: rule}, reg, placeholders) {
			unresolved = append(unresolved, u.Name)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(`{"dataset":`)
	appendString(&buf, *req.Dataset)
	appendResolutionTail(&buf, rule, m)
	if unresolved != nil {
		buf.WriteString(`,"unresolved_owners":`)
		writeJSONValue(&buf, unresolved)
	}
	buf.WriteByte('}')
	return okResult(jsonType, buf.Bytes()), nil
}

// parseConfig reads a request member holding a governance document with
// parse, once mem is charged for it.
func parseConfig(mem *account, raw json.RawMessage, name string, parse func(*yaml11.Node, string) (*governance.Config, error)) (*governance.Config, error) {
	text, err := yamlText(raw, name)
	if err != nil {
		return nil, err
	}
	doc, err := parseCharged(mem, text, name)
	if err != nil {
		return nil, err
	}
	cfg, err := parse(doc, name)
	if err != nil {
		return nil, documentError(err)
	}
	return cfg, nil
}

// owners reads the owners registry and the placeholder map of a request;
// nil for none. strict and placeholders need a registry.
func (req *resolveRequest) owners(ctx context.Context, mem *account, strict bool) (owners.Lookup, map[string]string, error) {
	switch {
	case given(req.Owners):
		reg, err := registry(mem, req.Owners)
		if err != nil {
			return nil, nil, err
		}
		var placeholders map[string]string
		if given(req.Placeholders) {
			if placeholders, err = placeholderMap(mem, req.Placeholders); err != nil {
				return nil, nil, err
			}
		}
		return reg, placeholders, ctx.Err()
	case given(req.Placeholders):
		return nil, nil, badRequest(`the member "placeholders" needs "owners"`)
	case strict:
		return nil, nil, badRequest(`strict needs the member "owners": without a registry no ownership name resolves`)
	}
	return nil, nil, nil
}

// unresolvedError presents strict owner resolution failing: 422 naming
// every unresolved name and where the document declares it.
func unresolvedError(err error) error {
	var ue *owners.UnresolvedError
	if !errors.As(err, &ue) {
		return err
	}
	type unresolvedName struct {
		Name   string   `json:"name"`
		Places []string `json:"places"`
	}
	names := make([]unresolvedName, len(ue.Names))
	for i, u := range ue.Names {
		names[i] = unresolvedName{u.Name, u.Where}
	}
	return &requestError{status: http.StatusUnprocessableEntity, kind: "unresolved-owners", detail: ue.Error(),
		ext: []member{{"unresolved", names}}}
}

type mergeRequest struct {
	Base     json.RawMessage `json:"base"`
	Override json.RawMessage `json:"override"`
}

// merge combines two blocks with the per-field merge rules.
func (s *server) merge(r *http.Request) (result, error) {
	return s.operation(r, func(r *http.Request) (work, error) {
		var req mergeRequest
		if err := decode(r, &req); err != nil {
			return nil, err
		}
		return req.merge, nil
	})
}

// merge is POST /merge's work on its request.
func (req *mergeRequest) merge(ctx context.Context, mem *account) (result, error) {
	var rules [2]*governance.Rule
	for i, in := range []struct {
		raw  json.RawMessage
		name string
	}{{req.Base, "base"}, {req.Override, "override"}} {
		if err := ctx.Err(); err != nil {
			return result{}, err
		}
		text, err := yamlText(in.raw, in.name)
		if err != nil {
			return result{}, err
		}
		node, err := parseCharged(mem, text, in.name)
		if err != nil {
			return result{}, err
		}
		if rules[i], err = governance.ParseRule(node, in.name); err != nil {
			return result{}, documentError(err)
		}
	}
	merged := governance.MergeRules(rules[0], rules[1])
	var buf bytes.Buffer
	buf.WriteString(`{"rule":`)
	merged.AppendJSON(&buf)
	buf.WriteByte('}')
	return okResult(jsonType, buf.Bytes()), nil
}

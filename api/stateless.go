package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/snapshot"
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
	var ye *yaml11.Error
	if errors.As(err, &ye) {
		return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: ye.Error(),
			ext: []member{{"line", ye.Line}, {"column", ye.Column}}}
	}
	return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-document", detail: err.Error()}
}

type resolveRequest struct {
	Document json.RawMessage `json:"document"`
	Overlay  json.RawMessage `json:"overlay"`
	Dataset  *string         `json:"dataset"`
}

// resolve resolves one name against a document the client sends: the body of
// GET /datasets/{id}/rule without revision and app.
func (s *server) resolve(w http.ResponseWriter, r *http.Request) {
	var req resolveRequest
	if err := decode(w, r, s.limits.MaxBodyBytes, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if req.Dataset == nil {
		writeError(w, r, badRequest(`the member "dataset" is required`))
		return
	}
	text, err := yamlText(req.Document, "document")
	if err != nil {
		writeError(w, r, err)
		return
	}
	cfg, err := governance.Parse(text, "document")
	if err != nil {
		writeError(w, r, documentError(err))
		return
	}
	if len(bytes.TrimSpace(req.Overlay)) > 0 && !bytes.Equal(bytes.TrimSpace(req.Overlay), []byte("null")) {
		text, err := yamlText(req.Overlay, "overlay")
		if err != nil {
			writeError(w, r, err)
			return
		}
		overlay, err := governance.Parse(text, "overlay")
		if err != nil {
			writeError(w, r, documentError(err))
			return
		}
		cfg = governance.MergeConfigs(cfg, overlay)
	}
	rule, m := cfg.Resolve(*req.Dataset)
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"dataset":`)
	writeJSONValue(buf, *req.Dataset)
	snapshot.AppendResolutionTail(buf, rule, m)
	buf.WriteByte('}')
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

type mergeRequest struct {
	Base     json.RawMessage `json:"base"`
	Override json.RawMessage `json:"override"`
}

// merge combines two blocks with the per-field merge rules.
func (s *server) merge(w http.ResponseWriter, r *http.Request) {
	var req mergeRequest
	if err := decode(w, r, s.limits.MaxBodyBytes, &req); err != nil {
		writeError(w, r, err)
		return
	}
	var rules [2]*governance.Rule
	for i, in := range []struct {
		raw  json.RawMessage
		name string
	}{{req.Base, "base"}, {req.Override, "override"}} {
		text, err := yamlText(in.raw, in.name)
		if err != nil {
			writeError(w, r, err)
			return
		}
		node, err := yaml11.Parse(text)
		if err != nil {
			writeError(w, r, documentError(err))
			return
		}
		if rules[i], err = governance.ParseRule(node, in.name); err != nil {
			writeError(w, r, documentError(err))
			return
		}
	}
	merged := governance.MergeRules(rules[0], rules[1])
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"rule":`)
	merged.AppendJSON(buf)
	buf.WriteByte('}')
	write(w, http.StatusOK, jsonType, buf.Bytes())
}

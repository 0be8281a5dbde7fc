package api

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/celine-eu/governanced/internal/policy"
)

type policyRequest struct {
	Policy    json.RawMessage `json:"policy"`
	Changeset json.RawMessage `json:"changeset"`
}

// policyEvaluate runs the dbt pull-request policy gate on a policy and a
// changeset the client sends (policy-gate.md): the verdict as JSON, or the
// Markdown section a CI bot posts when the client accepts text/markdown. A
// multipart body carries dbt artifacts instead of a changeset
// (readArtifacts).
func (s *server) policyEvaluate(r *http.Request) (result, error) {
	return s.operation(r, func(r *http.Request) (work, error) {
		if isMultipart(r) {
			return s.readArtifacts(r)
		}
		var req policyRequest
		if err := decode(r, &req); err != nil {
			return nil, err
		}
		markdown := wantsMarkdown(r)
		return func(ctx context.Context, mem *account) (result, error) { return req.evaluate(ctx, mem, markdown) }, nil
	})
}

// evaluate is POST /policy/evaluate's work on a changeset sent as JSON.
func (req *policyRequest) evaluate(ctx context.Context, mem *account, markdown bool) (result, error) {
	policyText, err := yamlText(req.Policy, "policy")
	if err != nil {
		return result{}, err
	}
	csText, err := yamlText(req.Changeset, "changeset")
	if err != nil {
		return result{}, err
	}
	if err := mem.chargeParse(policyText); err != nil {
		return result{}, err
	}
	if err := mem.chargeDecode(csText); err != nil {
		return result{}, err
	}
	cs, err := policy.ReadChangeset(csText, "changeset")
	if err != nil {
		return result{}, policyError(err)
	}
	return verdict(ctx, policyText, cs, markdown, nil)
}

// Derivation is how a changeset was derived from dbt artifacts: how
// precisely, and what could not be derived.
type Derivation struct {
	Precision string   `json:"precision"`
	Warnings  []string `json:"changeset_warnings"`
}

// verdict checks cs against the policy and answers with the verdict: the
// Markdown section a CI bot posts, or JSON, which says how cs was derived
// when it was (from dbt artifacts).
func verdict(ctx context.Context, policyText []byte, cs *policy.Changeset, markdown bool, derived *Derivation) (result, error) {
	res, err := policy.Check(ctx, policyText, "policy", cs)
	if err != nil {
		return result{}, policyError(err)
	}
	if markdown {
		return okResult("text/markdown; charset=utf-8", []byte(res.Markdown())), nil
	}
	return jsonResult(struct {
		Verdict     *policy.Verdict     `json:"policy_verdict"`
		Diagnostics *policy.Diagnostics `json:"diagnostics"`
		*Derivation
	}{res.Verdict, res.Diagnostics, derived}), nil
}

func policyError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the request ended first: nothing is wrong with the policy
	}
	var pe *policy.Error
	if errors.As(err, &pe) {
		ext := []member{{"code", pe.Code}, {"file", pe.File}}
		if pe.Line > 0 {
			ext = append(ext, member{"line", pe.Line}, member{"column", pe.Column})
		}
		if pe.Path != "" {
			ext = append(ext, member{"path", pe.Path})
		}
		return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-policy", detail: pe.Error(), ext: ext}
	}
	return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-policy", detail: err.Error()}
}

// wantsMarkdown reports whether the Accept header prefers text/markdown to JSON.
func wantsMarkdown(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		switch mt {
		case "text/markdown":
			return true
		case "application/json", "*/*", "application/*":
			return false
		}
	}
	return false
}

package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/celine-eu/governanced/internal/dbt"
	"github.com/celine-eu/governanced/internal/policy"
)

// The parts of a multipart POST /policy/evaluate: the policy, a pull
// request's dbt artifacts as `dbt compile` and `dbt docs generate` write
// them, and optionally the changeset precision.
var artifactParts = map[string]bool{
	"policy": true, "manifest": true, "base_manifest": true, "catalog": true, "base_catalog": true, "precision": true,
}

// isMultipart reports whether the request body is multipart/form-data.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// readArtifactParts reads every part of a multipart body into memory (the
// body is bounded by limitBody). Each part is named by its form field name;
// an unknown or repeated name refuses the request.
func readArtifactParts(r *http.Request) (map[string][]byte, error) {
	parts := map[string][]byte{}
	err := formParts(r.Header.Get("Content-Type"), r.Body, func(name, _ string, content io.Reader) error {
		switch {
		case !artifactParts[name]:
			return badRequest("unknown part %q: the parts are policy, manifest, base_manifest, catalog, base_catalog and precision", name)
		case parts[name] != nil:
			return badRequest("the part %q appears twice", name)
		}
		data, err := io.ReadAll(content)
		if err != nil {
			return fmt.Errorf("not a readable multipart body: %w", err)
		}
		parts[name] = data
		return nil
	})
	if err != nil {
		return nil, bodyError(err)
	}
	return parts, nil
}

// bodyError turns a failure to read the body into 413, 408 or 400.
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	var re *requestError
	if errors.As(err, &re) {
		return re // the body's working memory (chargedBody)
	}
	if errors.As(err, &tooLarge) {
		return bodyTooLarge(tooLarge)
	}
	if re := slowBody(err); re != nil {
		return re
	}
	return badRequest("%v", err)
}

// artifactError is an artifact the dbt reader refused: 422 naming the part.
func artifactError(part string, err error) error {
	return &requestError{status: http.StatusUnprocessableEntity, kind: "invalid-policy", detail: err.Error(),
		ext: []member{{"code", "artifact_invalid"}, {"file", part}}}
}

// changesetFromArtifacts builds the changeset of the posted artifacts: level 2
// (column lineage) unless the precision part says "model".
func changesetFromArtifacts(ctx context.Context, parts map[string][]byte) (*policy.Changeset, string, []string, error) {
	for _, required := range []string{"manifest", "base_manifest"} {
		if len(parts[required]) == 0 {
			return nil, "", nil, badRequest("the part %q is required with dbt artifacts (manifest, base_manifest; catalog and base_catalog optional)", required)
		}
	}
	precision := "column"
	if p, ok := parts["precision"]; ok {
		precision = string(p)
		if precision != "column" && precision != "model" {
			return nil, "", nil, badRequest("precision %q is not column or model", precision)
		}
	}
	var in dbt.Inputs
	var err error
	if in.Head, err = dbt.ReadManifest(parts["manifest"], "manifest"); err != nil {
		return nil, "", nil, artifactError("manifest", err)
	}
	if in.Base, err = dbt.ReadManifest(parts["base_manifest"], "base_manifest"); err != nil {
		return nil, "", nil, artifactError("base_manifest", err)
	}
	if c := parts["catalog"]; c != nil {
		if in.HeadCatalog, err = dbt.ReadCatalog(c, "catalog"); err != nil {
			return nil, "", nil, artifactError("catalog", err)
		}
	}
	if c := parts["base_catalog"]; c != nil {
		if in.BaseCatalog, err = dbt.ReadCatalog(c, "base_catalog"); err != nil {
			return nil, "", nil, artifactError("base_catalog", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, "", nil, err
	}
	// One request, one core: the server bounds concurrent operations, and a
	// build must not take every core from the others.
	in.Parallelism = 1
	var cs *policy.Changeset
	var warnings []string
	if precision == "model" {
		cs, warnings, err = dbt.Build(ctx, in)
	} else {
		cs, warnings, err = dbt.BuildLevel2(ctx, in)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", nil, err // the request ended first
		}
		return nil, "", nil, artifactError("manifest", err)
	}
	if warnings == nil {
		warnings = []string{}
	}
	return cs, precision, warnings, nil
}

// readArtifacts reads POST /policy/evaluate with multipart/form-data: the
// policy and the dbt artifacts, so CI can post what dbt wrote, as it posts a
// tree to /validate.
func (s *server) readArtifacts(r *http.Request) (work, error) {
	parts, err := readArtifactParts(r)
	if err != nil {
		return nil, err
	}
	if len(parts["policy"]) == 0 {
		return nil, badRequest("the part %q is required", "policy")
	}
	markdown := wantsMarkdown(r)
	return func(ctx context.Context, mem *account) (result, error) {
		return evaluateArtifacts(ctx, mem, parts, markdown)
	}, nil
}

// evaluateArtifacts is POST /policy/evaluate's work on dbt artifacts.
func evaluateArtifacts(ctx context.Context, mem *account, parts map[string][]byte, markdown bool) (result, error) {
	for name, data := range parts {
		charge := mem.chargeDecode // the dbt artifacts are JSON
		if name == "policy" {
			charge = mem.chargeParse
		}
		if err := charge(data); err != nil {
			return result{}, err
		}
	}
	cs, precision, warnings, err := changesetFromArtifacts(ctx, parts)
	if err != nil {
		return result{}, err
	}
	return verdict(ctx, parts["policy"], cs, markdown, &Derivation{Precision: precision, Warnings: warnings})
}

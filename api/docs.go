package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"

	"github.com/celine-eu/governanced/schemas"
)

// OpenAPI is the document describing every route. The repository root's
// openapi.yaml is a byte-identical copy for readers and tools (a test keeps
// them equal); this one is canonical because go:embed cannot reach above the
// package directory.
//
//go:embed openapi.yaml
var OpenAPI []byte

var openapiETag = contentETag(OpenAPI)

func contentETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// static answers a document that only changes with the binary.
func static(w http.ResponseWriter, r *http.Request, contentType, etag string, body []byte) {
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "public, max-age=300")
	if m := r.Header.Get("If-None-Match"); m != "" && etagMatches(m, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	write(w, http.StatusOK, contentType, body)
}

func (s *server) openapi(w http.ResponseWriter, r *http.Request) {
	static(w, r, "application/yaml", openapiETag, OpenAPI)
}

func (s *server) schema(w http.ResponseWriter, r *http.Request) {
	name := pathParam(r, "name")
	body, err := schemas.Get(name)
	if err != nil {
		writeProblem(w, r, http.StatusNotFound, "schema-not-found", err.Error(), member{"schemas", schemas.Names()})
		return
	}
	static(w, r, "application/schema+json", contentETag(body), body)
}

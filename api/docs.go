package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"

	"github.com/celine-eu/governanced/api/internal/httpread"
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

// static is a document that only changes with the binary: clients may keep
// it five minutes, and revalidate it by its content's hash.
func static(contentType, etag string, body []byte) result {
	return result{contentType: contentType, body: body, etag: etag, cacheControl: "public, max-age=300"}
}

func (s *server) openapi(*http.Request) (result, error) {
	return static("application/yaml", openapiETag, OpenAPI), nil
}

func (s *server) schema(r *http.Request) (result, error) {
	name := httpread.PathParam(r, "name")
	body, err := schemas.Get(name)
	if err != nil {
		return result{}, &requestError{status: http.StatusNotFound, kind: "schema-not-found", detail: err.Error(), ext: []member{{"schemas", schemas.Names()}}}
	}
	return static("application/schema+json", contentETag(body), body), nil
}

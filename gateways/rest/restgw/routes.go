package restgw

import (
	_ "embed"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
)

// openAPI is the OpenAPI 3 document generated from the contract and the HTTP
// rules (make generate: protoc-gen-openapiv2, then internal/oas3gen).
//
//go:embed openapi/openapi.json
var openAPI []byte

// serveOpenAPI answers GET /openapi.json with the embedded document.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(openAPI)
}

// probe adapts a health probe of package healthz to the mux.
func probe(h http.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ map[string]string) { h(w, r) }
}

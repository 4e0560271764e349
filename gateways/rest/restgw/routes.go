package restgw

import (
	"context"
	_ "embed"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
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

// healthBody is the answer of GET /healthz.
type healthBody struct {
	// Status is the upstream health status (SERVING, NOT_SERVING, …), or
	// UNREACHABLE when the health check itself failed.
	Status string `json:"status"`
}

// health answers GET /healthz: 200 {"status":"SERVING"} when the service's
// standard gRPC health check (overall server, service "") says SERVING, 503
// otherwise.
func health(conn *grpc.ClientConn, timeout time.Duration, log *slog.Logger) runtime.HandlerFunc {
	client := grpc_health_v1.NewHealthClient(conn)
	return func(w http.ResponseWriter, r *http.Request, _ map[string]string) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		body, code := healthBody{Status: "UNREACHABLE"}, http.StatusServiceUnavailable
		resp, err := client.Check(ctx, &grpc_health_v1.HealthCheckRequest{})
		switch {
		case err != nil:
			log.WarnContext(ctx, "health check failed", "code", status.Code(err).String(), "err", err)
		case resp.GetStatus() == grpc_health_v1.HealthCheckResponse_SERVING:
			body, code = healthBody{Status: resp.GetStatus().String()}, http.StatusOK
		default:
			body.Status = resp.GetStatus().String()
		}
		buf, _ := json.Marshal(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(append(buf, '\n'))
	}
}

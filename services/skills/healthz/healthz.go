// Package healthz is the one shape of the HTTP health probes of every
// skillsd surface (skills-rest, skills-mcp --http), over the standard gRPC
// health service of the skills service behind them:
//
//   - GET /healthz is liveness: the process and the service behind it
//     answer (the gRPC health check of LivenessService). Restarting
//     would not help a server that fails only readiness.
//   - GET /readyz is readiness: the catalog is loaded and the skills.v1
//     services answer (the gRPC health check of the overall server, "",
//     which skillsd reports NOT_SERVING until its first catalog is in and
//     while it shuts down).
//
// Both answer 200 {"status":"SERVING"} or 503 with {"status":"NOT_SERVING"},
// or {"status":"UNREACHABLE"} when the service does not answer at all;
// never cached. skillsd registers, besides "" and LivenessService, the name
// of every skills.v1 service, each with the overall readiness.
package healthz

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// LivenessService is the gRPC health service name that answers SERVING for as
// long as the server serves, whether or not its catalog is loaded.
const LivenessService = "liveness"

// Routes of the probes.
const (
	LivePath  = "/healthz"
	ReadyPath = "/readyz"
)

// Statuses of a probe's answer besides the gRPC health statuses.
const (
	// Unreachable: the health check itself failed (the service is down or
	// does not answer in time).
	Unreachable = "UNREACHABLE"
)

// DefaultTimeout bounds the gRPC health check behind a probe.
const DefaultTimeout = 2 * time.Second

// Body is the JSON answer of both probes.
type Body struct {
	// Status is SERVING, NOT_SERVING, SERVICE_UNKNOWN or UNREACHABLE.
	Status string `json:"status"`
}

// Live answers GET /healthz over conn. A server that does not know
// LivenessService (an older skillsd) answered, so it is alive.
func Live(conn grpc.ClientConnInterface, timeout time.Duration, log *slog.Logger) http.HandlerFunc {
	return probe(conn, LivenessService, true, timeout, log)
}

// Ready answers GET /readyz over conn.
func Ready(conn grpc.ClientConnInterface, timeout time.Duration, log *slog.Logger) http.HandlerFunc {
	return probe(conn, "", false, timeout, log)
}

func probe(conn grpc.ClientConnInterface, service string, unknownIsAlive bool, timeout time.Duration, log *slog.Logger) http.HandlerFunc {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := healthpb.NewHealthClient(conn)
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		body, code := Check(ctx, client, service, unknownIsAlive, log)
		buf, _ := json.Marshal(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(append(buf, '\n'))
	}
}

// Check asks the health of service and returns the probe's answer and HTTP
// status.
func Check(ctx context.Context, client healthpb.HealthClient, service string, unknownIsAlive bool, log *slog.Logger) (Body, int) {
	resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	switch {
	case err != nil && unknownIsAlive && status.Code(err) == codes.NotFound:
		return Body{Status: healthpb.HealthCheckResponse_SERVING.String()}, http.StatusOK
	case err != nil:
		log.WarnContext(ctx, "health check failed", "service", service, "code", status.Code(err).String(), "err", err)
		return Body{Status: Unreachable}, http.StatusServiceUnavailable
	case resp.GetStatus() == healthpb.HealthCheckResponse_SERVING:
		return Body{Status: resp.GetStatus().String()}, http.StatusOK
	default:
		return Body{Status: resp.GetStatus().String()}, http.StatusServiceUnavailable
	}
}

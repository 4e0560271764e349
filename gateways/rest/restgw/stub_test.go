package restgw_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
)

// bareServer starts a gRPC server with the health service only (reporting
// st) and returns a connection to it over bufconn.
func bareServer(t *testing.T, st healthpb.HealthCheckResponse_ServingStatus) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("", st)
	healthpb.RegisterHealthServer(gs, hs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient("passthrough:///bare",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestUnknownService: a server without the skills services answers
// Unimplemented to every RPC, unary and streaming alike: 501 in the error shape.
func TestUnknownService(t *testing.T) {
	srv := gateway(t, bareServer(t, healthpb.HealthCheckResponse_SERVING), restgw.Options{})

	for _, path := range []string{"/v1/skills", "/v1/skills/pdf", "/v1/skills:tree", "/v1/catalog:watch"} {
		r := get(t, srv, path)
		wantError(t, "GET "+path, r, http.StatusNotImplemented, "UNIMPLEMENTED", "Unimplemented")
	}
	r := do(t, srv, http.MethodPost, "/v1/skills:match", strings.NewReader(`{"context": "x"}`))
	wantError(t, "POST /v1/skills:match", r, http.StatusNotImplemented, "UNIMPLEMENTED", "Unimplemented")
	wantOK(t, "healthz", get(t, srv, "/healthz"))
}

// TestReadyzNotServing: a service that is not ready (its catalog loading)
// is alive (/healthz 200) and not ready (/readyz 503 NOT_SERVING): a
// liveness probe must not restart a server that is still loading.
func TestReadyzNotServing(t *testing.T) {
	srv := gateway(t, bareServer(t, healthpb.HealthCheckResponse_NOT_SERVING), restgw.Options{})
	r := get(t, srv, "/readyz")
	if r.status != http.StatusServiceUnavailable || r.body["status"] != "NOT_SERVING" {
		t.Errorf("readyz: %d %s, want 503 {\"status\":\"NOT_SERVING\"}", r.status, r.raw)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("readyz: Cache-Control %q, want no-store", r.header.Get("Cache-Control"))
	}
	r = get(t, srv, "/healthz")
	if r.status != http.StatusOK || r.body["status"] != "SERVING" {
		t.Errorf("healthz of a live server that is not ready: %d %s, want 200 {\"status\":\"SERVING\"}", r.status, r.raw)
	}
}

// TestUnreachable: when the service cannot be reached, clients get 503 with
// a message that does not reveal the gateway's dial errors.
func TestUnreachable(t *testing.T) {
	conn, err := grpc.NewClient("passthrough:///10.255.255.1:50051",
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			return nil, errors.New("dial tcp 10.255.255.1:50051: connection refused")
		}),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	srv := gateway(t, conn, restgw.Options{})

	r := get(t, srv, "/v1/skills/pdf")
	e := wantError(t, "unreachable", r, http.StatusServiceUnavailable, "UNAVAILABLE", "Unavailable")
	if msg := e["message"].(string); strings.Contains(msg, "10.255.255.1") || strings.Contains(msg, "dial") {
		t.Errorf("message %q reveals the dial error", msg)
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		r = get(t, srv, probe)
		if r.status != http.StatusServiceUnavailable || r.body["status"] != "UNREACHABLE" {
			t.Errorf("%s: %d %s, want 503 {\"status\":\"UNREACHABLE\"}", probe, r.status, r.raw)
		}
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	if _, err := restgw.New(t.Context(), nil, restgw.Options{}); err == nil {
		t.Error("New with a nil connection: no error")
	}
	conn := bareServer(t, healthpb.HealthCheckResponse_SERVING)
	if _, err := restgw.New(t.Context(), conn, restgw.Options{MaxBodyBytes: -1}); err == nil {
		t.Error("New with MaxBodyBytes -1: no error")
	}
}

// TestMalformedEscape: net/http refuses a request line with a malformed
// escape itself; should one reach the gateway anyway (another server in
// front), it is a 400 in the error shape.
func TestMalformedEscape(t *testing.T) {
	h, err := restgw.New(t.Context(), bareServer(t, healthpb.HealthCheckResponse_SERVING), restgw.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/v1/skills/x", nil)
	req.URL.RawPath = "/v1/skills/%zz"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	r := response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
	if err := json.Unmarshal(r.raw, &r.body); err != nil {
		t.Fatalf("body %s: %v", r.raw, err)
	}
	wantError(t, "malformed escape", r, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument")
}

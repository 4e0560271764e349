package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// trusting is a TLS client configuration that trusts ca (and presents
// client, when not nil).
func trusting(t *testing.T, ca *skillstest.CA, client *skillstest.Pair) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if client != nil {
		pair, err := tls.LoadX509KeyPair(client.CertFile, client.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg
}

// grpcTLSReady checks health over TLS.
func grpcTLSReady(cfg *tls.Config) func(ctx context.Context, addr string) error {
	return func(ctx context.Context, addr string) error {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
		if err != nil {
			return err
		}
		defer conn.Close()
		_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
}

// httpsReady checks GET path over TLS.
func httpsReady(cfg *tls.Config, path string) func(ctx context.Context, addr string) error {
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	return func(ctx context.Context, addr string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		return nil
	}
}

// TestTLSEverywhere: skillsd serves mutual TLS (certificate files from
// config.yaml, the client CA from its flag); skills-rest and skills-mcp
// reach it with --server-ca and a client certificate, and serve TLS
// themselves (flags and environment); clients that do not trust the CA, or
// do not present a certificate to skillsd, are refused.
func TestTLSEverywhere(t *testing.T) {
	skipShort(t)
	dir := examplesDir(t)
	ca := skillstest.NewCA(t, "e2e")
	server := ca.Server("skillsd")
	gateway := ca.Client("gateway")
	web := ca.Server("web")

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("tls:\n  cert_file: %s\n  key_file: %s\n", server.CertFile, server.KeyFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, backend := startOnFreePortEnv(t, []string{"SKILLSD_AUTH_TOKENS=" + upstreamToken}, binary(t, "skillsd"), func(addr string) []string {
		return []string{"--grpc", addr, "--skills-dir", dir, "--config", cfg, "--tls-client-ca", ca.File}
	}, grpcTLSReady(trusting(t, ca, &gateway)))

	// A client without the client certificate, or not trusting the CA, fails.
	for name, c := range map[string]*tls.Config{"no client certificate": trusting(t, ca, nil), "unknown CA": {MinVersion: tls.VersionTLS12}} {
		ctx, cancel := context.WithTimeout(t.Context(), readyTimeout)
		if err := grpcTLSReady(c)(ctx, backend); err == nil {
			t.Errorf("skillsd with %s: connected", name)
		}
		cancel()
	}
	// With both, the token still decides.
	conn, err := grpc.NewClient(backend, grpc.WithTransportCredentials(credentials.NewTLS(trusting(t, ca, &gateway))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+upstreamToken)
	if resp, err := skillsv1.NewCatalogServiceClient(conn).ListSkills(ctx, &skillsv1.ListSkillsRequest{}); err != nil || len(resp.GetSkills()) == 0 {
		t.Fatalf("ListSkills over mutual TLS: %v", err)
	}

	clientArgs := []string{"--server", backend, "--token-env", "UP", "--server-ca", ca.File, "--client-cert", gateway.CertFile, "--client-key", gateway.KeyFile,
		"--auth-token-env", "CALLERS"}
	env := []string{"UP=" + upstreamToken, "CALLERS=" + authTokenOld}
	webTLS := trusting(t, ca, nil)
	webClient := &http.Client{Transport: &http.Transport{TLSClientConfig: webTLS}}

	t.Run("skills-rest", func(t *testing.T) {
		_, addr := startOnFreePortEnv(t, env, binary(t, "skills-rest"), func(addr string) []string {
			return append([]string{"--http", addr, "--tls-cert", web.CertFile, "--tls-key", web.KeyFile}, clientArgs...)
		}, httpsReady(webTLS, "/readyz"))
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://"+addr+"/v1/skills/pdf-report", nil)
		req.Header.Set("Authorization", "Bearer "+authTokenOld)
		resp, err := webClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /v1/skills/pdf-report over TLS to REST and mutual TLS to skillsd: %d", resp.StatusCode)
		}
		if code := httpCall(t, http.MethodGet, "http://"+addr+"/healthz", "", ""); code != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS listener: %d, want 400 (Go's answer to HTTP on an HTTPS port)", code)
		}
	})
	t.Run("skills-mcp", func(t *testing.T) {
		_, addr := startOnFreePortEnv(t, append(env, "SKILLSD_TLS_CERT="+web.CertFile, "SKILLSD_TLS_KEY="+web.KeyFile), binary(t, "skills-mcp"),
			func(addr string) []string { return append([]string{"--http", addr}, clientArgs...) }, httpsReady(webTLS, "/readyz"))
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://"+addr+"/mcp", strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+authTokenOld)
		resp, err := webClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("initialize over TLS: %d", resp.StatusCode)
		}
	})
}

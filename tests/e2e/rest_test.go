package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// TestRESTBinaries starts skillsd on a loopback port and skills-rest in
// remote mode in front of it, then reads the REST API with net/http and
// compares each skill with what gRPC answers for it.
func TestRESTBinaries(t *testing.T) {
	skipShort(t)
	catalog := filepath.Join(repoRoot(t), "examples", "skills")

	_, grpcAddr := startOnFreePort(t, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", catalog} },
		grpcReady)
	conn := dialGRPC(t, grpcAddr)
	catalogClient := skillsv1.NewCatalogServiceClient(conn)

	_, httpAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", grpcAddr, "--http", addr} },
		httpReady("/readyz"))
	base := "http://" + httpAddr

	t.Run("healthz", func(t *testing.T) {
		var body struct {
			Status string `json:"status"`
		}
		getJSON(t, base+"/healthz", http.StatusOK, &body)
		if body.Status != "SERVING" {
			t.Errorf("GET /healthz: status: got %q, want SERVING", body.Status)
		}
	})

	t.Run("openapi", func(t *testing.T) {
		var doc struct {
			Swagger string                     `json:"swagger"`
			OpenAPI string                     `json:"openapi"`
			Paths   map[string]json.RawMessage `json:"paths"`
		}
		getJSON(t, base+"/openapi.json", http.StatusOK, &doc)
		if doc.Swagger == "" && doc.OpenAPI == "" {
			t.Errorf("GET /openapi.json: no swagger or openapi version field")
		}
		for _, p := range []string{"/v1/skills", "/v1/skills:tree", "/v1/diagnostics", "/v1/status"} {
			if _, ok := doc.Paths[p]; !ok {
				t.Errorf("GET /openapi.json: no path %s among %d", p, len(doc.Paths))
			}
		}
	})

	// The listing, over REST and over gRPC.
	want, err := catalogClient.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 1000})
	if err != nil {
		t.Fatalf("gRPC ListSkills: %v", err)
	}
	if len(want.GetSkills()) == 0 {
		t.Fatalf("gRPC ListSkills: no skills in %s", catalog)
	}
	t.Run("list", func(t *testing.T) {
		got := &skillsv1.ListSkillsResponse{}
		getProto(t, base+"/v1/skills?page_size=1000", got)
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("GET /v1/skills differs from gRPC ListSkills (-grpc +rest):\n%s", diff)
		}
	})

	// Every skill, over REST and over gRPC; paths with slashes among them.
	slashes := 0
	for _, s := range want.GetSkills() {
		path := s.GetSkillPath()
		if strings.Contains(path, "/") {
			slashes++
		}
		t.Run("get/"+path, func(t *testing.T) {
			wantSkill, err := catalogClient.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: path})
			if err != nil {
				t.Fatalf("gRPC GetSkill: %v", err)
			}
			got := &skillsv1.GetSkillResponse{}
			getProto(t, base+"/v1/skills/"+escapePath(path), got)
			if diff := cmp.Diff(wantSkill, got, protocmp.Transform()); diff != "" {
				t.Errorf("GET /v1/skills/%s differs from gRPC GetSkill (-grpc +rest):\n%s", path, diff)
			}
		})
	}
	if slashes == 0 {
		t.Errorf("no skill path with a slash in %s: GET /v1/skills/{skill_path=**} is not exercised", catalog)
	}

	t.Run("unknown", func(t *testing.T) {
		var body struct {
			Error struct {
				Code    string            `json:"code"`
				Message string            `json:"message"`
				Details map[string]string `json:"details"`
			} `json:"error"`
		}
		getJSON(t, base+"/v1/skills/no/such/skill", http.StatusNotFound, &body)
		if body.Error.Code != "SKILL_NOT_FOUND" || body.Error.Message == "" {
			t.Errorf("GET /v1/skills/no/such/skill: error: got %+v, want code SKILL_NOT_FOUND and a message", body.Error)
		}
	})
}

// dialGRPC connects to the skillsd at addr, without TLS, for the rest of
// the test.
func dialGRPC(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dialing skillsd at %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// grpcReady is the readiness check of skillsd: the standard health service
// answers SERVING.
func grpcReady(ctx context.Context, addr string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health: %s", resp.GetStatus())
	}
	return nil
}

// get sends GET url and returns the body, failing unless the status is
// want and the body is JSON.
func get(t *testing.T, rawURL string, want int) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading: %v", rawURL, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status: got %d, want %d; body: %s", rawURL, resp.StatusCode, want, tail(string(body), 1000))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		t.Errorf("GET %s: Content-Type: got %q, want application/json", rawURL, resp.Header.Get("Content-Type"))
	}
	return body
}

// getJSON decodes GET url's body with encoding/json.
func getJSON(t *testing.T, rawURL string, want int, v any) {
	t.Helper()
	if err := json.Unmarshal(get(t, rawURL, want), v); err != nil {
		t.Fatalf("GET %s: decoding: %v", rawURL, err)
	}
}

// getProto decodes GET url's 200 body as the JSON form of a proto message;
// an unknown field is an error.
func getProto(t *testing.T, rawURL string, m proto.Message) {
	t.Helper()
	if err := protojson.Unmarshal(get(t, rawURL, http.StatusOK), m); err != nil {
		t.Fatalf("GET %s: decoding: %v", rawURL, err)
	}
}

// escapePath escapes each segment of a skill path, keeping the slashes.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

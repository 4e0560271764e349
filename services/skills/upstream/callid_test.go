package upstream_test

import (
	"context"
	"net"
	"sync"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/upstream"
)

// flaky answers GetSkill with UNAVAILABLE on every other attempt (as a
// replica dying mid-call does), and notes each attempt's request id.
type flaky struct {
	skillsv1.UnimplementedCatalogServiceServer
	mu  *sync.Mutex
	ids *[]string
}

func (f flaky) GetSkill(ctx context.Context, _ *skillsv1.GetSkillRequest) (*skillsv1.GetSkillResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.ids = append(*f.ids, append(md.Get("x-request-id"), "")[0])
	if len(*f.ids)%2 == 1 {
		return nil, status.Error(codes.Unavailable, "going away")
	}
	return &skillsv1.GetSkillResponse{}, nil
}

// TestRetryKeepsRequestID: every attempt of a call over a list of replicas
// carries one request id (the service derives the call's usage event ids
// from it, so that a retried read is recorded once), and each call has its
// own.
func TestRetryKeepsRequestID(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	var list []string
	for range 2 {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		skillsv1.RegisterCatalogServiceServer(srv, flaky{mu: &mu, ids: &ids})
		healthpb.RegisterHealthServer(srv, health.NewServer()) // SERVING
		go func() { _ = srv.Serve(lis) }()
		t.Cleanup(srv.Stop)
		list = append(list, lis.Addr().String())
	}
	conn, err := upstream.Dial(list[0]+","+list[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := skillsv1.NewCatalogServiceClient(conn)
	for range 2 {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("GetSkill (retried once): %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 4 {
		t.Fatalf("attempts = %d (%q), want 4: two calls, each retried once", len(ids), ids)
	}
	if ids[0] == "" || ids[0] != ids[1] || ids[2] == "" || ids[2] != ids[3] {
		t.Errorf("request ids of the attempts = %q, want one per call, kept by its retry", ids)
	}
	if ids[0] == ids[2] {
		t.Errorf("two calls share the request id %q", ids[0])
	}
}

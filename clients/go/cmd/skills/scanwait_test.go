package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

// pendingCatalog answers ListDiagnostics with a scan-pending diagnostic for
// its first pending calls, then with a finding.
type pendingCatalog struct {
	skillsv1.UnimplementedCatalogServiceServer
	pending int32
	calls   atomic.Int32
}

func (p *pendingCatalog) ListDiagnostics(context.Context, *skillsv1.ListDiagnosticsRequest) (*skillsv1.ListDiagnosticsResponse, error) {
	if p.calls.Add(1) <= p.pending {
		return &skillsv1.ListDiagnosticsResponse{Diagnostics: []*skillsv1.Diagnostic{{Code: codeScanPending, Message: "40 skills wait for their first security scan"}}}, nil
	}
	return &skillsv1.ListDiagnosticsResponse{Findings: []*skillsv1.Finding{{SkillPath: "x", Rule: "script.pipe-to-shell"}}}, nil
}

// TestScanWaitsForFirstScan: scan --server does not report the findings of a
// server whose first scan is still running (a gate would pass skills nobody
// scanned): it waits, saying so, and reports once the scan is done.
func TestScanWaitsForFirstScan(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	cat := &pendingCatalog{pending: 2}
	skillsv1.RegisterCatalogServiceServer(srv, cat)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	var stderr bytes.Buffer
	diags, waited, err := scannedDiagnostics(t.Context(), skillsclient.New(conn), &stderr, "scan")
	if err != nil {
		t.Fatal(err)
	}
	if !waited || cat.calls.Load() != 3 || len(diags.GetFindings()) != 1 {
		t.Errorf("got waited %v after %d calls, %d findings; want true after 3 calls, 1 finding", waited, cat.calls.Load(), len(diags.GetFindings()))
	}
	if !strings.Contains(stderr.String(), "waiting for the server's first security scan") {
		t.Errorf("stderr %q does not say it waits", stderr.String())
	}
}

package e2e

import (
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// runDemo starts scripts/run-demo.sh (make run's recipe) on the examples
// catalog with the given addresses.
func runDemo(t *testing.T, grpcAddr, httpAddr string) *process {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("make run's script is bash")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root := repoRoot(t)
	bin := filepath.Dir(binary(t, "skillsd"))
	binary(t, "skills-rest")
	p := startEnv(t, []string{"RUN_READY_TIMEOUT=30"}, bash, filepath.Join(root, "scripts", "run-demo.sh"), bin, filepath.Join(root, "examples", "skills"), grpcAddr, httpAddr)
	return p
}

// waitExit waits for p to exit and returns its output.
func waitExit(t *testing.T, p *process) string {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(readyTimeout):
		t.Fatalf("run-demo.sh did not stop:\n%s\n%s", p.stdout.String(), p.stderr.String())
	}
	return p.stdout.String() + p.stderr.String()
}

// TestRunDemoPortBusy: a port already taken is named with the variable that
// picks another, and nothing is announced (issue 18: make run printed
// "skillsd is serving …", then bind: address already in use).
func TestRunDemoPortBusy(t *testing.T) {
	skipShort(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	for _, tc := range []struct {
		name, variable     string
		grpcAddr, httpAddr string
	}{
		{"gRPC port", "GRPC_ADDR", busy, freeAddr(t)},
		{"HTTP port", "HTTP_ADDR", freeAddr(t), busy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := runDemo(t, tc.grpcAddr, tc.httpAddr)
			out := waitExit(t, p)
			if p.err == nil {
				t.Errorf("run-demo.sh exited 0 with %s busy", tc.variable)
			}
			if strings.Contains(out, "is serving") {
				t.Errorf("run-demo.sh announced serving with %s busy:\n%s", tc.variable, out)
			}
			for _, want := range []string{busy + " (" + tc.variable + ") is already in use", "make run " + tc.variable + "="} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestRunDemoServerDies: a server that stops before it is ready (here: an
// address it may not listen on) is reported with its last words, and
// nothing is announced.
func TestRunDemoServerDies(t *testing.T) {
	skipShort(t)
	p := runDemo(t, "192.0.2.1:50051", freeAddr(t)) // TEST-NET-1: not this machine's
	out := waitExit(t, p)
	if p.err == nil || strings.Contains(out, "is serving") {
		t.Errorf("run-demo.sh: exit %v, output:\n%s", p.err, out)
	}
	if !strings.Contains(out, "skillsd stopped before it was ready") {
		t.Errorf("output does not say skillsd stopped:\n%s", out)
	}
}

// TestRunDemoAnnouncesWhenReady: the announcement comes once the catalog is
// served through REST, not when a port merely opens.
func TestRunDemoAnnouncesWhenReady(t *testing.T) {
	skipShort(t)
	httpAddr := freeAddr(t)
	p := runDemo(t, freeAddr(t), httpAddr)
	deadline := time.Now().Add(readyTimeout)
	for !strings.Contains(p.stdout.String(), "skillsd is serving") {
		if !p.running() || time.Now().After(deadline) {
			t.Fatalf("no announcement:\n%s\n%s", p.stdout.String(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get("http://" + httpAddr + "/v1/skills/backend/go-service")
	if err != nil {
		t.Fatalf("announced, but: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "go-service") {
		t.Errorf("announced, but GET a skill: %d %.200s", resp.StatusCode, body)
	}
	if !strings.Contains(p.stdout.String(), "GRPC_ADDR=") {
		t.Errorf("the announcement does not say how to pick other ports:\n%s", p.stdout.String())
	}
}

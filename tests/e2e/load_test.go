package e2e

import (
	"runtime"
	"testing"
	"time"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/tests/load"
)

// TestLoadShort runs the driver of make bench-load for a few seconds against
// real skillsd and skills-rest processes serving a copy of examples/skills,
// with a catalog edit and RefreshSkills every 500 ms: no call fails, no
// answer names another skill, the catalog is never short, every rebuild
// swaps a new generation in, and both servers' memory is read. The figures
// themselves come from make bench-load, not from here.
func TestLoadShort(t *testing.T) {
	skipShort(t)
	catalog := copyTree(t, repoRoot(t)+"/examples/skills")
	state := []string{"SKILLSD_HOME=" + t.TempDir()}
	grpcProc, grpcAddr := startOnFreePortEnv(t, state, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", catalog} }, grpcReady)
	restProc, httpAddr := startOnFreePortEnv(t, state, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", grpcAddr, "--http", addr} }, httpReady("/healthz"))

	rep, err := load.Run(t.Context(), load.Options{
		Client:       skillsclient.New(dialGRPC(t, grpcAddr)),
		REST:         "http://" + httpAddr,
		CatalogDir:   catalog,
		Duration:     3 * time.Second,
		Concurrency:  8,
		RebuildEvery: 500 * time.Millisecond,
		PIDs:         map[string]int{"skillsd": grpcProc.cmd.Process.Pid, "skills-rest": restProc.cmd.Process.Pid},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", out.String())
	if n := rep.Errors(); n != 0 {
		t.Errorf("errors: got %d, want 0: %v", n, rep.ErrorSamples)
	}
	for _, s := range rep.Stats {
		if s.Calls == 0 {
			t.Errorf("%s %s: no call made", s.Surface, s.Op)
		}
	}
	if rep.MinSkills != rep.Skills || rep.MaxSkills != rep.Skills {
		t.Errorf("catalog sizes during the load: %d..%d, want %d throughout", rep.MinSkills, rep.MaxSkills, rep.Skills)
	}
	if rep.Rebuilds < 2 || rep.LastGeneration-rep.FirstGeneration < int64(rep.Rebuilds) {
		t.Errorf("rebuilds: %d, generation %d -> %d; want at least 2, each a new generation", rep.Rebuilds, rep.FirstGeneration, rep.LastGeneration)
	}
	for _, m := range rep.Memory {
		if runtime.GOOS != "linux" {
			break // memory comes from /proc
		}
		if m.Before == 0 || m.After == 0 || m.Peak < m.After {
			t.Errorf("memory of %s: %+v, want before, after and a peak at least after", m.Name, m)
		}
	}
}

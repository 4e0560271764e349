package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRemoteReplicas: skills-rest --server over a comma-separated list of
// three skillsd processes answers every request while one of them is
// killed (SIGKILL) and another stopped (SIGTERM) in the middle of the
// traffic: reads are retried on the replicas left.
func TestRemoteReplicas(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: Read and fill PDF files.\n---\nUse it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		procs []*process
		addrs []string
	)
	for range 3 {
		p, addr := startOnFreePort(t, binary(t, "skillsd"),
			func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} },
			grpcReady)
		procs, addrs = append(procs, p), append(addrs, addr)
	}
	_, httpAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", strings.Join(addrs, ","), "--http", addr} },
		httpReady("/readyz"))
	base := "http://" + httpAddr

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ok       int
		failures []string
	)
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, path := range []string{"/v1/skills", "/v1/skills/pdf"} {
					resp, err := http.Get(base + path)
					var body []byte
					if err == nil {
						body, _ = io.ReadAll(resp.Body)
						resp.Body.Close()
					}
					mu.Lock()
					switch {
					case err != nil:
						failures = append(failures, path+": "+err.Error())
					case resp.StatusCode != http.StatusOK:
						failures = append(failures, path+": "+resp.Status+" "+tail(string(body), 300))
					default:
						ok++
					}
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	if err := procs[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	procs[1].stop(t)
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()

	if ok == 0 {
		t.Fatal("no request answered 200")
	}
	for i, f := range failures {
		if i == 5 {
			break
		}
		t.Errorf("a request failed: %s", f)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed, want none", len(failures), ok+len(failures))
	}
	t.Logf("%d requests, all answered", ok)
}

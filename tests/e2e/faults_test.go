package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
	"github.com/skillsd/skillsd/tests/load"
)

// This file is the fault suite (docs/operations.md lists it): each test
// starts the real binaries, injects one fault, and asserts what a platform
// team relies on: the server keeps serving, nothing is lost, nothing is
// served wrong, and it recovers once the fault is gone.

// answerWithin bounds a call that must not be held up by a fault elsewhere
// (generous: the machines are shared).
const answerWithin = 5 * time.Second

// waitFor retries check until it passes or within has passed.
func waitFor(t *testing.T, within time.Duration, what string, check func() error) {
	t.Helper()
	start := time.Now()
	for {
		err := check()
		if err == nil {
			t.Logf("%s: after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v: %v", what, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// prober calls the server every 50 ms until stopped, and remembers the
// slowest answer and the failures: what other clients see during a fault.
type prober struct {
	mu      sync.Mutex
	calls   int
	slowest time.Duration
	fails   []string
	stop    context.CancelFunc
	done    chan struct{}
}

func startProber(t *testing.T, call func(ctx context.Context) error) *prober {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	p := &prober{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for ctx.Err() == nil {
			cctx, ccancel := context.WithTimeout(ctx, answerWithin)
			begin := time.Now()
			err := call(cctx)
			took := time.Since(begin)
			ccancel()
			if ctx.Err() != nil {
				return
			}
			p.mu.Lock()
			p.calls++
			p.slowest = max(p.slowest, took)
			if err != nil && len(p.fails) < 5 {
				p.fails = append(p.fails, err.Error())
			}
			p.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(p.end)
	return p
}

// end stops the prober and waits for it.
func (p *prober) end() {
	p.stop()
	<-p.done
}

// check fails the test when a probe failed, or none was made.
func (p *prober) check(t *testing.T, what string) {
	t.Helper()
	p.end()
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Logf("%s: %d calls, slowest %v", what, p.calls, p.slowest.Round(time.Millisecond))
	if p.calls == 0 {
		t.Errorf("%s: no call was made", what)
	}
	if len(p.fails) > 0 {
		t.Errorf("%s: calls failed during the fault: %v", what, p.fails)
	}
}

// TestFaultSlowWatcher: a WatchCatalog client that never reads while the
// catalog is swapped over a hundred times. Its stream fills the HTTP/2
// windows (the client's and the server's, 64 KiB each) and then stops being
// fed; the server must (1) not block anyone else: another watcher sees every
// generation in order, gRPC and REST calls answer throughout; (2) not grow
// its memory with the swaps: flow control bounds the stream's buffers, and
// the change feed drops the stalled subscriber after 64 changes, discarding
// what it had not read (TestDroppedSubscriberPinsNoSnapshot in package
// catalog shows the snapshots it held are freed); (3) give the slow client a
// clear outcome: when it reads at last it gets the changes it was sent, in
// order with no gap, then UNAVAILABLE saying it fell behind and must watch
// again, and watching again starts at the current generation.
func TestFaultSlowWatcher(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	for i := range 3 {
		writeSkillFile(t, dir, fmt.Sprintf("base-%d", i), skillstest.SkillMD(fmt.Sprintf("base-%d", i), "A base skill that stays."))
	}
	// A folder of 400 skills with long names, moved in and out of the
	// catalog: each move is a change message of about 20 KB, so a few fill
	// the stalled stream's windows. It is in the catalog at start, then
	// moved out, so that the server's first security scan (which readiness
	// waits for) has seen its skills: skills it never saw would wait for a
	// background scan, hidden, and their moves would change almost nothing.
	outside := t.TempDir()
	bulk := filepath.Join(outside, "bulk")
	inside := filepath.Join(dir, "bulk")
	for i := range 400 {
		name := fmt.Sprintf("a-skill-with-a-rather-long-name-for-the-stream-%04d", i)
		writeSkillFile(t, inside, name, skillstest.SkillMD(name, "One of many."))
	}
	proc, grpcAddr := startOnFreePortEnv(t, []string{"SKILLSD_HOME=" + t.TempDir()}, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} }, grpcReady)
	_, httpAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", grpcAddr, "--http", addr} }, httpReady("/healthz"))
	conn := dialGRPC(t, grpcAddr)
	cat := skillsv1.NewCatalogServiceClient(conn)
	routing := skillsv1.NewRoutingServiceClient(conn)
	if err := os.Rename(inside, bulk); err != nil {
		t.Fatal(err)
	}
	if resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil || !resp.GetSuccess() {
		t.Fatalf("RefreshSkills: %v %v", resp, err)
	}

	// The stalled client: its own connection, with fixed 64 KiB windows (no
	// window growth from bandwidth estimation), and a stream it never reads.
	stalledConn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(1<<16), grpc.WithInitialConnWindowSize(1<<16))
	if err != nil {
		t.Fatal(err)
	}
	defer stalledConn.Close()
	stalled, err := skillsv1.NewCatalogServiceClient(stalledConn).WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// A client that keeps up.
	fast := watchAll(t, cat)
	// Let both streams open before the swaps begin.
	time.Sleep(300 * time.Millisecond)

	rssBefore := load.RSS(proc.cmd.Process.Pid, "VmRSS")
	probes := startProber(t, func(ctx context.Context) error {
		if _, err := cat.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "base-1"}); err != nil {
			return fmt.Errorf("GetSkill: %w", err)
		}
		if _, err := routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "base skill"}); err != nil {
			return fmt.Errorf("SearchSkills: %w", err)
		}
		return getCtx(ctx, "http://"+httpAddr+"/v1/skills/base-2")
	})

	refresh := func() int64 {
		t.Helper()
		resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
		if err != nil || !resp.GetSuccess() {
			t.Fatalf("RefreshSkills: %v %v", resp, err)
		}
		return resp.GetGeneration()
	}
	// 16 big swaps (the bulk folder in, out, …): over 300 KB of changes for
	// the stalled stream, well past its windows.
	for i := range 16 {
		from, to := bulk, inside
		if i%2 == 1 {
			from, to = to, from
		}
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		refresh()
	}
	// Then 80 small ones: the stalled subscriber falls more than 64 behind.
	var last int64
	for i := range 80 {
		writeSkillFile(t, dir, "base-0", skillstest.SkillMD("base-0", fmt.Sprintf("A base skill, edit %d.", i)))
		last = refresh()
	}
	probes.check(t, "GetSkill, SearchSkills and REST GET during the swaps")
	rssAfter := load.RSS(proc.cmd.Process.Pid, "VmRSS")
	peak := load.RSS(proc.cmd.Process.Pid, "VmHWM")
	t.Logf("skillsd memory: %d MiB before the swaps, %d MiB after, peak %d MiB", rssBefore>>20, rssAfter>>20, peak>>20)
	if rssBefore > 0 && rssAfter-rssBefore > 64<<20 {
		t.Errorf("skillsd grew by %d MiB during the swaps with a stalled watcher, want well under 64", (rssAfter-rssBefore)>>20)
	}

	// The fast watcher saw every generation, in order, up to the last
	// (the watcher of the folder may add swaps of its own: wait for the
	// latest one).
	final := waitGeneration(t, cat, last)
	fast.expectContiguous(t, final)

	// The stalled client reads at last.
	var got []int64
	var end error
	readCtx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	go func() { <-readCtx.Done(); stalledConn.Close() }()
	for {
		msg, err := stalled.Recv()
		if err != nil {
			end = err
			break
		}
		got = append(got, msg.GetGeneration())
	}
	if len(got) == 0 {
		t.Fatalf("the stalled watcher got nothing before %v", end)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("the stalled watcher got generation %d after %d: a gap", got[i], got[i-1])
		}
	}
	t.Logf("the stalled watcher got generations %d..%d, then %v", got[0], got[len(got)-1], end)
	if got[len(got)-1] >= final {
		t.Errorf("the stalled watcher got every change (up to %d): the test did not stall it", got[len(got)-1])
	}
	if st := status.Convert(end); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "fell behind") || !strings.Contains(st.Message(), "watch again") {
		t.Errorf("the stalled watcher's stream ended with %v, want UNAVAILABLE saying it fell behind and must watch again", end)
	}
	again := watchAll(t, cat)
	if first := again.next(t); !first.GetInitial() || first.GetGeneration() < final {
		t.Errorf("watching again: first message %v, want initial at generation ≥ %d", first, final)
	}
}

// watcher reads a WatchCatalog stream into a channel.
type watcher struct {
	msgs chan *skillsv1.WatchCatalogResponse
}

func watchAll(t *testing.T, cat skillsv1.CatalogServiceClient) *watcher {
	t.Helper()
	stream, err := cat.WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	w := &watcher{msgs: make(chan *skillsv1.WatchCatalogResponse, 4096)}
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				close(w.msgs)
				return
			}
			w.msgs <- msg
		}
	}()
	return w
}

func (w *watcher) next(t *testing.T) *skillsv1.WatchCatalogResponse {
	t.Helper()
	select {
	case m, ok := <-w.msgs:
		if !ok {
			t.Fatal("the watch stream ended")
		}
		return m
	case <-time.After(answerWithin):
		t.Fatal("no watch message")
		return nil
	}
}

// expectContiguous reads until generation final, failing on a gap.
func (w *watcher) expectContiguous(t *testing.T, final int64) {
	t.Helper()
	first := w.next(t)
	if !first.GetInitial() {
		t.Fatalf("first watch message not initial: %v", first)
	}
	prev, n := first.GetGeneration(), 0
	for prev < final {
		m := w.next(t)
		if m.GetGeneration() != prev+1 {
			t.Fatalf("the watcher that keeps up got generation %d after %d", m.GetGeneration(), prev)
		}
		prev, n = m.GetGeneration(), n+1
	}
	t.Logf("the watcher that keeps up saw %d changes in order, up to generation %d", n, final)
}

// waitGeneration waits until the catalog's generation stops moving (the
// folder's watcher may still swap after the last refresh) and returns it; it
// is at least min.
func waitGeneration(t *testing.T, cat skillsv1.CatalogServiceClient, min int64) int64 {
	t.Helper()
	prev := int64(-1)
	for range 20 {
		st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if g := st.GetGeneration(); g >= min && g == prev {
			return g
		}
		prev = st.GetGeneration()
		time.Sleep(750 * time.Millisecond) // longer than the watcher's debounce
	}
	t.Fatalf("the catalog's generation kept moving (last %d)", prev)
	return 0
}

// getCtx sends GET url and returns an error unless it answers 200.
func getCtx(ctx context.Context, rawURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", rawURL, resp.Status)
	}
	return nil
}

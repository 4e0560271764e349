package upstream_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/upstream"
)

// replica is a real skillsd served on a loopback listener that the test
// can kill abruptly (every connection dropped at once, as a crash would).
type replica struct {
	addr string
	lis  *killable
	srv  *skillsd.Server
}

// killable is a listener whose kill closes it and every connection it
// accepted.
type killable struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
	dead  bool
}

func (k *killable) Accept() (net.Conn, error) {
	c, err := k.Listener.Accept()
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	k.conns = append(k.conns, c)
	return c, nil
}

func (k *killable) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	_ = k.Listener.Close()
	for _, c := range k.conns {
		_ = c.Close()
	}
}

// catalog writes a folder of one skill.
func catalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: Read and fill PDF files.\n---\nUse it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startReplicas starts n skillsd servers over the same catalog, ready.
func startReplicas(t *testing.T, n int) []*replica {
	t.Helper()
	dir := catalog(t)
	var rs []*replica
	for range n {
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true, NoUsage: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		k := &killable{Listener: lis}
		go func() { _ = srv.Serve(t.Context(), k) }()
		if err := srv.WaitReady(t.Context()); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &replica{addr: lis.Addr().String(), lis: k, srv: srv})
	}
	return rs
}

// counter counts the calls each replica answered, by peer address.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) interceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		var p peer.Peer
		err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Peer(&p))...)
		if p.Addr != nil {
			c.mu.Lock()
			c.n[p.Addr.String()]++
			c.mu.Unlock()
		}
		return err
	}
}

func (c *counter) get(addr string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[addr]
}

func (c *counter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = map[string]int{}
}

func dial(t *testing.T, server string, c *counter) skillsv1.CatalogServiceClient {
	t.Helper()
	conn, err := upstream.Dial(server, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithUnaryInterceptor(c.interceptor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return skillsv1.NewCatalogServiceClient(conn)
}

func addrs(rs []*replica) string {
	var list []string
	for _, r := range rs {
		list = append(list, r.addr)
	}
	return strings.Join(list, ",")
}

// waitAll calls until every address in want answered at least once, so
// that the balancer has connected to all of them.
func waitAll(t *testing.T, client skillsv1.CatalogServiceClient, c *counter, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("GetSkill: %v", err)
		}
		missing := 0
		for _, a := range want {
			if c.get(a) == 0 {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, %d of %v never answered: %v", missing, want, c.n)
		}
	}
}

// TestBalance: calls over a list of three replicas reach each of them.
func TestBalance(t *testing.T) {
	rs := startReplicas(t, 3)
	c := &counter{n: map[string]int{}}
	client := dial(t, addrs(rs), c)
	waitAll(t, client, c, []string{rs[0].addr, rs[1].addr, rs[2].addr})
	c.reset()
	for i := range 60 {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for _, r := range rs {
		// Round-robin: 20 each; allow for nothing but the order.
		if got := c.get(r.addr); got < 15 {
			t.Errorf("replica %s answered %d of 60 calls, want about 20 (%v)", r.addr, got, c.n)
		}
	}
}

// TestReplicaKilled: a replica killed in the middle of a loop of reads
// (its connections dropped at once) and another stopped gracefully cost
// the caller no failed call.
func TestReplicaKilled(t *testing.T) {
	rs := startReplicas(t, 3)
	c := &counter{n: map[string]int{}}
	client := dial(t, addrs(rs), c)
	waitAll(t, client, c, []string{rs[0].addr, rs[1].addr, rs[2].addr})

	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
					errs <- err
				}
				if _, err := client.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{}); err != nil {
					errs <- err
				}
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	rs[0].lis.kill()
	time.Sleep(300 * time.Millisecond)
	_ = rs[1].srv.Close()
	time.Sleep(300 * time.Millisecond)
	c.reset()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n < 5 {
			t.Errorf("a call failed: %v", err)
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d calls failed, want none", n)
	}
	if got := c.get(rs[2].addr); got == 0 {
		t.Errorf("the last replica answered no call after the others stopped (%v)", c.n)
	}
}

// TestUnhealthy: a replica whose health check answers NOT_SERVING gets no
// call; once SERVING, it gets its share.
func TestUnhealthy(t *testing.T) {
	rs := startReplicas(t, 2)
	// The third replica is a bare gRPC server with the health service:
	// any call of the skills services that reaches it is counted and
	// answered UNAVAILABLE.
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	var mu sync.Mutex
	reached := 0
	sick := grpc.NewServer(grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error {
		mu.Lock()
		reached++
		mu.Unlock()
		return status.Error(codes.Unavailable, "the unhealthy replica answered")
	}))
	healthpb.RegisterHealthServer(sick, hs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = sick.Serve(lis) }()
	t.Cleanup(sick.Stop)

	c := &counter{n: map[string]int{}}
	client := dial(t, addrs(rs)+","+lis.Addr().String(), c)
	waitAll(t, client, c, []string{rs[0].addr, rs[1].addr})
	for i := range 60 {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	mu.Lock()
	got := reached
	mu.Unlock()
	if got != 0 {
		t.Errorf("the NOT_SERVING replica received %d calls, want 0", got)
	}

	// SERVING again: the balancer sends it calls (which it answers
	// UNAVAILABLE, and which are retried on the others: still no failure).
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("GetSkill after the replica recovered: %v", err)
		}
		mu.Lock()
		got = reached
		mu.Unlock()
		if got > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica back to SERVING received no call in 10 s")
		}
	}
}

// TestSingle: one host:port is dialed as grpc.NewClient dials it, with
// no service config: a server that is not ready still answers its own
// message, and calls reach it.
func TestSingle(t *testing.T) {
	rs := startReplicas(t, 1)
	c := &counter{n: map[string]int{}}
	client := dial(t, rs[0].addr, c)
	if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
		t.Fatalf("GetSkill: %v", err)
	}
	if got := c.get(rs[0].addr); got != 1 {
		t.Errorf("the server answered %d calls, want 1", got)
	}
	if upstream.Replicas(rs[0].addr) {
		t.Errorf("Replicas(%q) = true, want false", rs[0].addr)
	}
}

// TestParse: malformed lists are refused with the element at fault;
// single targets and well-formed lists pass.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		err      string
	}{
		{"host:port", "skills.internal:50051", nil, ""},
		{"dns", "dns:///skills.internal:50051", nil, ""},
		{"unix", "unix:///run/skillsd.sock", nil, ""},
		{"list", "a:1, b:2,c:3", []string{"a:1", "b:2", "c:3"}, ""},
		{"ipv6", "[::1]:1,127.0.0.1:2", []string{"[::1]:1", "127.0.0.1:2"}, ""},
		{"empty", "", nil, "no address"},
		{"empty element", "a:1,,b:2", nil, "address 2 of the list is empty"},
		{"trailing comma", "a:1,", nil, "address 2 of the list is empty"},
		{"no port", "a:1,b", nil, `address 2, "b", is not host:port`},
		{"bad port", "a:1,b:http", nil, `address 2, "b:http", has no valid port`},
		{"port out of range", "a:70000,b:2", nil, `address 1, "a:70000", has no valid port`},
		{"no host", ":1,b:2", nil, `address 1, ":1", has no host`},
	} {
		got, err := upstream.Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Parse(%q) = %v, %v; want error %q", tc.name, tc.in, got, err, tc.err)
			}
			if _, err := upstream.Dial(tc.in); err == nil {
				t.Errorf("%s: Dial(%q) succeeded, want an error", tc.name, tc.in)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: Parse(%q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
		}
	}
}

// TestDNS: dns:///localhost:port reaches the replica on 127.0.0.1 (and
// skips ::1, where nothing listens) without a failed call.
func TestDNS(t *testing.T) {
	rs := startReplicas(t, 1)
	_, port, _ := net.SplitHostPort(rs[0].addr)
	target := "dns:///" + net.JoinHostPort("localhost", port)
	if !upstream.Replicas(target) {
		t.Errorf("Replicas(%q) = false, want true", target)
	}
	c := &counter{n: map[string]int{}}
	client := dial(t, target, c)
	for i := range 20 {
		if _, err := client.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := c.get(rs[0].addr); got != 20 {
		t.Errorf("the replica answered %d of 20 calls (%v)", got, c.n)
	}
}

// TestNoneReady: while no replica is ready, a read fails UNAVAILABLE at
// once (after its retries), not at its deadline.
func TestNoneReady(t *testing.T) {
	var list []string
	for range 2 {
		hs := health.NewServer()
		hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
		s := grpc.NewServer()
		healthpb.RegisterHealthServer(s, hs)
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.Serve(lis) }()
		t.Cleanup(s.Stop)
		list = append(list, lis.Addr().String())
	}
	client := dial(t, strings.Join(list, ","), &counter{n: map[string]int{}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := client.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "pdf"})
	if got := status.Code(err); got != codes.Unavailable {
		t.Errorf("GetSkill: %v, want UNAVAILABLE", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("GetSkill failed after %v, want at once", d)
	}
}

// TestServiceConfig: writes, scripts and the change stream are never
// retried; the reads are.
func TestServiceConfig(t *testing.T) {
	sc := upstream.ServiceConfig()
	for _, never := range []string{"RunScript", "RunCommand", "RefreshSkills", "ReportUsage", "IngestEvents", "WatchCatalog"} {
		if strings.Contains(sc, `"`+never+`"`) {
			t.Errorf("the service config names %s: %s", never, sc)
		}
	}
	for _, read := range []string{"GetSkill", "ListSkills", "SearchSkills", "MatchSkill", "ReadSkillFile"} {
		if !strings.Contains(sc, `"`+read+`"`) {
			t.Errorf("the service config does not retry %s: %s", read, sc)
		}
	}
	for _, want := range []string{`"round_robin"`, `"healthCheckConfig":{"serviceName":""}`, `"retryableStatusCodes":["UNAVAILABLE"]`} {
		if !strings.Contains(sc, want) {
			t.Errorf("the service config lacks %s: %s", want, sc)
		}
	}
}

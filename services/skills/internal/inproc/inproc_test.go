package inproc

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// health is the service under test: Check answers what the test sets, and
// records what the handler saw.
type health struct {
	healthpb.UnimplementedHealthServer
	mu      sync.Mutex
	answer  func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error)
	lastReq *healthpb.HealthCheckRequest
}

func (h *health) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	h.mu.Lock()
	h.lastReq = req
	answer := h.answer
	h.mu.Unlock()
	return answer(ctx, req)
}

func (h *health) Watch(req *healthpb.HealthCheckRequest, s grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	return s.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING})
}

type fixture struct {
	h      *health
	order  *[]string
	remote *grpc.ClientConn
	reg    *Registrar
	// ints are the server's interceptors, for the in-process Conn.
	ints []grpc.UnaryServerInterceptor
}

// newFixture serves the health service behind two interceptors on a real
// grpc.Server over bufconn, registered through a Registrar.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	var mu sync.Mutex
	order := []string{}
	mark := func(name string) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			mu.Lock()
			order = append(order, name+" "+info.FullMethod)
			mu.Unlock()
			if name == "outer" {
				_ = grpc.SetHeader(ctx, metadata.Pairs("x-seen-by", "outer"))
			}
			return handler(ctx, req)
		}
	}
	ints := []grpc.UnaryServerInterceptor{mark("outer"), mark("inner")}
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(ints...))
	h := &health{}
	reg := NewRegistrar(srv)
	healthpb.RegisterHealthServer(reg, h)
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient("passthrough:///inproc-test",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return &fixture{h: h, order: &order, remote: cc, reg: reg, ints: ints}
}

func (f *fixture) conn(t *testing.T, o Options) *Conn {
	t.Helper()
	o.Interceptors = f.ints
	o.Fallback = f.remote
	c, err := f.reg.Conn(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSameAnswersAsTheConnection: every outcome of a call in process is
// what the same call over the server's connection gives: the answer, the
// error's code and message, the headers the interceptors set, the order of
// the interceptors.
func TestSameAnswersAsTheConnection(t *testing.T) {
	f := newFixture(t)
	c := f.conn(t, Options{})
	cases := map[string]func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error){
		"answer": func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
		},
		"status error": func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return nil, status.Error(codes.NotFound, "no service named x: try y")
		},
		"wrapped status": func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return nil, errors.Join(status.Error(codes.FailedPrecondition, "not yet"))
		},
		"plain error": func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return nil, errors.New("disk on fire")
		},
		"context error": func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return nil, context.DeadlineExceeded
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			f.h.mu.Lock()
			f.h.answer = answer
			f.h.mu.Unlock()
			type outcome struct {
				resp   string
				code   codes.Code
				msg    string
				header string
				order  string
			}
			run := func(cc grpc.ClientConnInterface) outcome {
				*f.order = (*f.order)[:0]
				var hdr metadata.MD
				resp, err := healthpb.NewHealthClient(cc).Check(t.Context(), &healthpb.HealthCheckRequest{Service: "svc"}, grpc.Header(&hdr))
				st := status.Convert(err)
				return outcome{resp: resp.String(), code: st.Code(), msg: st.Message(), header: strings.Join(hdr.Get("x-seen-by"), ","), order: strings.Join(*f.order, "; ")}
			}
			remote, local := run(f.remote), run(c)
			if remote != local {
				t.Errorf("over the connection %+v\nin process        %+v", remote, local)
			}
			if local.order != "outer /grpc.health.v1.Health/Check; inner /grpc.health.v1.Health/Check" {
				t.Errorf("interceptors ran as %q", local.order)
			}
		})
	}
}

// TestMessagesAreCopies: the handler never holds the caller's request, nor
// the caller the handler's answer.
func TestMessagesAreCopies(t *testing.T) {
	f := newFixture(t)
	kept := &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}
	f.h.answer = func(_ context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		req.Service = "changed by the handler"
		return kept, nil
	}
	c := f.conn(t, Options{})
	req := &healthpb.HealthCheckRequest{Service: "mine"}
	resp, err := healthpb.NewHealthClient(c).Check(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if req.Service != "mine" {
		t.Errorf("the caller's request became %q", req.Service)
	}
	resp.Status = healthpb.HealthCheckResponse_NOT_SERVING
	if kept.Status != healthpb.HealthCheckResponse_SERVING {
		t.Error("changing the answer changed the handler's message")
	}
	req.Service = "changed by the caller"
	if f.h.lastReq.Service != "changed by the handler" {
		t.Errorf("the handler's request became %q", f.h.lastReq.Service)
	}
}

// TestContextMetadataPeer: the handler sees the caller's outgoing metadata
// as incoming, the configured peer, the caller's deadline and cancellation,
// but none of the caller's context values.
func TestContextMetadataPeer(t *testing.T) {
	f := newFixture(t)
	type key struct{}
	want := &peer.Peer{Addr: &net.UnixAddr{Name: "inproc", Net: "unix"}, LocalAddr: &net.UnixAddr{Name: "local", Net: "unix"}}
	var seen struct {
		md       metadata.MD
		peer     *peer.Peer
		deadline bool
		value    any
		method   string
	}
	f.h.answer = func(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		seen.md, _ = metadata.FromIncomingContext(ctx)
		seen.peer, _ = peer.FromContext(ctx)
		_, seen.deadline = ctx.Deadline()
		seen.value = ctx.Value(key{})
		seen.method, _ = grpc.Method(ctx)
		return &healthpb.HealthCheckResponse{}, nil
	}
	c := f.conn(t, Options{Peer: want})
	ctx, cancel := context.WithTimeout(context.WithValue(t.Context(), key{}, "secret"), time.Minute)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "X-Hide", "1")
	if _, err := healthpb.NewHealthClient(c).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := seen.md.Get("x-hide"); len(got) != 1 || got[0] != "1" {
		t.Errorf("incoming metadata %v", seen.md)
	}
	if seen.peer != want || !seen.deadline || seen.value != nil || seen.method != "/grpc.health.v1.Health/Check" {
		t.Errorf("peer %v (want %v), deadline %v, caller's value %v, method %q", seen.peer, want, seen.deadline, seen.value, seen.method)
	}

	// Cancelled while the handler runs: the caller gets Canceled, the
	// handler sees its context end.
	ended := make(chan struct{})
	f.h.answer = func(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		<-ctx.Done()
		close(ended)
		return &healthpb.HealthCheckResponse{}, nil // as a handler that ignores it
	}
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := healthpb.NewHealthClient(c).Check(ctx, &healthpb.HealthCheckRequest{})
	if status.Code(err) != codes.Canceled {
		t.Errorf("cancelled call: %v", err)
	}
	<-ended
	// Already ended: the handler is not called.
	called := false
	f.h.answer = func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		called = true
		return &healthpb.HealthCheckResponse{}, nil
	}
	if _, err := healthpb.NewHealthClient(c).Check(ctx, &healthpb.HealthCheckRequest{}); status.Code(err) != codes.Canceled || called {
		t.Errorf("call on an ended context: %v, handler called %v", err, called)
	}
}

// TestLimitsAndFallback: messages over the size limits are refused as over
// a connection; streams go over the fallback; the client interceptors wrap
// the calls in process, outermost first.
func TestLimitsAndFallback(t *testing.T) {
	f := newFixture(t)
	f.h.answer = func(_ context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	}
	var calls []string
	client := func(name string) grpc.UnaryClientInterceptor {
		return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			calls = append(calls, name)
			return invoker(ctx, method, req, reply, cc, opts...)
		}
	}
	c := f.conn(t, Options{MaxSendMsgSize: 64, MaxRecvMsgSize: 1, ClientInterceptors: []grpc.UnaryClientInterceptor{client("a"), client("b")}})
	hc := healthpb.NewHealthClient(c)
	if _, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: strings.Repeat("x", 100)}); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("request over the limit: %v", err)
	}
	if _, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{}); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "received message larger than max") {
		t.Errorf("answer over the limit: %v", err)
	}
	if strings.Join(calls, ",") != "a,b,a,b" {
		t.Errorf("client interceptors ran %v", calls)
	}
	w, err := hc.Watch(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := w.Recv(); err != nil || m.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("stream over the fallback: %v, %v", m, err)
	}
	// A method the registrar does not know goes over the fallback, which
	// answers as the server does.
	err = c.Invoke(t.Context(), "/grpc.health.v1.Health/Nope", &healthpb.HealthCheckRequest{}, &healthpb.HealthCheckResponse{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := (&Registrar{}).Conn(Options{}); err == nil {
		t.Error("a Conn without a fallback was made")
	}
}

// Package inproc calls a gRPC server's unary methods from its own process:
// the same handlers behind the same interceptors as a call over a
// connection, with the messages copied instead of encoded, and no transport
// between caller and handler. An embedded gateway (skills-mcp over stdio)
// pays for neither HTTP/2 framing nor protobuf encoding on its hot path,
// while the service's behaviour keeps one code path: what a handler and its
// interceptors do is what every surface gets.
//
// A Registrar stands in for the grpc.Server when the services are
// registered: it registers them there too and remembers each unary method's
// handler. Its Conn then answers unary calls itself and hands streaming
// calls (and any method it does not know) to a real connection.
package inproc

import (
	"context"
	"fmt"
	"maps"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// DefaultMaxMsgSize is the largest message a call carries either way, as
// grpc-go's default for what a server or a client receives (4 MiB): a call
// in process refuses what a call over a connection would refuse.
const DefaultMaxMsgSize = 4 << 20

// method is one unary method of a registered service.
type method struct {
	impl    any
	handler grpc.MethodHandler
}

// Registrar registers services on a grpc.ServiceRegistrar (the server) and
// remembers their unary methods for Conn. Register every service before
// the first Conn is made; it is not safe for concurrent registration.
type Registrar struct {
	next    grpc.ServiceRegistrar
	methods map[string]method
}

// NewRegistrar returns a Registrar that registers on next.
func NewRegistrar(next grpc.ServiceRegistrar) *Registrar {
	return &Registrar{next: next, methods: map[string]method{}}
}

// RegisterService registers impl on the server, and its unary methods here.
func (r *Registrar) RegisterService(sd *grpc.ServiceDesc, impl any) {
	r.next.RegisterService(sd, impl)
	for _, m := range sd.Methods {
		r.methods["/"+sd.ServiceName+"/"+m.MethodName] = method{impl: impl, handler: m.Handler}
	}
}

// Options configure a Conn.
type Options struct {
	// Interceptors are the server's unary interceptors, outermost first, as
	// grpc.ChainUnaryInterceptor takes them: every call runs through them.
	Interceptors []grpc.UnaryServerInterceptor
	// ClientInterceptors wrap every unary call on the caller's side,
	// outermost first, as grpc.WithChainUnaryInterceptor takes them (their
	// *grpc.ClientConn argument is nil).
	ClientInterceptors []grpc.UnaryClientInterceptor
	// Peer is the caller as the handlers see it (peer.FromContext).
	Peer *peer.Peer
	// Fallback carries the streaming calls, and unary calls of methods the
	// Registrar does not know or whose messages are not protobuf. Required.
	Fallback grpc.ClientConnInterface
	// MaxRecvMsgSize and MaxSendMsgSize bound the answer and the request
	// (proto.Size); 0 means DefaultMaxMsgSize.
	MaxRecvMsgSize, MaxSendMsgSize int
}

// Conn is a grpc.ClientConnInterface whose unary calls run in process.
type Conn struct {
	methods map[string]method
	chain   grpc.UnaryServerInterceptor
	client  grpc.UnaryInvoker
	opts    Options
}

// Conn returns a connection to the services registered so far.
func (r *Registrar) Conn(opts Options) (*Conn, error) {
	if opts.Fallback == nil {
		return nil, fmt.Errorf("inproc: Options.Fallback is required")
	}
	if opts.MaxRecvMsgSize <= 0 {
		opts.MaxRecvMsgSize = DefaultMaxMsgSize
	}
	if opts.MaxSendMsgSize <= 0 {
		opts.MaxSendMsgSize = DefaultMaxMsgSize
	}
	c := &Conn{methods: maps.Clone(r.methods), chain: chainServer(opts.Interceptors), opts: opts}
	c.client = chainClient(opts.ClientInterceptors, c.invoke)
	return c, nil
}

// Invoke calls a unary method: in process when the Registrar knows it,
// over Options.Fallback otherwise.
func (c *Conn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return c.client(ctx, method, args, reply, nil, opts...)
}

// NewStream opens a streaming call over Options.Fallback.
func (c *Conn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return c.opts.Fallback.NewStream(ctx, desc, method, opts...)
}

// invoke is the call after the client interceptors.
func (c *Conn) invoke(ctx context.Context, name string, args, reply any, _ *grpc.ClientConn, opts ...grpc.CallOption) error {
	m, known := c.methods[name]
	in, okIn := args.(proto.Message)
	out, okOut := reply.(proto.Message)
	if !known || !okIn || !okOut {
		return c.opts.Fallback.Invoke(ctx, name, args, reply, opts...)
	}
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	if n := proto.Size(in); n > c.opts.MaxSendMsgSize {
		return status.Errorf(codes.ResourceExhausted, "grpc: trying to send message larger than max (%d vs. %d)", n, c.opts.MaxSendMsgSize)
	}
	sctx, stop := serverContext(ctx)
	defer stop()
	if md, ok := metadata.FromOutgoingContext(ctx); ok {
		sctx = metadata.NewIncomingContext(sctx, md)
	}
	if c.opts.Peer != nil {
		sctx = peer.NewContext(sctx, c.opts.Peer)
	}
	st := &serverStream{method: name}
	sctx = grpc.NewContextWithServerTransportStream(sctx, st)
	// The handler gets its own copy of the request, the caller its own copy
	// of the answer: neither sees what the other does to its messages later.
	dec := func(v any) error {
		dst, ok := v.(proto.Message)
		if !ok {
			return status.Errorf(codes.Internal, "inproc: %s decodes into %T, not a protobuf message", name, v)
		}
		proto.Merge(dst, in)
		return nil
	}
	resp, err := m.handler(m.impl, sctx, dec, c.chain)
	st.deliver(opts)
	if err != nil {
		// As the server sends it: a status as is, anything else as Unknown
		// (a context's error as its code).
		if s, ok := status.FromError(err); ok {
			return s.Err()
		}
		return status.FromContextError(err).Err()
	}
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	rm, ok := resp.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "inproc: %s answered %T, not a protobuf message", name, resp)
	}
	if n := proto.Size(rm); n > c.opts.MaxRecvMsgSize {
		return status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", n, c.opts.MaxRecvMsgSize)
	}
	proto.Reset(out)
	proto.Merge(out, rm)
	return nil
}

// serverContext is the context a handler runs in: the caller's deadline and
// cancellation, none of its values (a handler over a connection sees none
// either).
func serverContext(ctx context.Context) (context.Context, func()) {
	sctx, cancel := context.WithCancelCause(context.Background())
	var cancelDeadline context.CancelFunc = func() {}
	if d, ok := ctx.Deadline(); ok {
		sctx, cancelDeadline = context.WithDeadline(sctx, d)
	}
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	return sctx, func() {
		stop()
		cancelDeadline()
		cancel(context.Canceled)
	}
}

// chainServer chains interceptors, the first outermost; nil for none.
func chainServer(ints []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	if len(ints) == 0 {
		return nil
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return ints[0](ctx, req, info, serverLink(ints, 1, info, handler))
	}
}

func serverLink(ints []grpc.UnaryServerInterceptor, i int, info *grpc.UnaryServerInfo, final grpc.UnaryHandler) grpc.UnaryHandler {
	if i == len(ints) {
		return final
	}
	return func(ctx context.Context, req any) (any, error) {
		return ints[i](ctx, req, info, serverLink(ints, i+1, info, final))
	}
}

// chainClient chains client interceptors in front of invoke, the first
// outermost.
func chainClient(ints []grpc.UnaryClientInterceptor, invoke grpc.UnaryInvoker) grpc.UnaryInvoker {
	for i := len(ints) - 1; i >= 0; i-- {
		next, in := invoke, ints[i]
		invoke = func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, opts ...grpc.CallOption) error {
			return in(ctx, method, req, reply, cc, next, opts...)
		}
	}
	return invoke
}

// serverStream is the grpc.ServerTransportStream of a call in process: it
// names the method and keeps the headers and trailers the handler sets,
// for the caller's grpc.Header and grpc.Trailer options.
type serverStream struct {
	method          string
	header, trailer metadata.MD
}

func (s *serverStream) Method() string { return s.method }

func (s *serverStream) SetHeader(md metadata.MD) error {
	s.header = metadata.Join(s.header, md)
	return nil
}

func (s *serverStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }

func (s *serverStream) SetTrailer(md metadata.MD) error {
	s.trailer = metadata.Join(s.trailer, md)
	return nil
}

// deliver hands the headers and trailers to the call's options that ask
// for them.
func (s *serverStream) deliver(opts []grpc.CallOption) {
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			*o.HeaderAddr = s.header.Copy()
		case grpc.TrailerCallOption:
			*o.TrailerAddr = s.trailer.Copy()
		}
	}
}

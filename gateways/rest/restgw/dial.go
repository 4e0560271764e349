package restgw

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/skillsd/skillsd/services/skills/upstream"
)

// Dial returns a connection to a remote skillsd at addr: host:port (or any
// gRPC target), or several replicas, dns:///host:port or a comma-separated
// list (a:1,b:2), balanced round-robin over the healthy ones with reads
// retried on UNAVAILABLE (package upstream). With a token, every call that does not already carry an
// authorization (forwarded from the HTTP request's Authorization header) is
// sent with "Bearer <token>". The connection is plaintext unless extra holds
// transport credentials (grpc.WithTransportCredentials with TLS): extra
// options are applied after Dial's own.
func Dial(addr, token string, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts,
			grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
				return invoker(withBearer(ctx, token), method, req, reply, cc, callOpts...)
			}),
			grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, callOpts ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(withBearer(ctx, token), desc, cc, method, callOpts...)
			}),
		)
	}
	conn, err := upstream.Dial(addr, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("restgw: dialing: %w", err)
	}
	return conn, nil
}

// withBearer adds the token unless the call already has an authorization: a
// caller's own credentials win over the gateway's.
func withBearer(ctx context.Context, token string) context.Context {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get("authorization")) > 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

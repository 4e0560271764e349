package edge

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// HidePathsKey is the gRPC metadata by which a caller asks the service to
// leave its absolute paths out of an answer: a gateway whose own listener
// hides them sends it with every call. A caller can only ask for less: the
// service hides paths on its own listeners as its policy says, whatever the
// metadata.
const HidePathsKey = "skillsd-hide-paths"

// HidePathsDialOptions are the dial options of a gateway's connection to the
// service when its listener hides paths: every call carries HidePathsKey.
func HidePathsDialOptions() []grpc.DialOption {
	mark := func(ctx context.Context) context.Context {
		return metadata.AppendToOutgoingContext(ctx, HidePathsKey, "1")
	}
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(mark(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(mark(ctx), desc, cc, method, opts...)
		}),
	}
}

// HidePathsAsked reports whether an incoming call carries HidePathsKey.
func HidePathsAsked(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(HidePathsKey) {
		if v != "" && v != "0" && v != "false" {
			return true
		}
	}
	return false
}

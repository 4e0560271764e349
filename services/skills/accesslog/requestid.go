package accesslog

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// metadataKey is RequestIDHeader as gRPC metadata.
const metadataKey = "x-request-id"

// maxID bounds a request id taken from a caller.
const maxID = 128

type requestIDKey struct{}

// NewRequestID is a fresh request id: 16 random bytes in hex.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WithRequestID returns ctx carrying the request id id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the request id ctx carries (WithRequestID, or the incoming
// gRPC metadata); empty when none.
func RequestID(ctx context.Context) string {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok && id != "" {
		return id
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if ids := md.Get(metadataKey); len(ids) > 0 {
			return callerID(ids[0])
		}
	}
	return ""
}

// callerID is id when a caller's request id can be kept as it is: 1 to
// maxID letters, digits and "-_.:/+=" (a UUID, a trace id, base64). Anything
// else is "" and the request gets an id of ours: a clipped or non-ASCII id
// could not travel on as gRPC metadata (printable ASCII only), and a
// control character would forge log lines.
func callerID(id string) string {
	if id == "" || len(id) > maxID {
		return ""
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '=':
		default:
			return ""
		}
	}
	return id
}

// DialOptions pass the request id of each call's context (the HTTP request
// a gateway is answering) on to the service as x-request-id metadata, so
// that the gateway's access line and the service's share it. A call whose
// outgoing metadata already has one keeps it.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(outgoing(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(outgoing(ctx), desc, cc, method, opts...)
		}),
	}
}

// CallID returns ctx with a request id in its outgoing metadata: the one
// already there, else ctx's own (RequestID), else a fresh one. Set once per
// call, before gRPC's retries, it is the same on every attempt of the call:
// what lets the service record the call's usage events once (package
// upstream's connections use it).
func CallID(ctx context.Context) context.Context {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(metadataKey)) > 0 {
		return ctx
	}
	id := RequestID(ctx)
	if id == "" {
		id = NewRequestID()
	}
	return metadata.AppendToOutgoingContext(ctx, metadataKey, id)
}

// outgoing adds ctx's request id to its outgoing metadata.
func outgoing(ctx context.Context) context.Context {
	id, ok := ctx.Value(requestIDKey{}).(string)
	if !ok || id == "" {
		return ctx
	}
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(metadataKey)) > 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, metadataKey, id)
}

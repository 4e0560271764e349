package server

import (
	"context"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ReasonCatalogLoading is the ErrorInfo reason of the UNAVAILABLE answers
// given while the first catalog loads.
const ReasonCatalogLoading = "CATALOG_LOADING"

// ReadinessInterceptors refuse the skills.v1 calls made before the first
// catalog is loaded: while loading returns a message (why the catalog is not
// there yet, such as "the catalog is loading (cloning …)"), every call
// answers UNAVAILABLE with that message and the reason CATALOG_LOADING,
// rather than an empty catalog. The health and reflection services are
// always answered (the health says NOT_SERVING meanwhile), and so is
// WatchCatalog, whose stream then tells the client when the catalog comes.
func ReadinessInterceptors(loading func() string) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	refuse := func(method string) error {
		if !strings.HasPrefix(method, "/skills.v1.") || method == "/skills.v1.CatalogService/WatchCatalog" {
			return nil
		}
		msg := loading()
		if msg == "" {
			return nil
		}
		st := status.New(codes.Unavailable, msg)
		if withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonCatalogLoading, Domain: ErrorDomain}); err == nil {
			st = withInfo
		}
		return st.Err()
	}
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := refuse(info.FullMethod); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := refuse(info.FullMethod); err != nil {
			return err
		}
		return handler(srv, ss)
	}
	return unary, stream
}

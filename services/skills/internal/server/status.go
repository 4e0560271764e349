package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// ErrorDomain is the domain of every google.rpc.ErrorInfo the service sends.
const ErrorDomain = "skillsd"

var kindCodes = map[failure.Kind]codes.Code{
	failure.Internal:           codes.Internal,
	failure.NotFound:           codes.NotFound,
	failure.InvalidArgument:    codes.InvalidArgument,
	failure.PermissionDenied:   codes.PermissionDenied,
	failure.Unauthenticated:    codes.Unauthenticated,
	failure.FailedPrecondition: codes.FailedPrecondition,
	failure.ResourceExhausted:  codes.ResourceExhausted,
	failure.DeadlineExceeded:   codes.DeadlineExceeded,
	failure.Unavailable:        codes.Unavailable,
	failure.Aborted:            codes.Aborted,
	failure.Unimplemented:      codes.Unimplemented,
}

// toStatus is the one mapping from domain errors to gRPC statuses. Errors of an
// unknown kind become Internal with a generic message; their text goes to the
// log only.
func toStatus(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "the request was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "the request ran out of time")
	}
	var nf *catalog.NotFoundError
	if errors.As(err, &nf) {
		err = notFound(nf)
	}
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Kind == failure.Internal {
		log.ErrorContext(ctx, "internal error", "err", err)
		return status.Error(codes.Internal, "internal error; the server log has the details")
	}
	if fe.Err != nil {
		log.DebugContext(ctx, "request failed", "err", fe.Err, "message", fe.Message)
	}
	code, ok := kindCodes[fe.Kind]
	if !ok {
		code = codes.Unknown
	}
	st := status.New(code, fe.Message)
	if fe.Reason != "" || len(fe.Metadata) > 0 {
		info := &errdetails.ErrorInfo{Reason: fe.Reason, Domain: ErrorDomain, Metadata: fe.Metadata}
		if withInfo, derr := st.WithDetails(info); derr == nil {
			st = withInfo
		}
	}
	return st.Err()
}

// notFound turns a catalog miss into a message that lists close names.
func notFound(nf *catalog.NotFoundError) *failure.Error {
	msg := "skill " + quote(nf.Ref) + " not found"
	if len(nf.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(quoteAll(nf.Suggestions), ", ") + "?"
	}
	e := failure.New(failure.NotFound, "SKILL_NOT_FOUND", "%s", msg).With("skill_path", nf.Ref)
	if len(nf.Suggestions) > 0 {
		e.With("suggestions", strings.Join(nf.Suggestions, ","))
	}
	return e
}

func quote(s string) string { return "\"" + s + "\"" }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

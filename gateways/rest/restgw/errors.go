package restgw

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// errorBody is the JSON of every error answer of the gateway:
//
//	{"error": {"code": "SKILL_NOT_FOUND", "message": "…", "details": {"skill_path": "…", "grpc_code": "NotFound"}}}
//
// code is the google.rpc.ErrorInfo reason when the service gave one, else the
// gRPC code's canonical name (NOT_FOUND, UNIMPLEMENTED, …), or for errors the
// gateway finds itself METHOD_NOT_ALLOWED or PAYLOAD_TOO_LARGE. details holds
// the ErrorInfo metadata and always "grpc_code", the gRPC code in Go spelling.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Details map[string]string `json:"details"`
}

// Messages shown instead of errors whose text may reveal the gateway's
// internals (addresses, Go errors); the original goes to the log.
const (
	internalMessage    = "internal error; the server log has the details"
	unavailableMessage = "the skills service is unavailable; try again later"
)

// bearerChallenge is the WWW-Authenticate header of a 401.
const bearerChallenge = `Bearer realm="skillsd"`

// errorWriter turns errors into errorBody answers: the one place where the
// gateway decides what an error looks like.
type errorWriter struct {
	log *slog.Logger
}

// body describes st. The HTTP status is not its business.
func (e *errorWriter) body(ctx context.Context, st *status.Status) errorBody {
	c := st.Code()
	d := errorDetail{Code: code.Code(c).String(), Message: st.Message(), Details: map[string]string{}}
	var info *errdetails.ErrorInfo
	for _, detail := range st.Details() {
		if i, ok := detail.(*errdetails.ErrorInfo); ok {
			info = i
			break
		}
	}
	if info != nil {
		if info.GetReason() != "" {
			d.Code = info.GetReason()
		}
		maps.Copy(d.Details, info.GetMetadata())
	} else {
		// A status without ErrorInfo in these codes may come from the
		// connection or the gateway rather than from the service's error
		// mapping, and then its text is not written for clients.
		switch c {
		case codes.Unknown, codes.Internal, codes.DataLoss:
			e.log.ErrorContext(ctx, "upstream error", "code", c.String(), "message", st.Message())
			d.Message = internalMessage
		case codes.Unavailable:
			e.log.WarnContext(ctx, "upstream unavailable", "message", st.Message())
			d.Message = unavailableMessage
		}
	}
	d.Details["grpc_code"] = c.String()
	return errorBody{Error: d}
}

// handleError is the mux's runtime.ErrorHandlerFunc. The HTTP status is
// grpc-gateway's HTTPStatusFromCode of the gRPC code, unless the mux itself
// chose one (runtime.HTTPStatusError) or the request body was too large.
func (e *errorWriter) handleError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	if limit, ok := bodyLimitExceeded(r); ok {
		e.write(w, http.StatusRequestEntityTooLarge, payloadTooLarge(limit))
		return
	}
	httpStatus := 0
	var hs *runtime.HTTPStatusError
	if errors.As(err, &hs) {
		httpStatus, err = hs.HTTPStatus, hs.Err
	}
	st, ok := status.FromError(err)
	if !ok {
		// Not a gRPC status: the mux's own checks (a malformed escape in the
		// path comes as HTTPStatusError 400).
		c := codes.Unknown
		if httpStatus == http.StatusBadRequest {
			c = codes.InvalidArgument
		}
		st = status.New(c, err.Error())
	}
	if httpStatus == 0 {
		httpStatus = runtime.HTTPStatusFromCode(st.Code())
	}
	if st.Code() == codes.Unauthenticated {
		w.Header().Set("WWW-Authenticate", bearerChallenge)
	}
	e.write(w, httpStatus, e.body(ctx, st))
}

// handleRoutingError is the mux's runtime.RoutingErrorHandlerFunc: no route
// (404), a route without this method (405) or a malformed path (400).
func (e *errorWriter) handleRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	path := clip(r.URL.Path, 200)
	var d errorDetail
	switch httpStatus {
	case http.StatusNotFound:
		d = errorDetail{Code: "NOT_FOUND", Message: "no route for " + r.Method + " " + path, Details: map[string]string{"grpc_code": codes.NotFound.String()}}
	case http.StatusMethodNotAllowed:
		d = errorDetail{Code: "METHOD_NOT_ALLOWED", Message: "method " + r.Method + " is not allowed on " + path, Details: map[string]string{"grpc_code": codes.Unimplemented.String()}}
	case http.StatusBadRequest:
		d = errorDetail{Code: "INVALID_ARGUMENT", Message: "malformed request path " + strconv.Quote(path), Details: map[string]string{"grpc_code": codes.InvalidArgument.String()}}
	default:
		httpStatus = http.StatusInternalServerError
		d = errorDetail{Code: "INTERNAL", Message: internalMessage, Details: map[string]string{"grpc_code": codes.Internal.String()}}
	}
	e.write(w, httpStatus, errorBody{Error: d})
}

// invalid is the answer to a request the gateway refuses before routing it.
func invalid(message string) errorBody {
	return errorBody{Error: errorDetail{
		Code:    "INVALID_ARGUMENT",
		Message: message,
		Details: map[string]string{"grpc_code": codes.InvalidArgument.String()},
	}}
}

func payloadTooLarge(limit int64) errorBody {
	return errorBody{Error: errorDetail{
		Code:    "PAYLOAD_TOO_LARGE",
		Message: "the request body is larger than " + strconv.FormatInt(limit, 10) + " bytes",
		Details: map[string]string{"limit_bytes": strconv.FormatInt(limit, 10), "grpc_code": codes.ResourceExhausted.String()},
	}}
}

func internalError() errorBody {
	return errorBody{Error: errorDetail{
		Code:    "INTERNAL",
		Message: internalMessage,
		Details: map[string]string{"grpc_code": codes.Internal.String()},
	}}
}

// write sends body with httpStatus.
func (e *errorWriter) write(w http.ResponseWriter, httpStatus int, body errorBody) {
	buf, err := json.Marshal(body)
	if err != nil { // a struct of strings always marshals
		e.log.Error("marshalling an error answer", "err", err)
		buf = []byte(`{"error":{"code":"INTERNAL","message":"internal error","details":{}}}`)
	}
	h := w.Header()
	// A stream that fails before its first message has already announced
	// a chunked body.
	h.Del("Trailer")
	h.Del("Transfer-Encoding")
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(httpStatus)
	_, _ = w.Write(append(buf, '\n'))
}

// marshaler is grpc-gateway's JSONPb, except that the error chunk of a
// server stream that fails ({"error": google.rpc.Status}) is written in the
// gateway's error shape too.
type marshaler struct {
	*runtime.JSONPb
	errors *errorWriter
}

// Marshal implements runtime.Marshaler.
func (m *marshaler) Marshal(v any) ([]byte, error) {
	if chunk, ok := v.(map[string]proto.Message); ok && len(chunk) == 1 {
		if st, ok := chunk["error"].(*spb.Status); ok {
			return json.Marshal(m.errors.body(context.Background(), status.FromProto(st)))
		}
	}
	return m.JSONPb.Marshal(v)
}

// clip shortens s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

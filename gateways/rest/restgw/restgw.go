// Package restgw is the REST/JSON gateway of skillsd: an http.Handler that
// translates the HTTP routes of gateways/rest/http_rules.yaml into calls on a
// skills.v1 gRPC connection (grpc-gateway), and adds GET /healthz (liveness),
// GET /readyz (readiness; both in package healthz's shape), GET
// /openapi.json (OpenAPI 3, generated from the contract), the web console at
// /ui/ (Options.UI), one JSON error shape, a request body limit and panic
// recovery. CORS wraps it (and any authentication) from the outside.
//
// It owns no behaviour of its own: every answer comes from the service over a
// real gRPC connection (so the service's interceptors run), and errors are mapped
// exactly once, gRPC code to HTTP status by grpc-gateway's HTTPStatusFromCode.
// It does not start a service or listen on a port; cmd/skills-rest does.
//
// Skill paths hold slashes: GET /v1/skills/ui/react/auth reaches GetSkill with
// skill_path "ui/react/auth". Path parameters are unescaped exactly once, and an
// escaped slash (%2F or %2f) is the same as a plain one, so
// /v1/skills/ui%2Freact%2Fauth names the same skill; a literal '%' in a path is
// sent as %25.
package restgw

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	gw "github.com/skillsd/skillsd/gateways/rest/internal/gen/skills/v1"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/healthz"
)

// DefaultMaxBodyBytes is the request body limit when Options.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 1 << 20

// DefaultHealthTimeout bounds the upstream health check of the probes when
// Options.HealthTimeout is 0.
const DefaultHealthTimeout = 2 * time.Second

// Options configures the gateway. The zero value is ready to use.
type Options struct {
	// Logger receives one debug line per request and the details of errors
	// that are not shown to clients. Nil discards everything.
	Logger *slog.Logger
	// MaxBodyBytes is the largest request body accepted; a larger one is
	// refused with 413. Zero means DefaultMaxBodyBytes; negative is an error.
	MaxBodyBytes int64
	// HealthTimeout bounds the upstream gRPC health check behind GET /healthz
	// and GET /readyz.
	// Zero means DefaultHealthTimeout.
	HealthTimeout time.Duration
	// UI holds the web console's built files (index.html and assets/),
	// served at /ui/ with GET / and GET /ui redirecting there; package
	// gateways/rest/ui has them. Nil serves no console.
	UI fs.FS
}

// outgoingHeader is the one gRPC response header passed on to HTTP
// clients: the request id.
func outgoingHeader(key string) (string, bool) {
	if strings.EqualFold(key, "x-request-id") {
		return "X-Request-Id", true
	}
	return "", false
}

// New returns the gateway's handler. Every skills.v1 service is served over
// conn, which the caller owns and closes after the handler is no longer used.
// ctx is only used while registering the routes.
func New(ctx context.Context, conn *grpc.ClientConn, opts Options) (http.Handler, error) {
	if conn == nil {
		return nil, errors.New("restgw: nil gRPC connection")
	}
	if opts.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("restgw: negative MaxBodyBytes %d", opts.MaxBodyBytes)
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.HealthTimeout <= 0 {
		opts.HealthTimeout = DefaultHealthTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &errorWriter{log: log}

	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &marshaler{
			JSONPb: &runtime.JSONPb{
				MarshalOptions: protojson.MarshalOptions{
					UseProtoNames:   true,
					EmitUnpopulated: true,
				},
				// Unknown fields are refused, never dropped: checkBody names
				// an unknown top-level field with the expected ones; the
				// decoder refuses one inside a value.
				UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
			},
			errors: e,
		}),
		runtime.WithErrorHandler(e.handleError),
		runtime.WithRoutingErrorHandler(e.handleRoutingError),
		runtime.WithUnescapingMode(runtime.UnescapingModeAllCharacters),
		runtime.WithDisableHTTPMethodOverride(),
		// The service's gRPC metadata stays inside (grpc-gateway would send
		// it as Grpc-Metadata-* headers and trailers), but for the request
		// id, which callers quote.
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithOutgoingTrailerMatcher(func(string) (string, bool) { return "", false }),
	)

	// Always the …HandlerClient registrations over the generated gRPC
	// clients, never …HandlerServer: calls must cross the connection so that
	// the service's interceptors (auth, validation, logging) run.
	registrations := []struct {
		service  string
		register func(context.Context, *runtime.ServeMux, grpc.ClientConnInterface) error
	}{
		{"CatalogService", overClient(gw.RegisterCatalogServiceHandlerClient, skillsv1.NewCatalogServiceClient)},
		{"RoutingService", overClient(gw.RegisterRoutingServiceHandlerClient, skillsv1.NewRoutingServiceClient)},
		{"FileService", overClient(gw.RegisterFileServiceHandlerClient, skillsv1.NewFileServiceClient)},
		{"ScriptService", overClient(gw.RegisterScriptServiceHandlerClient, skillsv1.NewScriptServiceClient)},
		{"UsageService", overClient(gw.RegisterUsageServiceHandlerClient, skillsv1.NewUsageServiceClient)},
		{"ContentService", overClient(gw.RegisterContentServiceHandlerClient, skillsv1.NewContentServiceClient)},
	}
	for _, r := range registrations {
		if err := r.register(ctx, mux, conn); err != nil {
			return nil, fmt.Errorf("restgw: registering %s: %w", r.service, err)
		}
	}

	// Routes added after the services are matched before them.
	extra := []struct {
		method, path string
		h            runtime.HandlerFunc
	}{
		{http.MethodGet, healthz.LivePath, probe(healthz.Live(conn, opts.HealthTimeout, log))},
		{http.MethodGet, healthz.ReadyPath, probe(healthz.Ready(conn, opts.HealthTimeout, log))},
		{http.MethodGet, "/openapi.json", serveOpenAPI},
	}
	for _, x := range extra {
		if err := mux.HandlePath(x.method, x.path, x.h); err != nil {
			return nil, fmt.Errorf("restgw: route %s %s: %w", x.method, x.path, err)
		}
	}

	h := &handler{next: conditional(mux), errors: e, maxBody: opts.MaxBodyBytes, log: log}
	if opts.UI != nil {
		ui, err := newUIHandler(opts.UI, e)
		if err != nil {
			return nil, err
		}
		h.ui = ui
	}
	return h, nil
}

// overClient is a service's …HandlerClient registration over its generated
// gRPC client on the connection.
func overClient[C any](register func(context.Context, *runtime.ServeMux, C) error, newClient func(grpc.ClientConnInterface) C) func(context.Context, *runtime.ServeMux, grpc.ClientConnInterface) error {
	return func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return register(ctx, mux, newClient(conn))
	}
}

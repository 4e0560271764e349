// Package upstream owns how a client reaches skillsd over the network: it
// turns the value of a --server flag (or the target of the Go client) into
// a gRPC connection, so that skills-mcp, skills-rest and the Go client
// accept the same addresses and spread their calls over the replicas the
// same way.
//
// A value is one of:
//
//   - host:port (or any other gRPC target, such as unix:///path): dialed
//     exactly as grpc.NewClient dials it, with no service config of ours;
//   - dns:///host:port: every address the name resolves to is a replica;
//   - a comma-separated list, a:1,b:2,c:3: one replica per element.
//
// Over several replicas (the last two forms) the connection balances calls
// round-robin over the replicas whose gRPC health check (the overall
// server, "", which skillsd reports SERVING once its catalog is loaded)
// answers SERVING, and retries the idempotent reads (ReadMethods) that
// fail with UNAVAILABLE on another replica, a few times with a short
// backoff. Writes and the RunScript/RunCommand calls are never retried;
// neither is the WatchCatalog stream.
//
// The package does not own credentials (TLS, tokens): callers pass them as
// dial options.
package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/health" // client-side health checking
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/resolver"

	"github.com/skillsd/skillsd/services/skills/accesslog"
)

// ListScheme is the resolver scheme of a comma-separated list of replicas
// (the target Dial makes of a:1,b:2). It is registered on each connection
// only (grpc.WithResolvers), never globally.
const ListScheme = "skillsd-list"

// ReadMethods are the full names of the calls retried on UNAVAILABLE over
// several replicas: unary reads, which a replica may answer as well as
// another.
var ReadMethods = []string{
	skillsv1.CatalogService_ListSkills_FullMethodName,
	skillsv1.CatalogService_GetSkill_FullMethodName,
	skillsv1.CatalogService_GetSkillTree_FullMethodName,
	skillsv1.CatalogService_ListDiagnostics_FullMethodName,
	skillsv1.CatalogService_GetCatalogStatus_FullMethodName,
	skillsv1.RoutingService_SearchSkills_FullMethodName,
	skillsv1.RoutingService_MatchSkill_FullMethodName,
	skillsv1.FileService_ReadSkillFile_FullMethodName,
	skillsv1.ContentService_ListAgents_FullMethodName,
	skillsv1.ContentService_GetAgent_FullMethodName,
	skillsv1.ContentService_ListDocs_FullMethodName,
	skillsv1.ContentService_GetDoc_FullMethodName,
	skillsv1.UsageService_GetUsageStats_FullMethodName,
	// The gateways' probes (package healthz): a replica stopping under a
	// probe does not make the gateway look down.
	healthpb.Health_Check_FullMethodName,
}

// MaxAttempts bounds the tries of a read (the first and the retries).
const MaxAttempts = 4

// Replicas reports whether server names several replicas (a list, or a
// dns:/// name), which Dial balances over.
func Replicas(server string) bool {
	return strings.Contains(server, ",") || strings.HasPrefix(server, "dns:")
}

// Parse checks server and returns the addresses of a comma-separated list
// (nil for a single target, which gRPC parses itself). An empty element or
// an element that is not host:port with a port number is an error that
// quotes the element.
func Parse(server string) ([]string, error) {
	server = strings.TrimSpace(server)
	if server == "" {
		return nil, fmt.Errorf("no address")
	}
	if !strings.Contains(server, ",") {
		return nil, nil
	}
	parts := strings.Split(server, ",")
	addrs := make([]string, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("%q: address %d of the list is empty", server, i+1)
		}
		host, port, err := net.SplitHostPort(p)
		if err != nil {
			return nil, fmt.Errorf("%q: address %d, %q, is not host:port", server, i+1, p)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%q: address %d, %q, has no valid port (1-65535)", server, i+1, p)
		}
		if host == "" {
			return nil, fmt.Errorf("%q: address %d, %q, has no host", server, i+1, p)
		}
		addrs = append(addrs, p)
	}
	return addrs, nil
}

// Dial returns a connection to the skillsd replicas at server (see the
// package comment) with opts, which carry the credentials. Like
// grpc.NewClient it does not connect: an unreachable replica shows in the
// calls. A malformed list is an error (the caller names its flag).
func Dial(server string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	addrs, err := Parse(server)
	if err != nil {
		return nil, err
	}
	target := strings.TrimSpace(server)
	var own []grpc.DialOption
	if addrs != nil {
		list := make([]resolver.Address, len(addrs))
		for i, a := range addrs {
			host, _, _ := net.SplitHostPort(a)
			// ServerName: TLS checks each replica's certificate against
			// its own host, not against the whole list.
			list[i] = resolver.Address{Addr: a, ServerName: host}
		}
		target = ListScheme + ":///" + strings.Join(addrs, ",")
		own = append(own, grpc.WithResolvers(static(list)))
	}
	if Replicas(target) {
		// Ours, not one a DNS TXT record might carry.
		own = append(own, grpc.WithDefaultServiceConfig(ServiceConfig()), grpc.WithDisableServiceConfig())
		// Each call carries one request id on all its attempts: a read
		// retried on another replica after the first died before
		// answering records its usage event once (usage.KeyedID).
		own = append(own, grpc.WithChainUnaryInterceptor(callID))
	}
	conn, err := grpc.NewClient(target, append(own, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", server, err)
	}
	return conn, nil
}

// ServiceConfig is the gRPC service config of a connection to several
// replicas: round-robin over the healthy ones, reads retried on
// UNAVAILABLE.
func ServiceConfig() string {
	type name struct {
		Service string `json:"service"`
		Method  string `json:"method"`
	}
	names := make([]name, len(ReadMethods))
	for i, m := range ReadMethods {
		svc, method, _ := strings.Cut(strings.TrimPrefix(m, "/"), "/")
		names[i] = name{svc, method}
	}
	cfg := map[string]any{
		"loadBalancingConfig": []any{map[string]any{"round_robin": map[string]any{}}},
		"healthCheckConfig":   map[string]any{"serviceName": ""},
		"methodConfig": []any{map[string]any{
			"name": names,
			"retryPolicy": map[string]any{
				"maxAttempts":          MaxAttempts,
				"initialBackoff":       "0.05s",
				"maxBackoff":           "0.5s",
				"backoffMultiplier":    2,
				"retryableStatusCodes": []string{"UNAVAILABLE"},
			},
		}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(err) // a constant structure
	}
	return string(b)
}

// callID gives a call a request id before gRPC's retries (accesslog.CallID).
func callID(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	return invoker(accesslog.CallID(ctx), method, req, reply, cc, opts...)
}

// static resolves a list to its addresses, once.
type static []resolver.Address

func (s static) Scheme() string { return ListScheme }

func (s static) Build(_ resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) (resolver.Resolver, error) {
	eps := make([]resolver.Endpoint, len(s))
	for i, a := range s {
		eps[i] = resolver.Endpoint{Addresses: []resolver.Address{a}}
	}
	if err := cc.UpdateState(resolver.State{Addresses: s, Endpoints: eps}); err != nil {
		return nil, err
	}
	return nop{}, nil
}

type nop struct{}

func (nop) ResolveNow(resolver.ResolveNowOptions) {}
func (nop) Close()                                {}

package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/accesslog"
)

// requestIDMiddleware gives each MCP request over HTTP the request id of
// the HTTP request that carried it (X-Request-Id, the caller's or the one
// accesslog.HTTP made), so that the calls to the service pass it on.
func requestIDMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			if id := extra.Header.Get(accesslog.RequestIDHeader); id != "" {
				ctx = accesslog.WithRequestID(ctx, id)
			}
		}
		return next(ctx, method, req)
	}
}

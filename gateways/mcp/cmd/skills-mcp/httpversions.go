package main

import (
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernProtocol is the first MCP protocol version whose requests carry
// their version and need no session (SEP-2575): the go-sdk serves it over
// HTTP only from a stateless handler.
const modernProtocol = "2026-07-28"

// streamableHandler serves Streamable HTTP for every protocol version: the
// SDK's stateful handler for the versions before 2026-07-28 (sessions,
// server-sent events, requests to the client), and its stateless handler for
// requests that name 2026-07-28 or later in their MCP-Protocol-Version
// header (server/discover and the stateless requests after it). Both serve
// the same server, with DNS-rebinding protection on.
func streamableHandler(server *mcp.Server, log *slog.Logger) http.Handler {
	get := func(*http.Request) *mcp.Server { return server }
	legacy := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: log})
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: log, Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("MCP-Protocol-Version"); v >= modernProtocol && r.Header.Get("Mcp-Session-Id") == "" {
			modern.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	})
}

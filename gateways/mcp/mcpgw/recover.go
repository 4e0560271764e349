package mcpgw

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// internalErrorText is all a client learns of a panic in a handler.
const internalErrorText = "internal error"

// guardHandlers is the outermost receiving middleware of the server: it
// keeps one bad request from ending the connection (recoverPanics,
// validErrorData).
func guardHandlers(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return recoverPanics(logger)(validErrorData(next))
	}
}

// validErrorData makes the data of JSON-RPC errors valid JSON. The go-sdk
// (v1.8.0) builds mcp.ResourceNotFoundError's data with %q, which is not JSON
// for a URI holding a control character, invalid UTF-8 or some other runes
// (resources/read of "skill://pdf/\x01" gives {"uri":"skill://pdf/\x01"});
// the SDK then fails to marshal the answer and closes the connection, which
// ends skills-mcp in stdio mode. Such data is rebuilt: the URI, JSON-encoded,
// for resources/read, otherwise left out.
func validErrorData(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if err == nil || !errors.As(err, &je) || len(je.Data) == 0 || json.Valid(je.Data) {
			return res, err
		}
		fixed := *je
		fixed.Data = nil
		if rr, ok := req.(*mcp.ReadResourceRequest); ok && rr.Params != nil {
			fixed.Data, _ = json.Marshal(map[string]string{"uri": rr.Params.URI})
		}
		return res, &fixed
	}
}

// recoverPanics turns panics of handlers into errors: the go-sdk (v1.8.0)
// does not recover panics in handlers, and a panic on the goroutine that
// serves a request would end the whole process (the stdio server with every
// session). It turns a panic into an isError tool result
// "internal error" for tools/call and a JSON-RPC internal error for any other
// method (resources, prompts, completion, the skills extension), and logs the
// panic with its stack at error level (skills-mcp logs to stderr). Handlers
// run synchronously inside the middleware chain, so this covers them all;
// goroutines that handlers start must recover on their own.
func recoverPanics(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				attrs := []any{"method", method, "panic", p, "stack", string(debug.Stack())}
				if ctr, ok := req.(*mcp.CallToolRequest); ok && ctr.Params != nil {
					attrs = append(attrs, "tool", ctr.Params.Name)
				}
				logger.ErrorContext(ctx, "mcpgw: handler panicked", attrs...)
				if method == "tools/call" {
					res, err = &mcp.CallToolResult{
						IsError: true,
						Content: []mcp.Content{&mcp.TextContent{Text: internalErrorText}},
					}, nil
					return
				}
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: internalErrorText}
			}()
			return next(ctx, method, req)
		}
	}
}

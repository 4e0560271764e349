package mcpgw

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainLines are lines clients send, each of which decodeLine must take.
var plainLines = []string{
	initLine("1", "2025-11-25"),
	initialized,
	callLine("2", "echo", "hi"),
	callLine(`"s-3"`, "typed", "x"),
	`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":-9,"method":"ping","params":null}`,
	`{"id":123456789012345,"method":"tools/call","jsonrpc":"2.0","params":{"name":"search_skills","arguments":{"query":"été \u00e9 😀"}}}`,
	`{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///w"}]}}`,
	`{"jsonrpc":"2.0","id":"r1","result":{}}`,
	` {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}`,
}

// sdkLines are objects decodeLine leaves to jsonrpc.DecodeMessage.
var sdkLines = []string{
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1234567890123456,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","method":"x","result":1}`,
	`{"jsonrpc":"2.0","result":1}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}",
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
}

// TestDecodeLine checks that decodeLine takes the plain lines, giving the
// SDK's own decoding of them, and leaves the others.
func TestDecodeLine(t *testing.T) {
	for _, l := range plainLines {
		got, ok := decodeLine([]byte(strings.TrimSpace(l)))
		if !ok {
			t.Errorf("decodeLine left %.80s to the SDK", l)
			continue
		}
		want, err := jsonrpc.DecodeMessage([]byte(l))
		if err != nil {
			t.Fatalf("the SDK refuses %.80s: %v", l, err)
		}
		if diff := cmp.Diff(describe(want), describe(got)); diff != "" {
			t.Errorf("%.80s: decoded unlike the SDK (-sdk +ours):\n%s", l, diff)
		}
	}
	for _, l := range sdkLines {
		if _, ok := decodeLine([]byte(l)); ok {
			t.Errorf("decodeLine took %.80s", l)
		}
	}
}

// describe is what a decoded message says, comparable.
func describe(m jsonrpc.Message) map[string]any {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return map[string]any{"request": true, "id": m.ID.Raw(), "method": m.Method, "params": string(m.Params), "params nil": m.Params == nil}
	case *jsonrpc.Response:
		return map[string]any{"response": true, "id": m.ID.Raw(), "result": string(m.Result), "result nil": m.Result == nil, "error": m.Error}
	}
	return map[string]any{"type": m}
}

// FuzzDecodeLineAsSDK checks, for any line, that decodeLine takes it only
// when the SDK decodes it to the same message.
func FuzzDecodeLineAsSDK(f *testing.F) {
	for _, l := range append(append([]string{}, plainLines...), sdkLines...) {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"id":"x","method":"a"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":-0,"method":"a"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"","method":""}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := decodeLine(line)
		if !ok {
			return
		}
		want, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("decodeLine took %q, which the SDK refuses: %v", line, err)
		}
		if diff := cmp.Diff(describe(want), describe(got)); diff != "" {
			t.Fatalf("%q: decoded unlike the SDK (-sdk +ours):\n%s", line, diff)
		}
	})
}

// TestLineReaderHandsOver checks that the input after the first line that
// is not one object is read by the SDK's connection, whole: a message over
// several lines, then plain lines again.
func TestLineReaderHandsOver(t *testing.T) {
	input := callLine("1", "echo", "a") + "\n\r\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\n\"method\":\"ping\"}\n" +
		callLine("3", "echo", "c") + "\n"
	conn, err := StdioTransport(strings.NewReader(input), io.Discard).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ids []any
	for {
		msg, err := conn.Read(t.Context())
		if err != nil {
			if err != io.EOF {
				t.Fatalf("after %v: %v", ids, err)
			}
			break
		}
		ids = append(ids, msg.(*jsonrpc.Request).ID.Raw())
	}
	if diff := cmp.Diff([]any{int64(1), int64(2), int64(3)}, ids); diff != "" {
		t.Errorf("ids read (-want +got):\n%s", diff)
	}
	if !conn.(*stdioConn).sdkReads.Load() {
		t.Error("the message over two lines was not read by the SDK's connection")
	}
}

// TestLineReaderClose checks that Close ends a Read waiting for input
// that never comes, as the SDK's connection does.
func TestLineReaderClose(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	conn, err := StdioTransport(inR, io.Discard).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(t.Context())
		done <- err
	}()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != io.EOF {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
	if _, err := conn.Read(t.Context()); err == nil {
		t.Error("a Read after Close succeeded")
	}
}

// BenchmarkStdioRead reads search_skills calls through the SDK's stdio
// connection and through StdioTransport's.
func BenchmarkStdioRead(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"extract tables from a pdf"}}}` + "\n")
	for name, transport := range map[string]func(io.Reader, io.Writer) mcp.Transport{"sdk": sdkStdio, "direct": StdioTransport} {
		b.Run(name, func(b *testing.B) {
			input := bytes.Repeat(call, b.N+1)
			conn, err := transport(bytes.NewReader(input), io.Discard).Connect(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := conn.Read(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

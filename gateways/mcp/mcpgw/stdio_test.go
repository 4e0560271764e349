package mcpgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkStdio is the SDK's own stdio transport over in and out, the reference
// StdioTransport must behave as.
func sdkStdio(in io.Reader, out io.Writer) mcp.Transport {
	return &mcp.IOTransport{Reader: io.NopCloser(in), Writer: writeNopCloser{out}}
}

type writeNopCloser struct{ io.Writer }

func (writeNopCloser) Close() error { return nil }

// echoText is the long text echo's answers carry: quotes, escapes, a
// newline, HTML and runes beyond ASCII, so that any re-encoding shows.
var echoText = strings.Repeat("line \"one\"\n\t<b>&</b> \u2028 é 😀 ", 200)

// transportServer is a server with a text tool (echo) and a typed one
// (typed), answering as skills-mcp's tools do (plainToolResults).
func transportServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	type in struct {
		Say string `json:"say,omitempty"`
	}
	type out struct {
		Said string `json:"said"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if a.Say == "fail" {
			return nil, nil, fmt.Errorf("asked to fail")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Say + echoText}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
		return nil, out{Said: a.Say + echoText}, nil
	})
	s.AddReceivingMiddleware(plainToolResults)
	return s
}

// step is part of a client's script: lines to write, then the number of
// answers in all to wait for before the next step (-1: until the server
// stops).
type step struct {
	lines []string
	await int
}

// runScript serves transportServer over transport and plays the client's
// script, then closes the input. It returns each line written by the
// server, decoded, sorted by id, and the server's Run error.
func runScript(t *testing.T, transport func(io.Reader, io.Writer) mcp.Transport, script []step) ([]any, error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	runErr := make(chan error, 1)
	go func() {
		err := transportServer().Run(ctx, transport(inR, outW))
		outW.Close()
		runErr <- err
	}()
	var got []any
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<24)
	for _, st := range script {
		for _, l := range st.lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				t.Fatalf("writing %.60s: %v", l, err)
			}
		}
		for (st.await < 0 || len(got) < st.await) && sc.Scan() {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("the server wrote a line that is not JSON: %v: %.200s", err, sc.Bytes())
			}
			got = append(got, v)
		}
	}
	inW.Close()
	for sc.Scan() {
		t.Errorf("an answer after the script: %.200s", sc.Bytes())
	}
	err := <-runErr
	slices.SortFunc(got, func(a, b any) int { return strings.Compare(fmt.Sprint(idOf(a)), fmt.Sprint(idOf(b))) })
	return got, err
}

// idOf is the id of a decoded answer, or of a batch's first answer.
func idOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return v["id"]
	case []any:
		if len(v) > 0 {
			return idOf(v[0])
		}
	}
	return nil
}

func initLine(id, version string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func callLine(id, tool, say string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"say":"` + say + `"}}}`
}

// TestStdioTransportAsSDK runs client scripts against the SDK's stdio
// transport and StdioTransport: the answers must decode alike.
func TestStdioTransportAsSDK(t *testing.T) {
	initThen := func(version string, then ...step) []step {
		return append([]step{{[]string{initLine("1", version)}, 1}, {[]string{initialized}, 1}}, then...)
	}
	scripts := []struct {
		name   string
		script []step
		ends   bool // the server stops (the client broke the protocol)
	}{
		{"calls", initThen("2025-11-25", step{[]string{
			callLine("2", "echo", "hi"), callLine(`"s-3"`, "echo", `\"quoted\"`), callLine("4", "typed", "t"),
			callLine("5", "echo", "fail"), callLine("6", "nosuch", ""),
			`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":8,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":9,"method":"no/such"}`,
		}, 9}), false},
		{"newest protocol", initThen("2026-07-28", step{[]string{callLine("2", "echo", "x"), callLine("3", "typed", "y")}, 3}), false},
		{"batch under 2025-03-26", initThen("2025-03-26",
			step{[]string{`[` + callLine("2", "echo", "a") + `,` + callLine("3", "typed", "b") + `]`}, 2},
			step{[]string{callLine("4", "echo", "after the batch")}, 3}), false},
		{"batch before initialize", []step{
			{[]string{`[` + initLine("1", "2025-03-26") + `]`}, 1},
			{[]string{initialized, callLine("2", "echo", "a")}, 2},
		}, false},
		{"batch under 2025-11-25", initThen("2025-11-25",
			step{[]string{callLine("2", "echo", "a")}, 2},
			step{[]string{` [` + callLine("3", "echo", "b") + `]`}, -1}), true},
		// Arrays and brackets in strings inside messages are no batch; a
		// batch after them still is.
		{"arrays inside messages", initThen("2025-11-25",
			step{[]string{"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":\n[\n]}}"}, 2},
			step{[]string{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"say":"[\\\"]{\\\\"}}}`}, 3},
			step{[]string{`[` + callLine("4", "echo", "b") + `]`}, -1}), true},
		// Lines the transport decodes itself, lines it leaves to
		// jsonrpc.DecodeMessage, and a message over several lines, after
		// which the SDK's connection reads the rest.
		{"plain, odd and split lines", initThen("2025-11-25",
			step{[]string{`{"jsonrpc":"2.0","id":"r","result":{}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`,
				"\r", " " + callLine("2", "echo", "crlf") + "\r", `{"jsonrpc":"2.0","id":3.0,"method":"ping"}`}, 3},
			step{[]string{"{\"jsonrpc\":\"2.0\",\"id\":4,\n\"method\":\"ping\"}", callLine("5", "typed", "after")}, 5}), false},
		{"bad version tag", initThen("2025-11-25",
			step{[]string{callLine("2", "echo", "a")}, 2},
			step{[]string{`{"jsonrpc":"1.0","id":3,"method":"ping"}`}, -1}), true},
		{"trailing data", initThen("2025-11-25",
			step{[]string{callLine("2", "echo", "a") + ` x`}, -1}), true},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			want, wantErr := runScript(t, sdkStdio, sc.script)
			got, gotErr := runScript(t, StdioTransport, sc.script)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answers differ from the SDK's transport (-sdk +ours):\n%s", diff)
			}
			if (wantErr != nil) != (gotErr != nil) || sc.ends != (gotErr != nil) {
				t.Errorf("Run ended with %v, the SDK's with %v; want an error: %v", gotErr, wantErr, sc.ends)
			}
			if len(got) == 0 {
				t.Error("no answers")
			}
		})
	}
}

// connectInitialized connects transport's server side to out, reads an
// initialize call and answers it with protocol 2025-11-25.
func connectInitialized(tb testing.TB, transport func(io.Reader, io.Writer) mcp.Transport, out io.Writer) mcp.Connection {
	tb.Helper()
	conn, err := transport(strings.NewReader(initLine("1", "2025-11-25")+"\n"), out).Connect(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	msg, err := conn.Read(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	if err := conn.Write(tb.Context(), &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{"protocolVersion":"2025-11-25"}`)}); err != nil {
		tb.Fatal(err)
	}
	return conn
}

// TestStdioTransportWritesDirect checks that, after an initialize that
// agreed on a protocol without batches, an answer is written by
// StdioTransport itself (not re-encoded by the SDK's connection): its
// result's bytes are the SDK's marshaling of the result, unchanged, even
// where the SDK's writer would have compacted them.
func TestStdioTransportWritesDirect(t *testing.T) {
	var out strings.Builder
	conn := connectInitialized(t, StdioTransport, &out)
	defer conn.Close()
	id, _ := jsonrpc.MakeID("x")
	// Not compact: the SDK's writer would remove the blanks.
	if err := conn.Write(t.Context(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"a": 1}`)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || lines[1] != `{"jsonrpc":"2.0","id":"x","result":{"a": 1}}` {
		t.Errorf("wrote %q, want the second answer written directly", lines)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(t.Context(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}); err == nil {
		t.Error("a write after Close succeeded")
	}
}

// BenchmarkStdioWrite writes a search_skills-sized answer through the SDK's
// stdio connection and through StdioTransport's.
func BenchmarkStdioWrite(b *testing.B) {
	text, err := json.Marshal(map[string]string{"text": strings.Repeat("Converts documents into \"HTML\". ", 240)})
	if err != nil {
		b.Fatal(err)
	}
	result, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}, "structuredContent": json.RawMessage(text)})
	if err != nil {
		b.Fatal(err)
	}
	id, _ := jsonrpc.MakeID(float64(7))
	resp := &jsonrpc.Response{ID: id, Result: result}
	for name, transport := range map[string]func(io.Reader, io.Writer) mcp.Transport{"sdk": sdkStdio, "direct": StdioTransport} {
		b.Run(name, func(b *testing.B) {
			conn := connectInitialized(b, transport, io.Discard)
			defer conn.Close()
			for b.Loop() {
				if err := conn.Write(b.Context(), resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFrameWatchRefusesAfterMessages checks that a refused batch ends the
// input after the messages before it, which are read first.
func TestFrameWatchRefusesAfterMessages(t *testing.T) {
	first := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":["[",{"b":"\\\"["}]}}` + "\n"
	f := &frameWatch{r: strings.NewReader(first + ` [{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n")}
	f.refuse.Store(true)
	got, err := io.ReadAll(f)
	if string(got) != first+" " || err != errBatch {
		t.Errorf("read %q, %v; want %q, then %v", got, err, first+" ", errBatch)
	}
	if f.batch.Load() {
		t.Error("a refused batch was noted as taken")
	}
	f = &frameWatch{r: strings.NewReader(first + `[` + first + `]`)}
	if got, err := io.ReadAll(f); err != nil || !f.batch.Load() || len(got) != 2*len(first)+2 {
		t.Errorf("without refusal: read %d bytes, %v, batch %v; want all, a batch", len(got), err, f.batch.Load())
	}
	f = &frameWatch{r: strings.NewReader(first + first)}
	if _, err := io.ReadAll(f); err != nil || f.batch.Load() {
		t.Errorf("messages alone: %v, batch %v; want no batch", err, f.batch.Load())
	}
}

// FuzzStdioTransport serves the test server over StdioTransport on any
// input: the server must stop at the input's end, and write only lines of
// JSON.
func FuzzStdioTransport(f *testing.F) {
	f.Add([]byte(initLine("1", "2025-11-25") + "\n" + initialized + "\n" + callLine("2", "echo", "x") + "\n"))
	f.Add([]byte(initLine("1", "2025-11-25") + "\n[" + callLine("2", "echo", "x") + "]\n"))
	f.Add([]byte("[" + initLine("1", "2025-03-26") + "," + callLine("2", "typed", "y") + "]\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"[","method":"ping","params":{"a":"\"]["}}` + "\n[]\n"))
	f.Add([]byte("\xff{[\"\\"))
	f.Fuzz(func(t *testing.T, input []byte) {
		var out strings.Builder
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		w := &lockedWriter{w: &out} // the test's own lock around the builder
		done := make(chan error, 1)
		go func() { done <- transportServer().Run(ctx, StdioTransport(bytes.NewReader(input), w)) }()
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatalf("the server did not stop at the end of %q", input)
		}
		w.mu.Lock()
		written := out.String()
		w.mu.Unlock()
		for _, line := range strings.Split(strings.TrimSuffix(written, "\n"), "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				t.Fatalf("input %q: the server wrote %q, not JSON", input, line)
			}
		}
	})
}

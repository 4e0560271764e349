package mcpgw

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineBufferBytes is the longest line lineReader decodes itself; a longer
// one, and everything after it, is the SDK's to read (and to refuse past
// its own limit, mcp.DefaultMaxLineLength).
const lineBufferBytes = 64 << 10

// lineReader reads the client's messages for StdioTransport, one line at a
// time, as long as each line holds one JSON object: the form MCP's stdio
// transport gives every message. The SDK's reader decodes such a line three
// times (as a batch first, then as a message, then its method), each time
// with a decoder that allocates a 32 KiB buffer: some 96 KiB of garbage for
// a 150-byte search_skills call, half of what a call allocated in all.
//
// A line decodes here either exactly as the SDK would decode it
// (decodeLine, checked against jsonrpc.DecodeMessage by
// FuzzDecodeLineAsSDK), or, for an object it does not take, with
// jsonrpc.DecodeMessage itself: the SDK's reader gives an object the same
// message or error. From the first line that is no one object (a batch, a
// message over several lines, text that is not JSON, a line past
// lineBufferBytes, a last line without its newline), the rest of the input
// goes unread to the SDK's connection, through out's hand-over: batches,
// their refusal (frameWatch) and every error are then the SDK's, as before.
type lineReader struct {
	r   *bufio.Reader
	sdk *io.PipeWriter
	// out gives Read each message (or error), then the hand-over.
	out       chan lineMsg
	closed    chan struct{}
	closeOnce sync.Once
}

// lineMsg is a message read, an error to return, or the hand-over to the
// SDK's connection.
type lineMsg struct {
	msg      jsonrpc.Message
	err      error
	handOver bool
}

func newLineReader(in io.Reader, sdk *io.PipeWriter) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, lineBufferBytes), sdk: sdk, out: make(chan lineMsg), closed: make(chan struct{})}
}

// run reads lines until one is not a single object, an error ends the
// session, or the connection closes. Like the SDK's reader, it stays
// blocked in a read of an input that never ends until the process does.
func (l *lineReader) run() {
	for {
		line, err := l.r.ReadSlice('\n')
		if err != nil {
			l.handOver(line)
			return
		}
		body := bytes.TrimRight(line, "\r\n")
		if isBlank(body) {
			continue // white space between messages, as the SDK's decoder skips it
		}
		if !oneObject(body) {
			l.handOver(line)
			return
		}
		m := lineMsg{}
		if msg, ok := decodeLine(body); ok {
			m.msg = msg
		} else {
			m.msg, m.err = jsonrpc.DecodeMessage(body)
		}
		if !l.send(m) || m.err != nil {
			// The SDK's connection ends at an error: so does the session.
			l.sdk.Close()
			return
		}
	}
}

// send gives m to Read; false once the connection is closed.
func (l *lineReader) send(m lineMsg) bool {
	select {
	case l.out <- m:
		return true
	case <-l.closed:
		return false
	}
}

// handOver gives the rest of the input, starting with pending (read
// already), to the SDK's connection, and tells Read to read from it.
func (l *lineReader) handOver(pending []byte) {
	if !l.send(lineMsg{handOver: true}) {
		return
	}
	if _, err := l.sdk.Write(pending); err != nil {
		return // closed
	}
	_, err := l.r.WriteTo(l.sdk)
	l.sdk.CloseWithError(err) // nil: the SDK's reader meets io.EOF
}

// close stops the reading: Read returns io.EOF, and what run or handOver
// is sending or writing fails.
func (l *lineReader) close() {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.sdk.CloseWithError(errClosed)
	})
}

// isBlank reports whether b is JSON white space only.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// oneObject reports whether b is one JSON object, with nothing after it
// (the SDK's reader refuses anything but a line's end there) and nothing
// but white space before it.
func oneObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && b[len(b)-1] == '}' && json.Valid(b)
}

// maxLineDepth bounds the nesting of a line decodeLine takes: the SDK
// refuses more than 1,000 levels; such a line goes to jsonrpc.DecodeMessage.
const maxLineDepth = 500

// decodeLine decodes body, one JSON object, into the message the SDK would
// decode from it, for the plain forms clients send: a request or
// notification ("jsonrpc": "2.0", a method, an integer or string id or
// none, params or none) and an answer with a result. It reports false for
// anything else (an error answer, a null or fractional id, other keys,
// text that is not UTF-8, escapes in the method or id, deep nesting), which
// jsonrpc.DecodeMessage is left to decode.
func decodeLine(body []byte) (jsonrpc.Message, bool) {
	if !utf8.Valid(body) || depthOver(body, maxLineDepth) {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return nil, false
	}
	for k := range fields {
		switch k {
		case "jsonrpc", "id", "method", "params", "result":
		default:
			return nil, false
		}
	}
	if string(fields["jsonrpc"]) != `"2.0"` {
		return nil, false
	}
	id, ok := plainID(fields["id"])
	if !ok {
		return nil, false
	}
	method, isRequest := fields["method"]
	result, isAnswer := fields["result"]
	switch {
	case isRequest && !isAnswer && plainString(method):
		// Without escapes, the method is the text between its quotes.
		return &jsonrpc.Request{ID: id, Method: string(method[1 : len(method)-1]), Params: fields["params"]}, true
	case isAnswer && !isRequest && id.IsValid() && fields["params"] == nil:
		return &jsonrpc.Response{ID: id, Result: result}, true
	}
	return nil, false
}

// plainID is the id of raw (nil: none): an integer of up to 15 digits
// (exact as the float64 the SDK decodes it to) or a string without
// escapes; false for any other.
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if raw == nil {
		return jsonrpc.ID{}, true
	}
	if plainString(raw) {
		id, err := jsonrpc.MakeID(string(raw[1 : len(raw)-1]))
		return id, err == nil
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc.ID{}, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc.ID{}, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// plainString reports whether raw is a JSON string without escapes.
func plainString(raw json.RawMessage) bool {
	return len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0
}

// depthOver reports whether the JSON text b nests objects and arrays more
// than limit deep.
func depthOver(b []byte, limit int) bool {
	depth := 0
	inString, escape := false, false
	for _, c := range b {
		if inString {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

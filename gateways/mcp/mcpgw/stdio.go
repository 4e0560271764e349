package mcpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the go-sdk's newline-delimited JSON transport over in
// and out (mcp.IOTransport), except that an answer to a call is written as
// the SDK encoded its result, without the second scan of it the SDK's
// writer makes (jsonrpc.EncodeMessage re-compacts the result it has just
// encoded: about 80 µs for a search_skills answer, BenchmarkStdioWrite),
// and that a line holding one JSON-RPC object is decoded here (lines.go)
// rather than by the SDK's reader, which decodes each message three times,
// each with a 32 KiB buffer of its own. Every other message goes through
// the SDK's connection, and so does all the input from the first line
// that is not one object (a batch, a message over several lines).
//
// Answers to a JSON-RPC batch's calls must be sent together, as the SDK's
// connection does: once a batch has come in (frameWatch), every message
// goes through it. Wrapped, the SDK's connection no longer learns the
// session's protocol, by which it refuses batches from 2025-06-18 on:
// frameWatch refuses them instead, once the answer to initialize has agreed
// on such a protocol (TestStdioTransportAsSDK compares the two).
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &stdioTransport{in: in, out: out}
}

type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lockedWriter{w: t.out}
	// The SDK's connection reads what lines hands over to it, once it
	// does (lines.go).
	sdkR, sdkW := io.Pipe()
	in := &frameWatch{r: sdkR}
	inner, err := (&mcp.IOTransport{Reader: io.NopCloser(in), Writer: w}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &stdioConn{Connection: inner, out: w, in: in, lines: newLineReader(t.in, sdkW)}
	go c.lines.run()
	return c, nil
}

// noBatchesSince is the first protocol version without JSON-RPC batches.
const noBatchesSince = "2025-06-18"

// errBatch is the SDK's refusal of a batch, word for word.
var errBatch = errors.New("JSON-RPC batching is not supported in " + noBatchesSince + " and later")

// frameWatch reads the client's messages for the SDK and notes JSON-RPC
// batches: top-level arrays. It follows the JSON's nesting and strings as
// it passes; input that is not JSON the SDK's decoder refuses anyway.
type frameWatch struct {
	r io.Reader
	// The position in the JSON text, for Read alone.
	depth            int
	inString, escape bool

	batch  atomic.Bool // a batch has come in
	refuse atomic.Bool // a batch is an error
	// refused: a refused batch has been met, and every Read fails.
	refused bool
}

func (f *frameWatch) Read(p []byte) (int, error) {
	if f.refused {
		return 0, errBatch
	}
	n, err := f.r.Read(p)
	for i, b := range p[:n] {
		if f.inString {
			switch {
			case f.escape:
				f.escape = false
			case b == '\\':
				f.escape = true
			case b == '"':
				f.inString = false
			}
			continue
		}
		switch b {
		case '"':
			f.inString = true
		case '[', '{':
			if b == '[' && f.depth == 0 {
				if f.refuse.Load() {
					// What came before the batch is read; the next Read fails.
					f.refused = true
					if i == 0 {
						return 0, errBatch
					}
					return i, nil
				}
				f.batch.Store(true)
			}
			f.depth++
		case ']', '}':
			f.depth = max(f.depth-1, 0)
		}
	}
	return n, err
}

// lockedWriter serializes whole messages from the SDK's connection and
// from stdioConn on one writer; closing it makes later writes fail.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
	// line is writeAnswer's buffer.
	line []byte
}

var errClosed = errors.New("mcpgw: stdio connection closed")

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, errClosed
	}
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return nil
}

// stdioConn is the SDK's connection with the direct read of one-line
// messages and the direct write of answers.
type stdioConn struct {
	mcp.Connection
	out *lockedWriter
	in  *frameWatch
	// lines reads the input until it hands it over to the SDK's
	// connection; sdkReads says that Read has taken that hand-over, and
	// reads from the SDK's connection from then on.
	lines    *lineReader
	sdkReads atomic.Bool
	// initID is the id of the initialize call, once read.
	mu     sync.Mutex
	initID *jsonrpc.ID
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && req.IsCall() {
		c.mu.Lock()
		c.initID = &req.ID
		c.mu.Unlock()
	}
	return msg, err
}

// read returns the next message: from lines until it hands the input over,
// then from the SDK's connection. As the SDK's connection does, it fails
// once ctx is done and, with io.EOF, once the connection is closed.
func (c *stdioConn) read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !c.sdkReads.Load() {
		select {
		case m := <-c.lines.out:
			if !m.handOver {
				return m.msg, m.err
			}
			c.sdkReads.Store(true)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.lines.closed:
			return nil, io.EOF
		}
	}
	return c.Connection.Read(ctx)
}

// Close closes the connection: the SDK's, and the reading of the input.
func (c *stdioConn) Close() error {
	c.lines.close()
	return c.Connection.Close()
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	c.mu.Lock()
	isInit := c.initID != nil && *c.initID == resp.ID
	c.mu.Unlock()
	if isInit {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &res) == nil && res.ProtocolVersion >= noBatchesSince {
			c.in.refuse.Store(true)
		}
	}
	// The result is the SDK's encoding of a value: compact JSON, one line.
	// Anything else (a newline in it) goes the SDK's way, as does everything
	// once a batch has come in.
	if c.in.batch.Load() || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return c.Connection.Write(ctx, msg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var id []byte
	switch v := resp.ID.Raw().(type) {
	case int64:
		id = strconv.AppendInt(nil, v, 10)
	case string:
		var err error
		if id, err = json.Marshal(v); err != nil {
			return err
		}
	default:
		return c.Connection.Write(ctx, msg)
	}
	return c.out.writeAnswer(id, resp.Result)
}

// writeAnswer writes the line of the answer to the call id whose result is
// result, made in a buffer kept for the next one (a search's answer is 15
// KB, made anew at every call before), unless it grew past keptLineBytes.
func (l *lockedWriter) writeAnswer(id, result []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errClosed
	}
	line := append(l.line[:0], `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	line = append(line, "}\n"...)
	_, err := l.w.Write(line)
	if cap(line) <= keptLineBytes {
		l.line = line
	}
	return err
}

// keptLineBytes is the largest answer buffer lockedWriter keeps: a rare
// large answer (a long skill loaded whole) does not stay in memory.
const keptLineBytes = 256 << 10

package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one inbound message. The largest legitimate call (262,144 characters of Python,
// every one a JSON \u escape) is under 2 MB; a longer line is answered and discarded unbuffered.
const maxLine = 16 << 20

// lineTransport is MCP's newline-delimited JSON over a byte stream (stdio, the host socket). Unlike
// the SDK's IOTransport, which ends the connection on the first line it cannot decode (and with
// stdio, the host and every session on it), it answers a line that is not a JSON-RPC message with
// a JSON-RPC error and goes on reading: nothing a client sends ends the connection but EOF.
type lineTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (t lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{rc: t.r, w: t.w, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	rc       io.ReadCloser
	w        io.WriteCloser
	wmu      sync.Mutex
	incoming chan readResult
	closeMu  sync.Once
	closed   chan struct{}
}

// readLoop decodes lines until the stream ends. It runs apart from Read so that Close unblocks
// a Read waiting on a stream whose Read cannot be interrupted (stdin).
func (c *lineConn) readLoop() {
	// A line longer than the buffer is read in pieces (readBounded); a connection of the
	// one-shot CLI carries a few hundred bytes, and a 64 KB buffer for each was a sixth of
	// what such a call allocates (BenchmarkOneShotSocketCall).
	br := bufio.NewReaderSize(c.rc, 4<<10)
	for {
		line, tooLong, err := readBounded(br)
		if tooLong || len(bytes.TrimSpace(line)) > 0 {
			if msg, code, why := decodeLine(line, tooLong); msg != nil {
				if !c.deliver(readResult{msg: msg}) {
					return
				}
			} else {
				c.writeError(idOf(line), code, why)
			}
		}
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
	}
}

func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readBounded returns the next line without its line end. A line longer than maxLine is read
// to its end without being kept, and reported as tooLong; err (io.EOF) ends the stream.
func readBounded(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxLine {
			tooLong, line = true, nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// decodeLine turns one line into a message, or says which JSON-RPC error answers it.
func decodeLine(line []byte, tooLong bool) (jsonrpc.Message, int64, string) {
	switch {
	case tooLong:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: the message is longer than 16 MiB"
	case !utf8.Valid(line):
		return nil, jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8"
	case !json.Valid(line):
		return nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON"
	}
	if bytes.TrimSpace(line)[0] == '[' {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported"
	}
	msg, err := jsonrpc.DecodeMessage(line)
	switch {
	case err != nil && nesting(line) > maxNesting:
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: lists and objects nest deeper than %d levels", maxNesting)
	case err != nil:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 request, notification or response"
	}
	return msg, 0, ""
}

// maxNesting is the deepest nesting of lists and objects the MCP SDK decodes in a message.
const maxNesting = 1000

// nesting is how deep lists and objects nest in the valid JSON line.
func nesting(line []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, b := range line {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped, inString = b == '\\', b != '"'
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			depth++
			deepest = max(deepest, depth)
		case b == ']' || b == '}':
			depth--
		}
	}
	return deepest
}

// idOf is the request id of a line that has one a response may echo, else null.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) == nil {
		var v any
		if json.Unmarshal(m.ID, &v) == nil {
			switch v.(type) {
			case string, float64:
				return m.ID
			}
		}
	}
	return json.RawMessage("null")
}

func (c *lineConn) writeError(id json.RawMessage, code int64, msg string) {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(append(b, '\n'))
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.incoming:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		err = errors.Join(c.rc.Close(), c.w.Close())
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }

// nopCloser keeps stdout open when the stdio connection closes.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

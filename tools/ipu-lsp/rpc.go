package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/tliron/glsp"
)

// The base protocol, read and answered here rather than by a JSON-RPC
// library, so that every bad message gets the answer the protocol gives
// it: a body that is not JSON, -32700 (parse error); JSON that is not a
// request (an array, null, an id that is an object, no method), -32600
// (invalid request); and the server goes on. Only a stream whose framing
// is lost (no Content-Length, one that is not a number, negative or past
// maxMessageBytes, headers not ended by CRLF) cannot be read on: the
// server says why on stderr and exits 1. `exit` exits 0 after `shutdown`,
// 1 without it, as the protocol says; so does the end of the stream.

// JSON-RPC's and LSP's error codes.
const (
	codeParseError           = -32700
	codeInvalidRequest       = -32600
	codeMethodNotFound       = -32601
	codeInvalidParams        = -32602
	codeInternalError        = -32603
	codeServerNotInitialized = -32002
)

// maxMessageBytes bounds one message's body: a document of this size is
// far past anything an editor sends.
const maxMessageBytes = 256 << 20

// maxHeaderBytes bounds one header line.
const maxHeaderBytes = 4096

// errFraming is a stream that cannot be read on.
var errFraming = errors.New("framing lost")

// rpcWriter writes framed messages; the handlers' notifications come from
// timers, so writes are serialised.
type rpcWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *rpcWriter) send(msg any) {
	body, err := json.Marshal(msg)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// readMessage reads one framed body: headers ended by an empty line, each
// ended by CRLF, one of them Content-Length. io.EOF at a message boundary
// is the end of the stream; errFraming (wrapped) is a stream that cannot
// be read on.
func readMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(line) > maxHeaderBytes {
			return nil, fmt.Errorf("%w: a header line longer than %d bytes", errFraming, maxHeaderBytes)
		}
		if err != nil {
			if first && err == io.EOF && len(line) == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: the stream ended inside a message's headers", errFraming)
		}
		if !bytes.HasSuffix(line, []byte("\r\n")) {
			return nil, fmt.Errorf("%w: a header line ended by LF alone (the protocol ends them with CRLF)", errFraming)
		}
		text := string(line[:len(line)-2])
		if text == "" {
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not a header", errFraming, text)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 || n > maxMessageBytes {
				return nil, fmt.Errorf("%w: Content-Length %q (want 0 to %d)", errFraming, strings.TrimSpace(value), maxMessageBytes)
			}
			length = int(n)
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: a message without Content-Length", errFraming)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("%w: the stream ended inside a message of %d bytes", errFraming, length)
	}
	return body, nil
}

// validID reports whether raw is a request id JSON-RPC allows: a number
// or a string (null only in a response).
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}

// serveRPC answers the messages of in on out with h until exit or the end
// of the stream, and returns the process's exit status.
func serveRPC(in io.Reader, out io.Writer, stderr io.Writer, h glsp.Handler) int {
	r := bufio.NewReaderSize(in, maxHeaderBytes+2)
	w := &rpcWriter{w: out}
	null := json.RawMessage("null")
	fail := func(id json.RawMessage, code int, format string, args ...any) {
		w.send(rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}})
	}
	shutdown := false
	for {
		body, err := readMessage(r)
		if err == io.EOF {
			if shutdown {
				return 0
			}
			fmt.Fprintln(stderr, "ipu-lsp: the stream ended without shutdown and exit")
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "ipu-lsp: %v; cannot read further\n", err)
			return 1
		}
		var raw any
		if err := json.Unmarshal(body, &raw); err != nil {
			fail(null, codeParseError, "the message is not JSON: %v", err)
			continue
		}
		obj, isObject := raw.(map[string]any)
		if !isObject {
			fail(null, codeInvalidRequest, "the message is not a JSON-RPC request or notification (an object)")
			continue
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		json.Unmarshal(body, &msg)
		_, hasID := obj["id"]
		id := msg.ID
		if hasID && !validID(id) {
			fail(null, codeInvalidRequest, "the request's id is neither a number nor a string")
			continue
		}
		if !hasID {
			id = nil
		}
		if msg.JSONRPC != "2.0" || msg.Method == nil {
			if _, isResponse := obj["result"]; isResponse || obj["error"] != nil {
				continue // a client's answer to a request this server never makes
			}
			if id == nil {
				id = null
			}
			fail(id, codeInvalidRequest, "a request needs \"jsonrpc\": \"2.0\" and a method")
			continue
		}
		ctx := &glsp.Context{Method: *msg.Method, Params: msg.Params,
			Notify: func(method string, params any) {
				w.send(rpcNotification{JSONRPC: "2.0", Method: method, Params: params})
			},
			Call: func(string, any, any) {}}
		switch *msg.Method {
		case "shutdown":
			shutdown = true
		case "exit":
			h.Handle(ctx)
			if shutdown {
				return 0
			}
			return 1
		}
		result, validMethod, validParams, err := h.Handle(ctx)
		if id == nil {
			continue // a notification is not answered, even when it fails
		}
		switch {
		case !validMethod:
			fail(id, codeMethodNotFound, "method not supported: %s", *msg.Method)
		case !validParams:
			if err == nil {
				err = errors.New("invalid params")
			}
			fail(id, codeInvalidParams, "%v", err)
		case err != nil && err.Error() == "server not initialized":
			fail(id, codeServerNotInitialized, "%v", err)
		case err != nil:
			fail(id, codeInternalError, "%v", err)
		default:
			if result == nil {
				result = json.RawMessage("null")
			}
			w.send(rpcResponse{JSONRPC: "2.0", ID: id, Result: result})
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// responses reads every framed message the server wrote.
func responses(t *testing.T, out []byte) []map[string]json.RawMessage {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(out))
	var msgs []map[string]json.RawMessage
	for {
		body, err := readMessage(r)
		if err != nil {
			return msgs
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("the server wrote %q", body)
		}
		msgs = append(msgs, m)
	}
}

func errorCode(m map[string]json.RawMessage) int {
	var e struct{ Code int }
	json.Unmarshal(m["error"], &e)
	return e.Code
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`

// Each recoverable bad message is answered as JSON-RPC says and the server
// goes on: a body that is not JSON (-32700), an empty one (-32700), an
// array, null, an object id (-32600); the request after them is answered;
// shutdown then exit ends with status 0.
func TestBadMessagesAreAnsweredAndTheServerGoesOn(t *testing.T) {
	in := frame(initialize) +
		frame(`this is not json`) +
		"Content-Length: 0\r\n\r\n" +
		frame(`[]`) +
		frame(`null`) +
		frame(`{"jsonrpc":"2.0","id":{"x":1},"method":"shutdown"}`) +
		frame(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`) +
		frame(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`) +
		frame(`{"jsonrpc":"2.0","method":"exit"}`)
	var out, errs bytes.Buffer
	code := serveRPC(strings.NewReader(in), &out, &errs, newServer().handler())
	if code != 0 {
		t.Errorf("exit after shutdown: status %d (%s)", code, errs.String())
	}
	msgs := responses(t, out.Bytes())
	var codes []int
	for _, m := range msgs {
		codes = append(codes, errorCode(m))
	}
	want := []int{0, codeParseError, codeParseError, codeInvalidRequest, codeInvalidRequest, codeInvalidRequest, codeMethodNotFound, 0}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("error codes %v, want %v", codes, want)
	}
	if len(msgs) == len(want) && string(msgs[7]["id"]) != "8" {
		t.Errorf("shutdown answered with id %s", msgs[7]["id"])
	}
}

// A stream whose framing is lost cannot be read on: the server says why
// on stderr and exits 1. So does exit without shutdown, and the end of the
// stream without them.
func TestLostFramingAndExitWithoutShutdownExitOne(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"no length", "Content-Type: x\r\n\r\n{}", "a message without Content-Length"},
		{"negative length", "Content-Length: -4\r\n\r\n{}", `Content-Length "-4"`},
		{"huge length", "Content-Length: 99999999999\r\n\r\n{}", `Content-Length "99999999999"`},
		{"LF only", "Content-Length: 2\n\n{}", "ended by LF alone"},
		{"cut short", "Content-Length: 20\r\n\r\n{}", "the stream ended inside a message of 20 bytes"},
		{"exit without shutdown", frame(initialize) + frame(`{"jsonrpc":"2.0","method":"exit"}`), ""},
		{"end without shutdown", frame(initialize), "the stream ended without shutdown and exit"},
	} {
		var out, errs bytes.Buffer
		code := serveRPC(strings.NewReader(c.in), &out, &errs, newServer().handler())
		if code != 1 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%s: status %d, stderr %q (want 1, %q)", c.name, code, errs.String(), c.want)
		}
	}
}

// FuzzServeRPC: any bytes end the server with status 0 or 1, never a
// panic or a hang; its corpus (testdata/fuzz/FuzzServeRPC) holds the
// shapes above.
func FuzzServeRPC(f *testing.F) {
	for _, seed := range []string{
		frame(initialize) + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		frame(`[]`), frame(`null`), "Content-Length: 0\r\n\r\n", "Content-Length: -1\r\n\r\n",
		"Content-Length: 2\n\n{}", frame(`{"jsonrpc":"2.0","id":{},"method":"x"}`),
		frame(initialize) + frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.ipuir","languageId":"ipuir","version":1,"text":"func.func @f() {\n  return\n}\n"}}}`),
	} {
		f.Add([]byte(seed))
	}
	h := newServer().handler()
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errs bytes.Buffer
		if code := serveRPC(bytes.NewReader(data), &out, &errs, h); code != 0 && code != 1 {
			t.Fatalf("status %d", code)
		}
	})
}

// A document's URI is unescaped into the file name diagnostics carry.
func TestURIPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///tmp/a%20b%23c.ipuir": "/tmp/a b#c.ipuir",
		"file:///x.ipuir":             "/x.ipuir",
		"untitled:Untitled-1":         "untitled:Untitled-1",
	} {
		if got := uriPath(uri); got != want {
			t.Errorf("uriPath(%q) = %q, want %q", uri, got, want)
		}
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain runs the test binary as the server when asked, so that the
// tests speak the protocol to a real process over its stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("IPU_LSP_AS_SERVER") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// client is a minimal LSP client: Content-Length framing, ids, and the
// server's notifications kept by method.
type client struct {
	t     *testing.T
	in    io.WriteCloser
	out   *bufio.Reader
	next  int
	notes map[string][]json.RawMessage
}

func start(t *testing.T) *client {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "IPU_LSP_AS_SERVER=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	c := &client{t: t, in: in, out: bufio.NewReader(out), notes: map[string][]json.RawMessage{}}
	c.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})
	return c
}

func (c *client) send(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, _ := json.Marshal(msg)
	fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (c *client) read() map[string]json.RawMessage {
	length := 0
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading from the server: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.out, body); err != nil {
		c.t.Fatal(err)
	}
	var msg map[string]json.RawMessage
	json.Unmarshal(body, &msg)
	return msg
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"method": method, "params": params})
}

// call sends a request and decodes its result into out, keeping the
// notifications that come before it.
func (c *client) call(method string, params, out any) {
	c.next++
	id := c.next
	c.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		msg := c.read()
		if m, ok := msg["method"]; ok {
			var name string
			json.Unmarshal(m, &name)
			c.notes[name] = append(c.notes[name], msg["params"])
			continue
		}
		if string(msg["id"]) != strconv.Itoa(id) {
			continue
		}
		if e, ok := msg["error"]; ok {
			c.t.Fatalf("%s: %s", method, e)
		}
		if out != nil {
			if err := json.Unmarshal(msg["result"], out); err != nil {
				c.t.Fatalf("%s: %v: %s", method, err, msg["result"])
			}
		}
		return
	}
}

// diagnostics waits for the diagnostics of the document's version.
func (c *client) diagnostics(version int) []map[string]any {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, raw := range c.notes["textDocument/publishDiagnostics"] {
			var p struct {
				Version     int              `json:"version"`
				Diagnostics []map[string]any `json:"diagnostics"`
			}
			json.Unmarshal(raw, &p)
			if p.Version == version {
				return p.Diagnostics
			}
		}
		// Any request lets notifications arrive.
		c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, nil)
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("no diagnostics for version %d", version)
	return nil
}

const uri = "file:///t/model.ipuir"

const model = `module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<16x32xf16>, %w: tensor<32x32xf16>) -> tensor<16x32xf16> {
    %a = tensor.matmul %x, %w : tensor<16x32xf16>, tensor<32x32xf16> -> tensor<16x32xf16>
    %b = tensor.tanh %a : tensor<16x32xf16>
    return %b : tensor<16x32xf16>
  }
}
`

func pos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

func at(line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(line, char)}
}

type location struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
}

// The protocol end to end: diagnostics on open and on change, definition
// and references of a value, hover on an op and on a value, symbols,
// folding, completion of ops and passes, and the expected-error action.
func TestProtocol(t *testing.T) {
	c := start(t)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "ipuir", "version": 1, "text": model}})
	if d := c.diagnostics(1); len(d) != 0 {
		t.Errorf("a valid file has diagnostics: %v", d)
	}

	// Definition of %a where tanh reads it (line 3), and its references.
	var def location
	c.call("textDocument/definition", at(3, 22), &def)
	if def.Range.Start.Line != 2 || def.Range.Start.Character != 4 {
		t.Errorf("definition of %%a: %+v", def)
	}
	var refs []location
	c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(2, 5), "context": map[string]any{"includeDeclaration": true}}, &refs)
	if len(refs) != 2 {
		t.Errorf("references of %%a: %+v", refs)
	}
	// %x is the function's argument: defined in the signature.
	c.call("textDocument/definition", at(2, 24), &def)
	if def.Range.Start.Line != 1 {
		t.Errorf("definition of %%x: %+v", def)
	}

	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	c.call("textDocument/hover", at(2, 15), &hover)
	if !strings.Contains(hover.Contents.Value, "**tensor.matmul**") {
		t.Errorf("hover on tensor.matmul: %q", hover.Contents.Value)
	}
	c.call("textDocument/hover", at(4, 12), &hover)
	if !strings.Contains(hover.Contents.Value, "%b = tensor.tanh %a : tensor<16x32xf16>") {
		t.Errorf("hover on %%b: %q", hover.Contents.Value)
	}

	// On a value a tiled op defines, its layout alias spelled out.
	tiledDoc := "file:///t/tiled.ipuir"
	tiledText := "#layout = #tiled.layout<tile_count = 16>\nmodule {\n  func.func @g(%x: tensor<16xf16, #layout>) -> tensor<16xf16, #layout> {\n    %y = tiled.tanh %x : tensor<16xf16, #layout>\n    return %y : tensor<16xf16, #layout>\n  }\n}\n"
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": tiledDoc, "languageId": "ipuir", "version": 1, "text": tiledText}})
	c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": tiledDoc}, "position": pos(4, 12)}, &hover)
	if !strings.Contains(hover.Contents.Value, "%y = tiled.tanh %x : tensor<16xf16, #layout>\n#layout = #tiled.layout<tile_count = 16>") {
		t.Errorf("hover on a tiled value: %q", hover.Contents.Value)
	}

	var syms []struct {
		Name string `json:"name"`
	}
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 1 || syms[0].Name != "@f" {
		t.Errorf("symbols: %+v", syms)
	}
	var folds []struct{ StartLine, EndLine int }
	c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": uri}}, &folds)
	if len(folds) < 2 || folds[0].StartLine != 0 || folds[1].StartLine != 1 || folds[1].EndLine != 4 {
		t.Errorf("folds: %+v", folds)
	}

	// A change that breaks the file: the diagnostic, at the offending
	// token, and the action that expects it.
	broken := strings.Replace(model, "tensor.tanh %a", "tensor.tanh %zz", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": broken}}})
	diags := c.diagnostics(2)
	// The range is the offending token, %zz.
	if len(diags) != 1 || !strings.Contains(fmt.Sprint(diags[0]["message"]), "undeclared SSA value") ||
		fmt.Sprint(diags[0]["range"]) != "map[end:map[character:24 line:3] start:map[character:21 line:3]]" {
		t.Fatalf("diagnostics of the broken file: %v", diags)
	}
	var actions []struct {
		Title string `json:"title"`
		Edit  struct {
			Changes map[string][]struct {
				NewText string `json:"newText"`
			} `json:"changes"`
		} `json:"edit"`
	}
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": diags[0]["range"],
		"context": map[string]any{"diagnostics": diags}}, &actions)
	if len(actions) != 1 || !strings.HasPrefix(actions[0].Edit.Changes[uri][0].NewText, "    // expected-error@+1 {{") {
		t.Errorf("code actions: %+v", actions)
	}

	// A --verify-diagnostics test: its expected error is met, so nothing
	// is reported; an expectation that is not met is.
	expecting := "// RUN: ipu-opt %s --verify-diagnostics\n" + strings.Replace(broken, "    %b = tensor.tanh %zz", "    // expected-error@+1 {{use of undeclared SSA value name}}\n    %b = tensor.tanh %zz", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 10}, "contentChanges": []any{map[string]any{"text": expecting}}})
	if d := c.diagnostics(10); len(d) != 0 {
		t.Errorf("a met expectation is reported: %v", d)
	}
	wrong := strings.Replace(expecting, "{{use of undeclared SSA value name}}", "{{something else}}", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 11}, "contentChanges": []any{map[string]any{"text": wrong}}})
	if d := c.diagnostics(11); len(d) != 2 || !strings.Contains(fmt.Sprint(d), "something else") {
		t.Errorf("an unmet expectation and an unexpected error: %v", d)
	}

	// Completion: ops after a dialect prefix, passes in a RUN line.
	withRun := "// RUN: ipu-opt %s --pass-pipeline='builtin.module(can\n" + model
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{map[string]any{"text": withRun}}})
	var items []struct {
		Label string `json:"label"`
	}
	c.call("textDocument/completion", at(0, len("// RUN: ipu-opt %s --pass-pipeline='builtin.module(can")), &items)
	if !containsLabel(items, "canonicalize") || !containsLabel(items, "plan-gemms") {
		t.Errorf("pass completion: %d items", len(items))
	}
	c.call("textDocument/completion", at(3, len("    %a = tensor.mat")), &items)
	if !containsLabel(items, "tensor.matmul") {
		t.Errorf("op completion: %+v", items)
	}
	// An op's declared attributes inside its dictionary.
	withAttrs := strings.Replace(model, "tensor.tanh %a :", "tensor.transpose %a {perm", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 4}, "contentChanges": []any{map[string]any{"text": withAttrs}}})
	c.call("textDocument/completion", at(3, len("    %b = tensor.transpose %a {perm")), &items)
	if !containsLabel(items, "permutation") {
		t.Errorf("attribute completion: %+v", items)
	}
}

func containsLabel(items []struct {
	Label string `json:"label"`
}, want string) bool {
	for _, it := range items {
		if it.Label == want {
			return true
		}
	}
	return false
}

// BenchmarkIndex30MB and BenchmarkAnalyze30MB time what a change costs on
// a 30 MB file (IPU_LSP_BIG names it): the index, built on every change,
// and the parse and verify behind the debounce.
func BenchmarkIndex30MB(b *testing.B) {
	text := bigFile(b)
	for b.Loop() {
		newIndex(text)
	}
}

func BenchmarkAnalyze30MB(b *testing.B) {
	text := bigFile(b)
	for b.Loop() {
		analyze("file:///big.ipuir", text)
	}
}

func bigFile(b *testing.B) string {
	path := os.Getenv("IPU_LSP_BIG")
	if path == "" {
		b.Skip("IPU_LSP_BIG names a large .ipuir file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

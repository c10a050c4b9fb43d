package interop

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/internal/irgen"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/tests/testdialect"
)

// printModes are the printer options the round trip covers: generic and
// custom forms, with and without locations.
var printModes = []printer.Options{
	{Generic: true, DebugInfo: true},
	{Generic: true},
	{DebugInfo: true},
	{},
}

func modeName(o printer.Options) string {
	s := "custom"
	if o.Generic {
		s = "generic"
	}
	if o.DebugInfo {
		s += "+debuginfo"
	}
	return s
}

// newContext knows the dialects ipu-opt knows, and allows unregistered
// ones as --allow-unregistered-dialect does.
func newContext(t *testing.T) *ir.Context {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	for _, register := range []func(*ir.Context) error{funcd.Register, tensor.Register, tiled.Register, testdialect.Register} {
		if err := register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return ctx
}

// TestRoundTripGenerated: what ipuir prints for a generated file, it
// parses back to the same IR, and printing that again gives the same text.
func TestRoundTripGenerated(t *testing.T) {
	roundTripGenerated(t, passingConfig(), seeds())
}

func roundTripGenerated(t *testing.T, cfg irgen.Config, seeds []uint64) {
	for _, seed := range seeds {
		src, _ := irgen.Generate(seed, cfg)
		name := fmt.Sprintf("seed-%d.mlir", seed)
		ctx := newContext(t)
		m, err := parser.ParseSourceString(ctx, src, parser.Config{Filename: name})
		if err != nil {
			t.Errorf("%s: %v (kept in %s)", name, err, keep(t, name, string(src)))
			continue
		}
		if d := ir.Verify(m); d != nil {
			t.Errorf("%s: %v (kept in %s)", name, d, keep(t, name, string(src)))
			continue
		}
		roundTrip(t, ctx, name, src, m)
	}
}

// TestRoundTripFiles: the same over every .ipuir and .mlir file (each
// `// -----` chunk apart) under tests/ and examples/ that parses and
// verifies.
func TestRoundTripFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, dir := range []string{"tests", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".ipuir") || strings.HasSuffix(path, ".mlir")) {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for i, chunk := range splitInput(src) {
				name := fmt.Sprintf("%s#%d", rel, i)
				ctx := newContext(t)
				m, err := parser.ParseSourceString(ctx, chunk, parser.Config{Filename: rel})
				if err != nil || ir.Verify(m) != nil {
					continue // a test of diagnostics
				}
				checked++
				roundTrip(t, ctx, name, chunk, m)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no file under tests/ or examples/ parses")
	}
	t.Logf("%d files or chunks round-trip", checked)
}

// splitInput cuts src at `// -----` lines, as --split-input-file does.
func splitInput(src []byte) [][]byte {
	var chunks [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		if strings.TrimSpace(string(line)) == "// -----" {
			chunks = append(chunks, append([]byte(nil), cur.Bytes()...))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	return append(chunks, cur.Bytes())
}

// roundTrip prints m (parsed from src) in every mode, parses the text
// back into ctx, and requires the same IR and the same text again.
func roundTrip(t *testing.T, ctx *ir.Context, name string, src []byte, m *ir.Operation) {
	t.Helper()
	for _, mode := range printModes {
		p1 := printIR(t, m, mode)
		m1, err := parser.ParseSourceString(ctx, []byte(p1), parser.Config{Filename: "printed.mlir"})
		if err != nil {
			path := keep(t, safeName(name), string(src), safeName(name)+"."+modeName(mode), p1)
			t.Errorf("%s (%s): ipuir cannot parse what it prints: %v\ninput kept in %s", name, modeName(mode), err, path)
			continue
		}
		if err := sameIR(m, m1, mode.DebugInfo, !mode.Generic); err != nil {
			path := keep(t, safeName(name), string(src), safeName(name)+"."+modeName(mode), p1)
			t.Errorf("%s (%s): printing and parsing back changes the IR: %v\ninput kept in %s", name, modeName(mode), err, path)
			continue
		}
		if p2 := printIR(t, m1, mode); p2 != p1 {
			path := keep(t, safeName(name), string(src), safeName(name)+"."+modeName(mode), p1)
			t.Errorf("%s (%s): printing is not a fixpoint (input kept in %s):\n%s", name, modeName(mode), path,
				cmp.Diff(strings.Split(p1, "\n"), strings.Split(p2, "\n")))
		}
	}
}

func printIR(t *testing.T, m *ir.Operation, o printer.Options) string {
	var b strings.Builder
	if err := printer.Print(&b, m, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// safeName turns a test file's name into a file name for failureDir.
func safeName(name string) string {
	return strings.NewReplacer("/", "_", "#", "_").Replace(name)
}

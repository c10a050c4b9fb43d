package printer

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// irBuilder is a small shorthand for building test IR through ir's API.
type irBuilder struct {
	ctx *ir.Context
	b   *ir.Builder
	loc func() ir.Location
}

func newBuilder() *irBuilder {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	line := 1
	return &irBuilder{ctx: ctx, b: ir.NewBuilder(ctx), loc: func() ir.Location {
		line++
		return ctx.FileLineCol("t.mlir", line, 3)
	}}
}

func (x *irBuilder) module() *ir.Operation {
	m := ir.NewModule(x.ctx, x.ctx.FileLineCol("t.mlir", 1, 1))
	x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	return m
}

// op creates `name` at the insertion point with the given operands,
// result types and attributes.
func (x *irBuilder) op(name string, operands []*ir.Value, results []ir.Type, attrs ...ir.NamedAttr) *ir.Operation {
	return x.b.Create(&ir.OperationState{Name: name, Operands: operands, ResultTypes: results, Attrs: attrs, Loc: x.loc()})
}

func attr(name string, a ir.Attribute) ir.NamedAttr { return ir.NamedAttr{Name: name, Value: a} }

func vals(vs ...*ir.Value) []*ir.Value { return vs }
func typs(ts ...ir.Type) []ir.Type     { return ts }

func printString(t *testing.T, op *ir.Operation, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Print(&buf, op, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// mlirOptFlags are the mlir-opt flags that print as opts do.
func mlirOptFlags(opts Options) []string {
	flags := []string{"--allow-unregistered-dialect"}
	if opts.Generic {
		flags = append(flags, "--mlir-print-op-generic")
	}
	if opts.DebugInfo {
		flags = append(flags, "--mlir-print-debuginfo")
	}
	if opts.PrettyDebugInfo {
		flags = append(flags, "--mlir-print-debuginfo", "--mlir-pretty-debuginfo")
	}
	if opts.SkipRegions {
		flags = append(flags, "--mlir-print-skip-regions")
	}
	if opts.ElideElementsAttrsIfLarger > 0 {
		flags = append(flags, "--mlir-elide-elementsattrs-if-larger="+strconv.Itoa(opts.ElideElementsAttrsIfLarger))
	}
	if opts.LocalScope {
		flags = append(flags, "--mlir-print-local-scope")
	}
	if opts.UniqueSSAIDs {
		flags = append(flags, "--mlir-print-unique-ssa-ids")
	}
	return flags
}

// mlirOptReprint runs mlir-opt-19 over text and returns what it prints, or
// skips the test when mlir-opt-19 is not installed.
func mlirOptReprint(t *testing.T, text string, opts Options) string {
	t.Helper()
	tool, err := exec.LookPath("mlir-opt-19")
	if err != nil {
		t.Skip("mlir-opt-19 not installed")
	}
	path := filepath.Join(t.TempDir(), "t.mlir")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, append(mlirOptFlags(opts), path)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mlir-opt-19 rejects our output: %v\n%s\ninput:\n%s", err, stderr.String(), text)
	}
	return strings.ReplaceAll(string(out), path, "t.mlir")
}

package funcd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/printer"
)

func newContext(t *testing.T) *ir.Context {
	t.Helper()
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	if err := Register(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestDialectDeclarations(t *testing.T) {
	ctx := newContext(t)
	if err := Register(ctx); err == nil {
		t.Error("registering the dialect twice succeeds")
	}
	for _, op := range Dialect.Ops {
		if op.Summary == "" || !strings.Contains(op.Example, strings.TrimPrefix(op.Name, "func.")) {
			t.Errorf("%s: summary or example missing", op.Name)
		}
		if err := asmformat.Check(op); err != nil {
			t.Error(err)
		}
	}
}

// builder helps build func IR through ir's API.
type builder struct {
	ctx  *ir.Context
	b    *ir.Builder
	line int
}

func newBuilder(t *testing.T) (*builder, *ir.Operation) {
	ctx := newContext(t)
	m := ir.NewModule(ctx, ctx.FileLineCol("f.mlir", 1, 1))
	b := &builder{ctx: ctx, b: ir.NewBuilder(ctx)}
	b.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	return b, m
}

func (x *builder) loc() ir.Location {
	x.line++
	return x.ctx.FileLineCol("f.mlir", x.line+1, 3)
}

// fn creates a function; with body it gets an entry block with the inputs
// as arguments and the insertion point moves there.
func (x *builder) fn(name string, inputs, results []ir.Type, body bool, attrs ...ir.NamedAttr) *ir.Operation {
	st := &ir.OperationState{Name: FuncOpName, Loc: x.loc(), NumRegions: 1, Attrs: append([]ir.NamedAttr{
		{Name: ir.SymbolAttrName, Value: x.ctx.String(name)},
		{Name: FunctionTypeAttr, Value: x.ctx.TypeAttr(x.ctx.Function(inputs, results))},
	}, attrs...)}
	f := x.b.Create(st)
	if body {
		blk := ir.NewBlock(inputs, nil)
		for i := range inputs {
			blk.Argument(i).SetLoc(x.ctx.FileLineCol("f.mlir", x.line+1, 20+i))
		}
		f.Region(0).AppendBlock(blk)
		x.b.SetInsertionPointToEnd(blk)
	}
	return f
}

func (x *builder) op(name string, operands []*ir.Value, results []ir.Type, attrs ...ir.NamedAttr) *ir.Operation {
	return x.b.Create(&ir.OperationState{Name: name, Operands: operands, ResultTypes: results, Attrs: attrs, Loc: x.loc()})
}

func na(name string, a ir.Attribute) ir.NamedAttr { return ir.NamedAttr{Name: name, Value: a} }

func print(t *testing.T, op *ir.Operation, opts printer.Options) string {
	var buf bytes.Buffer
	if err := printer.Print(&buf, op, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// runMLIROpt runs mlir-opt-19 on text, skipping the test without it.
func runMLIROpt(t *testing.T, text string, flags ...string) (stdout, stderr string, err error) {
	t.Helper()
	tool, lookErr := exec.LookPath("mlir-opt-19")
	if lookErr != nil {
		t.Skip("mlir-opt-19 not installed")
	}
	path := filepath.Join(t.TempDir(), "f.mlir")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, append(append([]string{"--allow-unregistered-dialect"}, flags...), path)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), strings.ReplaceAll(errb.String(), path, "f.mlir"), err
}

func buildFunctions(t *testing.T) *ir.Operation {
	x, m := newBuilder(t)
	c := x.ctx
	i32, f32 := c.I(32), c.F32()
	dict := func(entries ...ir.NamedAttr) ir.Attribute { return c.Dict(entries) }
	x.fn("decl", []ir.Type{i32, f32}, []ir.Type{i32}, false,
		na(ir.VisibilityAttrName, c.String("private")),
		na(ArgAttrsAttr, c.Array(dict(na("a.b", c.Unit())), dict())),
		na(ResAttrsAttr, c.Array(dict(na("r.x", c.IntegerAttr(i32, 1))))))
	x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	x.fn("nothing", nil, nil, false, na(ir.VisibilityAttrName, c.String("private")))
	x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	fnType := c.Function([]ir.Type{i32}, []ir.Type{i32})
	f := x.fn("f", []ir.Type{i32, f32}, []ir.Type{i32, fnType}, true,
		na(ArgAttrsAttr, c.Array(dict(na("a.x", c.IntegerAttr(i32, 1)), na("a.y", c.Unit())), dict())),
		na(ResAttrsAttr, c.Array(dict(na("r.x", c.Unit())), dict())),
		na("foo", c.Unit()), na("bar", c.Array(c.IntegerAttr(c.I(64), 1), c.String("s"))))
	arg := f.Region(0).Front().Argument(0)
	call := x.op(CallOpName, []*ir.Value{arg, f.Region(0).Front().Argument(1)}, []ir.Type{i32}, na(CalleeAttr, c.SymbolRef("decl")))
	self := x.op(ConstantOpName, nil, []ir.Type{fnType}, na(ValueAttr, c.SymbolRef("g")))
	again := x.op(ConstantOpName, nil, []ir.Type{fnType}, na(ValueAttr, c.SymbolRef("g")), na("fmt.k", c.Unit()))
	ind := x.op(CallIndirectOpName, []*ir.Value{self.Result(0), call.Result(0)}, []ir.Type{i32})
	x.op(CallIndirectOpName, []*ir.Value{again.Result(0), ind.Result(0)}, []ir.Type{i32})
	x.op(CallOpName, nil, nil, na(CalleeAttr, c.SymbolRef("nothing")))
	cast := x.op(ir.UnrealizedCast, []*ir.Value{ind.Result(0)}, []ir.Type{c.I(64)})
	x.op("test.use", []*ir.Value{cast.Result(0)}, nil)
	x.op(ReturnOpName, []*ir.Value{ind.Result(0), self.Result(0)}, nil)
	x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	g := x.fn("g", []ir.Type{i32}, []ir.Type{i32}, true, na(ir.VisibilityAttrName, c.String("nested")))
	x.op(ReturnOpName, []*ir.Value{g.Region(0).Front().Argument(0)}, nil)
	x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
	x.fn("empty", nil, nil, true)
	x.op(ReturnOpName, nil, nil)
	return m
}

const wantFunctions = `module {
  func.func private @decl(i32 {a.b}, f32) -> (i32 {r.x = 1 : i32})
  func.func private @nothing()
  func.func @f(%arg0: i32 {a.x = 1 : i32, a.y}, %arg1: f32) -> (i32 {r.x}, (i32) -> i32) attributes {bar = [1, "s"], foo} {
    %0 = call @decl(%arg0, %arg1) : (i32, f32) -> i32
    %f = constant @g : (i32) -> i32
    %f_0 = constant {fmt.k} @g : (i32) -> i32
    %1 = call_indirect %f(%0) : (i32) -> i32
    %2 = call_indirect %f_0(%1) : (i32) -> i32
    call @nothing() : () -> ()
    %3 = builtin.unrealized_conversion_cast %1 : i32 to i64
    "test.use"(%3) : (i64) -> ()
    return %1, %f : i32, (i32) -> i32
  }
  func.func nested @g(%arg0: i32) -> i32 {
    return %arg0 : i32
  }
  func.func @empty() {
    return
  }
}

`

func TestPrintFunctions(t *testing.T) {
	m := buildFunctions(t)
	if d := ir.Verify(m); d != nil {
		t.Fatal(d)
	}
	if got := print(t, m, printer.Options{}); got != wantFunctions {
		t.Errorf("got\n%s\nwant\n%s", got, wantFunctions)
	}
}

// TestPrintFunctionsMatchesMLIROpt has mlir-opt-19 read the generic form
// with locations and print it in each form; we must print the same.
func TestPrintFunctionsMatchesMLIROpt(t *testing.T) {
	m := buildFunctions(t)
	input := print(t, m, printer.Options{Generic: true, DebugInfo: true})
	for _, c := range []struct {
		opts  printer.Options
		flags []string
	}{
		{printer.Options{}, nil},
		{printer.Options{Generic: true}, []string{"--mlir-print-op-generic"}},
		{printer.Options{DebugInfo: true}, []string{"--mlir-print-debuginfo"}},
	} {
		want, stderr, err := runMLIROpt(t, input, c.flags...)
		if err != nil {
			t.Fatalf("mlir-opt-19 rejects our output: %v\n%s\n%s", err, stderr, input)
		}
		if got := print(t, m, c.opts); got != want {
			t.Errorf("flags %v: got\n%s\nmlir-opt-19 prints\n%s", c.flags, got, want)
		}
	}
}

package funcd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
)

// verifyCase builds a module with one mistake and says how it is reported.
type verifyCase struct {
	name  string
	build func(x *builder, m *ir.Operation)
	want  string // the message after "error: "
}

func verifyCases() []verifyCase {
	return []verifyCase{
		{"return_count", func(x *builder, m *ir.Operation) {
			f := x.fn("f", []ir.Type{x.ctx.I(32)}, []ir.Type{x.ctx.I(32)}, true)
			a := f.Region(0).Front().Argument(0)
			x.op(ReturnOpName, []*ir.Value{a, a}, nil)
		}, "'func.return' op has 2 operands, but enclosing function (@f) returns 1"},
		{"return_type", func(x *builder, m *ir.Operation) {
			f := x.fn("f", []ir.Type{x.ctx.I(32)}, []ir.Type{x.ctx.I(64)}, true)
			x.op(ReturnOpName, []*ir.Value{f.Region(0).Front().Argument(0)}, nil)
		}, "type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f"},
		{"return_parent", func(x *builder, m *ir.Operation) {
			x.op(ReturnOpName, nil, nil)
		}, "'func.return' op expects parent op 'func.func'"},
		{"call_undefined", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			x.op(CallOpName, nil, nil, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op 'g' does not reference a valid function"},
		{"call_not_a_function", func(x *builder, m *ir.Operation) {
			x.op("test.g", nil, nil, na(ir.SymbolAttrName, x.ctx.String("g")))
			x.fn("f", nil, nil, true)
			x.op(CallOpName, nil, nil, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op 'g' does not reference a valid function"},
		{"call_operand_count", func(x *builder, m *ir.Operation) {
			i32 := x.ctx.I(32)
			x.fn("g", []ir.Type{i32}, nil, false, na(ir.VisibilityAttrName, x.ctx.String("private")))
			x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
			f := x.fn("f", []ir.Type{i32}, nil, true)
			a := f.Region(0).Front().Argument(0)
			x.op(CallOpName, []*ir.Value{a, a}, nil, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op incorrect number of operands for callee"},
		{"call_operand_type", func(x *builder, m *ir.Operation) {
			x.fn("g", []ir.Type{x.ctx.I(64)}, nil, false, na(ir.VisibilityAttrName, x.ctx.String("private")))
			x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
			f := x.fn("f", []ir.Type{x.ctx.I(32)}, nil, true)
			x.op(CallOpName, []*ir.Value{f.Region(0).Front().Argument(0)}, nil, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op operand type mismatch: expected operand type 'i64', but provided 'i32' for operand number 0"},
		{"call_result_count", func(x *builder, m *ir.Operation) {
			i32 := x.ctx.I(32)
			x.fn("g", nil, []ir.Type{i32, i32}, false, na(ir.VisibilityAttrName, x.ctx.String("private")))
			x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
			x.fn("f", nil, nil, true)
			x.op(CallOpName, nil, []ir.Type{i32}, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op incorrect number of results for callee"},
		{"call_result_type", func(x *builder, m *ir.Operation) {
			i32, i64 := x.ctx.I(32), x.ctx.I(64)
			x.fn("g", nil, []ir.Type{i32, i32}, false, na(ir.VisibilityAttrName, x.ctx.String("private")))
			x.b.SetInsertionPointToEnd(ir.ModuleBody(m))
			x.fn("f", nil, nil, true)
			x.op(CallOpName, nil, []ir.Type{i32, i64}, na(CalleeAttr, x.ctx.SymbolRef("g")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.call' op result type mismatch at index 1"},
		{"constant_undefined", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			x.op(ConstantOpName, nil, []ir.Type{x.ctx.Function(nil, nil)}, na(ValueAttr, x.ctx.SymbolRef("nope")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.constant' op reference to undefined function 'nope'"},
		{"constant_type", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			x.op(ConstantOpName, nil, []ir.Type{x.ctx.Function([]ir.Type{x.ctx.I(1)}, nil)}, na(ValueAttr, x.ctx.SymbolRef("f")))
			x.op(ReturnOpName, nil, nil)
		}, "'func.constant' op reference to function with mismatched type"},
		{"call_indirect_inputs", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			ft := x.ctx.Function([]ir.Type{x.ctx.I(32)}, nil)
			c := x.op("test.fn", nil, []ir.Type{ft})
			x.op(CallIndirectOpName, []*ir.Value{c.Result(0)}, nil)
			x.op(ReturnOpName, nil, nil)
		}, "'func.call_indirect' op failed to verify that callee input types match argument types"},
		{"call_indirect_results", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			ft := x.ctx.Function(nil, []ir.Type{x.ctx.I(32)})
			c := x.op("test.fn", nil, []ir.Type{ft})
			x.op(CallIndirectOpName, []*ir.Value{c.Result(0)}, []ir.Type{x.ctx.I(64)})
			x.op(ReturnOpName, nil, nil)
		}, "'func.call_indirect' op failed to verify that callee result types match result types"},
		{"call_indirect_callee", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true)
			c := x.op("test.fn", nil, []ir.Type{x.ctx.I(32)})
			x.op(CallIndirectOpName, []*ir.Value{c.Result(0)}, nil)
			x.op(ReturnOpName, nil, nil)
		}, "'func.call_indirect' op operand #0 must be function type, but got 'i32'"},
		{"public_declaration", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, false)
		}, "'func.func' op symbol declaration cannot have public visibility"},
		{"bad_visibility", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, false, na(ir.VisibilityAttrName, x.ctx.String("foo")))
		}, `'func.func' op visibility expected to be one of ["public", "private", "nested"], but got "foo"`},
		{"entry_arg_count", func(x *builder, m *ir.Operation) {
			f := x.fn("f", []ir.Type{x.ctx.I(32)}, nil, true)
			f.Region(0).Front().AddArgument(x.ctx.I(32), x.ctx.FileLineCol("f.mlir", 9, 9))
			x.op(ReturnOpName, nil, nil)
		}, "'func.func' op entry block must have 1 arguments to match function signature"},
		{"entry_arg_type", func(x *builder, m *ir.Operation) {
			f := x.fn("f", []ir.Type{x.ctx.I(32)}, nil, true)
			f.Region(0).Front().Argument(0).SetType(x.ctx.I(64))
			x.op(ReturnOpName, nil, nil)
		}, "'func.func' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')"},
		{"arg_attrs_count", func(x *builder, m *ir.Operation) {
			e := x.ctx.EmptyDict()
			x.fn("f", []ir.Type{x.ctx.I(32)}, nil, true, na(ArgAttrsAttr, x.ctx.Array(e, e)))
			x.op(ReturnOpName, nil, nil)
		}, "'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 2, but expected 1"},
		{"res_attrs_count", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, nil, true, na(ResAttrsAttr, x.ctx.Array(x.ctx.EmptyDict())))
			x.op(ReturnOpName, nil, nil)
		}, "'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 0"},
		{"arg_attr_prefix", func(x *builder, m *ir.Operation) {
			x.fn("f", []ir.Type{x.ctx.I(32)}, nil, true, na(ArgAttrsAttr, x.ctx.Array(x.ctx.Dict([]ir.NamedAttr{na("foo", x.ctx.Unit())}))))
			x.op(ReturnOpName, nil, nil)
		}, "'func.func' op arguments may only have dialect attributes"},
		{"res_attr_prefix", func(x *builder, m *ir.Operation) {
			x.fn("f", nil, []ir.Type{x.ctx.I(32)}, false, na(ir.VisibilityAttrName, x.ctx.String("private")),
				na(ResAttrsAttr, x.ctx.Array(x.ctx.Dict([]ir.NamedAttr{na("foo", x.ctx.Unit())}))))
		}, "'func.func' op results may only have dialect attributes"},
	}
}

func TestVerifierMessages(t *testing.T) {
	for _, c := range verifyCases() {
		x, m := newBuilder(t)
		c.build(x, m)
		d := ir.Verify(m)
		if d == nil {
			t.Errorf("%s: verifies", c.name)
			continue
		}
		if d.Message != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, d.Message, c.want)
		}
	}
}

// TestVerifierMatchesMLIROpt has mlir-opt-19 verify the same IR (printed
// generically with locations): the error line, the "see current
// operation" note (our printer.OpString of the op) and the other notes
// must be the same.
func TestVerifierMatchesMLIROpt(t *testing.T) {
	for _, c := range verifyCases() {
		t.Run(c.name, func(t *testing.T) {
			x, m := newBuilder(t)
			c.build(x, m)
			d := ir.Verify(m)
			if d == nil {
				t.Fatal("verifies")
			}
			text := print(t, m, printer.Options{Generic: true, DebugInfo: true})
			_, stderr, err := runMLIROpt(t, text)
			if err == nil {
				t.Fatalf("mlir-opt-19 accepts:\n%s", text)
			}
			theirs := withoutSourceLines(stderr)
			ours := []string{d.Error()}
			if d.Op != nil {
				note := printer.OpString(d.Op, printer.Options{Generic: true})
				head := locPrefix(d.Op.Loc()) + "note: see current operation: "
				if strings.Contains(note, "\n") {
					ours = append(ours, head)
					ours = append(ours, strings.Split(note, "\n")...)
				} else {
					ours = append(ours, head+note)
				}
			}
			for _, n := range d.Notes {
				ours = append(ours, n.Error())
			}
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("ours:\n%s\nmlir-opt-19:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
			}
		})
	}
}

// withoutSourceLines drops the quoted source line and caret mlir-opt
// prints under each diagnostic, keeping the messages.
func withoutSourceLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if strings.TrimSpace(line) == "^" && len(out) > 0 {
			out = out[:len(out)-1]
			continue
		}
		out = append(out, line)
	}
	return out
}

func locPrefix(l ir.Location) string {
	f, ok := ir.FileLineColOf(l)
	if !ok {
		return "<unknown>:0: "
	}
	return f.File + ":" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Col) + ": "
}

// BenchmarkVerifyCallChain verifies 10,000 functions, each calling the one
// before: every func.call looks its callee up in the module's symbol
// table, which must be built once, not once per call (it took 85 s; now
// 40 ms).
func BenchmarkVerifyCallChain(b *testing.B) {
	var src strings.Builder
	src.WriteString("func.func @f0(%a: i32) -> i32 {\n  return %a : i32\n}\n")
	for i := 1; i < 10000; i++ {
		src.WriteString("func.func @f" + strconv.Itoa(i) + "(%a: i32) -> i32 {\n  %0 = func.call @f" + strconv.Itoa(i-1) + "(%a) : (i32) -> i32\n  return %0 : i32\n}\n")
	}
	ctx := ir.NewContext()
	if err := Register(ctx); err != nil {
		b.Fatal(err)
	}
	m, err := parser.ParseSourceString(ctx, []byte(src.String()), parser.Config{Filename: "chain.mlir"})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if d := ir.Verify(m); d != nil {
			b.Fatal(d)
		}
	}
}

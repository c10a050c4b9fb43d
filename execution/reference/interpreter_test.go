package reference

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// smallFunc builds @f(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>) returning
// matmul(a, b) and exp of it, inside a module.
func smallFunc(t *testing.T) (*ir.Context, *ir.Operation, *ir.Operation) {
	t.Helper()
	ctx := tensorContext(t)
	ctx.AllowUnregisteredDialects = true
	module := ir.NewModule(ctx, nil)
	fn := ir.NewOperation(ctx, &ir.OperationState{Name: "func.func", NumRegions: 1, Loc: ctx.FileLineCol("f.ipuir", 1, 1),
		Attrs: []ir.NamedAttr{{Name: "sym_name", Value: ctx.String("f")}}})
	ir.ModuleBody(module).Append(fn)
	b := ir.NewBuilder(ctx)
	f16 := ctx.F16()
	blk := b.CreateBlock(fn.Region(0), []ir.Type{ctx.Tensor([]int64{2, 3}, f16), ctx.Tensor([]int64{3, 2}, f16)}, nil)
	m, err := tensor.Build(b, tensor.MatmulOpName, nil, blk.Arguments())
	if err != nil {
		t.Fatal(err)
	}
	e, err := tensor.Build(b, tensor.ExpOpName, nil, []*ir.Value{m})
	if err != nil {
		t.Fatal(err)
	}
	b.Create(&ir.OperationState{Name: ReturnOp, Operands: []*ir.Value{m, e}})
	fn.SetAttr(ctx, "function_type", ctx.TypeAttr(ctx.Function([]ir.Type{blk.Argument(0).Type(), blk.Argument(1).Type()}, []ir.Type{m.Type(), e.Type()})))
	return ctx, module, fn
}

func f16Array(t *testing.T, shape []int, vals ...float64) *eval.Array {
	t.Helper()
	a, err := eval.FromValues(shape, elem.F16, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantError(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %v\nwant one containing %q", err, substr)
	}
}

func TestRunAndObserve(t *testing.T) {
	_, module, _ := smallFunc(t)
	fn, err := LookupFunction(module, "f")
	if err != nil {
		t.Fatal(err)
	}
	a := f16Array(t, []int{2, 3}, 1, 0, 0, 0, 1, 0)
	b := f16Array(t, []int{3, 2}, 0.5, 1, 0, 2, 3, 4)
	var seen []string
	out, err := Run(fn, []*eval.Array{a, b}, &Options{Observe: func(op *ir.Operation, r *eval.Array) {
		seen = append(seen, op.Name()+" "+r.TypeString())
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Data[0] != 0.5 || out[0].Data[3] != 2 || out[1].Data[0] != numeric.RoundF16(1.6487212707001282) {
		t.Fatalf("outputs %v %v", out[0].Data, out[1].Data)
	}
	if strings.Join(seen, "; ") != "tensor.matmul tensor<2x2xf16>; tensor.exp tensor<2x2xf16>" {
		t.Fatalf("observed %v", seen)
	}
}

func TestRunRejectsBadInputs(t *testing.T) {
	_, _, fn := smallFunc(t)
	a := f16Array(t, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := f16Array(t, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	_, err := Run(fn, []*eval.Array{a}, nil)
	wantError(t, err, "f.ipuir:1:1: error: function @f takes 2 inputs, but 1 was given")
	_, err = Run(fn, []*eval.Array{b, b}, nil)
	wantError(t, err, "input #0: value of type 'tensor<3x2xf16>' given for an argument of type 'tensor<2x3xf16>'")
	f32, _ := eval.FromValues([]int{3, 2}, elem.F32, []float64{1, 2, 3, 4, 5, 6})
	_, err = Run(fn, []*eval.Array{a, f32}, nil)
	wantError(t, err, "input #1: value of type 'tensor<3x2xf32>' given for an argument of type 'tensor<3x2xf16>'")
	_, err = Run(fn, []*eval.Array{a, nil}, nil)
	wantError(t, err, "input #1: missing array")
	short := &eval.Array{Shape: []int{3, 2}, Kind: elem.F16, Data: []float64{1}}
	_, err = Run(fn, []*eval.Array{a, short}, nil)
	wantError(t, err, "input #1: array of shape 3x2 holds 1 values, want 6")
	unrounded := &eval.Array{Shape: []int{3, 2}, Kind: elem.F16, Data: []float64{0.1, 0, 0, 0, 0, 0}}
	_, err = Run(fn, []*eval.Array{a, unrounded}, nil)
	wantError(t, err, "input #1: element 0 (0.1) is not a f16 value")
}

func TestRunRejectsUnsupportedFunctions(t *testing.T) {
	ctx, module, fn := smallFunc(t)
	a := f16Array(t, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := f16Array(t, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	// An op of another dialect.
	blk := fn.Region(0).Front()
	foreign := ir.NewOperation(ctx, &ir.OperationState{Name: "other.op", Loc: ctx.FileLineCol("f.ipuir", 3, 5),
		Operands: []*ir.Value{blk.Argument(0)}, ResultTypes: []ir.Type{blk.Argument(0).Type()}})
	blk.InsertBefore(foreign, blk.First())
	_, err := Run(fn, []*eval.Array{a, b}, nil)
	wantError(t, err, "f.ipuir:3:5: error: 'other.op' op cannot be evaluated by the reference interpreter")
	foreign.Erase()
	// No return.
	blk.Last().Erase()
	_, err = Run(fn, []*eval.Array{a, b}, nil)
	wantError(t, err, "function @f has no func.return")
	// No body, and lookups that fail.
	empty := ir.NewOperation(ctx, &ir.OperationState{Name: "func.func", NumRegions: 1})
	_, err = Run(empty, nil, nil)
	wantError(t, err, "'func.func' has no body")
	_, err = LookupFunction(module, "g")
	wantError(t, err, "no function @g in the module (it defines @f)")
	_, err = LookupFunction(ir.NewModule(ctx, nil), "g")
	wantError(t, err, "no function @g: the module defines no symbols")
}

// An op that was never verified fails evaluation with a located message
// rather than a panic.
func TestRunReportsInvalidOps(t *testing.T) {
	ctx, _, fn := smallFunc(t)
	blk := fn.Region(0).Front()
	m := blk.First()
	bad := ir.NewOperation(ctx, &ir.OperationState{Name: tensor.TransposeOpName, Loc: ctx.FileLineCol("f.ipuir", 4, 9),
		Operands: []*ir.Value{m.Result(0)}, ResultTypes: []ir.Type{m.Result(0).Type()},
		Attrs: []ir.NamedAttr{{Name: tensor.PermutationAttr, Value: tensor.I64Array(ctx, 0, 0)}}})
	blk.InsertBefore(bad, m.Next())
	a := f16Array(t, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := f16Array(t, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	_, err := Run(fn, []*eval.Array{a, b}, nil)
	wantError(t, err, "f.ipuir:4:9: error: 'tensor.transpose' op permutation [0, 0] is not a permutation of 0..1: 0 repeats")
}

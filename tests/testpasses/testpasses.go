// Package testpasses holds passes that exist to test the pass manager and
// the rewrite drivers: a pass that fails, one that breaks the IR, one that
// crashes, one that reports remarks, one with an option of every kind and
// one that runs a dialect conversion on the test dialect. ipu-opt built
// with the `ipuir_testing` build tag registers them, as mlir-opt registers
// MLIR's test passes, so that the behaviour tests under tests/passes can
// reach them; the shipped ipu-opt does not.
package testpasses

import (
	"errors"
	"fmt"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/testdialect"
)

// Register adds the test passes to r.
func Register(r *passes.Registry) error {
	for _, p := range []passes.Pass{&TestFailurePass{}, &TestCreateInvalidIRPass{}, &TestCrashPass{}, &TestRemarksPass{}, &TestOptionsPass{}, &TestLegalizePass{}, &TestFuncRemarksPass{}} {
		if err := r.RegisterInGroup("Test Passes", p); err != nil {
			return err
		}
	}
	return nil
}

// TestFailurePass fails on every op it runs on.
type TestFailurePass struct{}

func (*TestFailurePass) Name() string    { return "test-pass-failure" }
func (*TestFailurePass) Summary() string { return "Test a pass in the pass manager that always fails" }
func (*TestFailurePass) Anchor() string  { return "" }
func (*TestFailurePass) Run(*ir.Operation, *passes.PassContext) error {
	return errors.New("test-pass-failure failed as asked")
}

// TestCreateInvalidIRPass adds a test.constant without its value to the first
// block of the op's first region, which the verifier rejects.
type TestCreateInvalidIRPass struct{}

func (*TestCreateInvalidIRPass) Name() string { return "test-pass-create-invalid-ir" }
func (*TestCreateInvalidIRPass) Summary() string {
	return "Test pass that adds an invalid operation in a function body"
}
func (*TestCreateInvalidIRPass) Anchor() string { return "" }
func (*TestCreateInvalidIRPass) Run(op *ir.Operation, pc *passes.PassContext) error {
	if op.NumRegions() == 0 || op.Region(0).Empty() {
		return nil
	}
	b := ir.NewBuilder(pc.Context())
	b.SetInsertionPointToStart(op.Region(0).Front())
	b.Create(&ir.OperationState{Name: testdialect.Constant, Loc: op.Loc(), ResultTypes: []ir.Type{pc.Context().I(32)}})
	return nil
}

// TestCrashPass panics, as a pass with a bug would.
type TestCrashPass struct{}

func (*TestCrashPass) Name() string    { return "test-pass-crash" }
func (*TestCrashPass) Summary() string { return "Test a pass in the pass manager that always crashes" }
func (*TestCrashPass) Anchor() string  { return "" }
func (*TestCrashPass) Run(*ir.Operation, *passes.PassContext) error {
	panic("BUG: test-pass-crash crashed as asked")
}

// TestRemarksPass emits a remark naming each op it runs on, so that tests can see
// that diagnostics of parallel runs arrive in IR order.
type TestRemarksPass struct {
	Visited passes.Statistic `statistic:"num-visited" help:"Number of ops visited"`
}

func (*TestRemarksPass) Name() string    { return "test-remarks" }
func (*TestRemarksPass) Summary() string { return "Emit a remark on each op the pass runs on" }
func (*TestRemarksPass) Anchor() string  { return "" }
func (r *TestRemarksPass) Run(op *ir.Operation, pc *passes.PassContext) error {
	r.Visited.Inc()
	name := ""
	if s, ok := ir.SymbolName(op); ok {
		name = " @" + s
	}
	pc.Emit(&ir.Diagnostic{Severity: ir.SeverityRemark, Loc: op.Loc(), Message: fmt.Sprintf("visited '%s'%s", op.Name(), name)})
	return nil
}

// Choice is an enumerated option value.
type Choice int

var choiceNames = []string{"zero", "one"}

func (c *Choice) String() string { return choiceNames[*c] }
func (c *Choice) Set(s string) error {
	for i, n := range choiceNames {
		if n == s {
			*c = Choice(i)
			return nil
		}
	}
	return fmt.Errorf("Cannot find option named '%s'!", s)
}
func (*Choice) Choices() []passes.Choice {
	return []passes.Choice{{Value: "zero", Help: "Example zero value"}, {Value: "one", Help: "Example one value"}}
}

// TestOptionsPass has an option of every kind and does nothing.
type TestOptionsPass struct {
	Flag    bool     `pass:"flag" help:"Example boolean option"`
	Count   int      `pass:"count" help:"Example integer option" default:"4"`
	Small   int32    `pass:"small" help:"Example 32-bit integer option"`
	Unsign  uint     `pass:"unsigned" help:"Example unsigned option"`
	Ratio   float64  `pass:"ratio" help:"Example float option" default:"0.5"`
	Str     string   `pass:"string" help:"Example string option"`
	List    []int64  `pass:"list" help:"Example list option"`
	Strings []string `pass:"string-list" help:"Example string list option"`
	Enum    Choice   `pass:"enum" help:"Example enum option" default:"zero"`
}

func (*TestOptionsPass) Name() string                                 { return "test-options" }
func (*TestOptionsPass) Summary() string                              { return "Test pass with options of every kind" }
func (*TestOptionsPass) Anchor() string                               { return "" }
func (*TestOptionsPass) Run(*ir.Operation, *passes.PassContext) error { return nil }

// TestLegalizePass runs a dialect conversion on the test dialect: index-typed
// test.add becomes i64-typed test.add (index converts to i64), test.neg x
// becomes test.sub 0, x, and test.flip is illegal with no pattern, so
// that its presence makes the conversion fail.
type TestLegalizePass struct {
	Full bool `pass:"full" help:"Run a full conversion: every op must end legal"`
}

func (*TestLegalizePass) Name() string { return "test-legalize" }
func (*TestLegalizePass) Summary() string {
	return "Test the dialect conversion framework on the test dialect"
}
func (*TestLegalizePass) Anchor() string { return "" }

// IndexToI64 is the test conversions' type converter: index becomes i64,
// every other type stays.
func IndexToI64(ctx *ir.Context) *passes.TypeConverter {
	tc := &passes.TypeConverter{}
	tc.AddConversion(func(t ir.Type) (ir.Type, bool) { return t, true })
	tc.AddConversion(func(t ir.Type) (ir.Type, bool) {
		if _, ok := t.(*ir.IndexType); ok {
			return ctx.I(64), true
		}
		return nil, false
	})
	return tc
}

func (l *TestLegalizePass) Run(op *ir.Operation, pc *passes.PassContext) error {
	ctx := pc.Context()
	tc := IndexToI64(ctx)
	target := passes.NewConversionTarget()
	target.AddLegalDialect("builtin", "func", "test")
	target.AddDynamicallyLegalOp(testdialect.Add, func(o *ir.Operation) bool { return tc.AreLegal(o.ResultTypes()) })
	target.AddIllegalOp(testdialect.Neg, testdialect.Flip)
	patterns := passes.NewPatternSet(
		&passes.ConversionPattern{PatternName: "test-add-index-to-i64", RootOp: testdialect.Add,
			Rewrite: func(o *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
				rw.ReplaceOpWithNew(o, &ir.OperationState{Name: testdialect.Add, Loc: o.Loc(), Operands: operands,
					ResultTypes: []ir.Type{operands[0].Type()}})
				return true
			}},
		&passes.ConversionPattern{PatternName: "test-neg-to-sub", RootOp: testdialect.Neg,
			Rewrite: func(o *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
				rw.SetInsertionPoint(o)
				zero := testdialect.Const(&rw.Builder, operands[0].Type(), 0)
				rw.ReplaceOp(o, []*ir.Value{testdialect.Binary(&rw.Builder, testdialect.Sub, zero, operands[0])})
				return true
			}},
	)
	if l.Full {
		return passes.ApplyFullConversion(op, target, patterns, tc)
	}
	return passes.ApplyPartialConversion(op, target, patterns, tc)
}

// TestFuncRemarksPass is anchored on func.func: given as a flag on a
// module it must nest, as mlir-opt nests passes given as flags.
type TestFuncRemarksPass struct{}

func (*TestFuncRemarksPass) Name() string { return "test-func-remarks" }
func (*TestFuncRemarksPass) Summary() string {
	return "Emit a remark on each func.func (anchored on func.func)"
}
func (*TestFuncRemarksPass) Anchor() string { return "func.func" }
func (*TestFuncRemarksPass) Run(op *ir.Operation, pc *passes.PassContext) error {
	name, _ := ir.SymbolName(op)
	pc.Emit(&ir.Diagnostic{Severity: ir.SeverityRemark, Loc: op.Loc(), Message: "on function @" + name})
	return nil
}

package tests

import (
	"fmt"
	"testing"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// The planner's price of a matmul's AMP work and the simulated device's
// are one function (target.AMPCycles): for matmuls of both element types,
// both orientations, batched or not, with weights in either memory class,
// the compute cycles tiled-estimate gives the tiled.matmul equal the
// cycles the device charges its AMP instruction. Were a second copy of the
// formula to creep into either side (the planner's double charge of
// standard-memory weights was one), this fails.
func TestPlannerAndDevicePriceTheAMPAlike(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, op, x, w, y, attrs string }{
		{"f16", "matmul", "96x64xf16", "64x128xf16", "96x128xf16", ""},
		{"f16 with f16 partials", "matmul", "96x256xf16", "256x128xf16", "96x128xf16", " {partials_type = f16}"},
		{"f16 with f32 partials declared", "matmul", "96x256xf16", "256x128xf16", "96x128xf16", " {partials_type = f32}"},
		{"f32", "matmul", "96x64xf32", "64x128xf32", "96x128xf32", ""},
		{"few rows, many columns", "matmul", "8x256xf16", "256x512xf16", "8x512xf16", ""},
		{"many rows, few columns", "matmul", "512x96xf16", "96x16xf16", "512x16xf16", ""},
		{"batched", "batch_matmul", "4x48x64xf16", "4x64x80xf16", "4x48x80xf16", ""},
		{"batched, f16 partials", "batch_matmul", "4x48x64xf16", "4x64x80xf16", "4x48x80xf16", " {partials_type = f16}"},
	}
	var compared int
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf(`module attributes {ipu.target = "test16"} {
  func.func @f(%%x: tensor<%[1]s>, %%w: tensor<%[2]s>) -> tensor<%[3]s> {
    %%y = tensor.%[4]s %%x, %%w%[5]s : tensor<%[1]s>, tensor<%[2]s> -> tensor<%[3]s>
    return %%y : tensor<%[3]s>
  }
}
`, c.x, c.w, c.y, c.op, c.attrs)
			estimated := matmulComputeEstimates(t, src, tg)
			pkg, reason, err := compileProgram(src, tg)
			if err != nil || reason != "" {
				t.Fatalf("compile: %v %s", err, reason)
			}
			fn, inputs, err := generatedInputs(src, "f", 1)
			if err != nil {
				t.Fatal(err)
			}
			rep, cycles, err := runAndCheckOnDevice(pkg, fn, tg, inputs)
			if err != nil || !rep.Pass() {
				t.Fatalf("run: %v %v", err, rep)
			}
			var charged []int64
			for _, op := range cycles.Ops {
				if op.Op == "amp" {
					charged = append(charged, op.Cycles)
				}
			}
			if len(charged) != len(estimated) || len(charged) == 0 {
				t.Fatalf("%d AMP instructions for %d planned matmuls", len(charged), len(estimated))
			}
			for i := range charged {
				if charged[i] != estimated[i] {
					t.Errorf("matmul %d: the planner prices its AMP work at %d cycles, the device charges %d", i, estimated[i], charged[i])
				}
				compared++
			}
		})
	}
	t.Logf("%d matmuls: planner and device agree on every AMP price", compared)
}

// matmulComputeEstimates lowers src to the tiled level and returns each
// tiled.matmul's estimated compute cycles, in program order.
func matmulComputeEstimates(t *testing.T, src string, tg *target.Target) []int64 {
	t.Helper()
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "matmul.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := registry.NewPassRegistry().ParsePipeline(registry.ModulePipeline(registry.LowerTensorToTiled))
	if err != nil {
		t.Fatal(err)
	}
	popts := passes.DefaultOptions()
	popts.Env = irtarget.EnvKey.With(nil, tg)
	if err := passes.NewPassManager(ctx, pm, popts).Run(module); err != nil {
		t.Fatal(err)
	}
	var out []int64
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(tiled.MatmulOp) {
			e, ok := op.Attr(tiled.EstimateAttrName).(*tiled.EstimateAttr)
			if !ok {
				t.Fatalf("%s has no estimate", ir.DescribeOp(op))
			}
			out = append(out, e.Estimate.ComputeCycles)
		}
		return ir.WalkAdvance
	})
	return out
}

package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// NarrowF64 is the `narrow-f64` pass: the machines have no binary64
// arithmetic, so the program's f64 values are computed as f32
// (tensor.NarrowF64), as narrow-i64 does for i64. Constants are rounded
// to f32 and refused beyond its range. The package's host streams keep
// f64: a runner rounds each input and widens each output, and --check
// measures the outputs against the f64 reference. It runs first in
// lower-tensor-to-tiled; a program without f64 is unchanged, and so is one
// whose module asks for binary64 (ipu.f64 = "binary64"), whose f64 values
// the tiles then compute in software.
type NarrowF64 struct {
	NumNarrowed passes.Statistic `statistic:"num-narrowed" help:"Number of f64 values computed as f32"`
}

func (*NarrowF64) Name() string { return "narrow-f64" }
func (*NarrowF64) Summary() string {
	return "Compute f64 values as f32 (the machines have no binary64 hardware) unless the module asks for binary64 in software (ipu.f64 = \"binary64\"); constants must be within f32's range"
}
func (*NarrowF64) Anchor() string { return "" }

func (p *NarrowF64) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.NarrowF64(op)
	p.NumNarrowed.Add(uint64(n))
	return err
}

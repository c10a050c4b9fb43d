package reference

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// Generator describes seeded inputs: a distribution and its parameters.
// Input i of a function is drawn with seed Seed+i, so that inputs differ
// from each other and the whole set is named by one number.
//
// By default an input that a matmul multiplies by (a weight, the right
// operand) is scaled by 1/√fan-in, its contracting size, as networks are
// initialised: unit-variance 1152×1152 weights would take the attention
// block's f16 activations to the edge of overflow and make its outputs
// meaningless. scale=none draws every input as the distribution says.
type Generator struct {
	// Distribution is "gaussian" (Mean, Stddev) or "uniform" (Lo, Hi).
	Distribution string
	Seed         uint64
	Mean, Stddev float64
	Lo, Hi       float64
	// NoFanInScale turns the fan-in scaling off (scale=none).
	NoFanInScale bool
}

// ParseGenerator reads a generator spec:
//
//	gaussian:seed=1[,mean=0][,stddev=1][,scale=fan-in|none]
//	uniform:seed=1[,lo=-1][,hi=1][,scale=fan-in|none]
//
// The seed is required, so that a generated input is always reproducible
// from the command line that made it.
func ParseGenerator(spec string) (*Generator, error) {
	dist, params, _ := strings.Cut(spec, ":")
	g := &Generator{Distribution: dist}
	allowed := map[string]*float64{}
	switch dist {
	case "gaussian":
		g.Stddev = 1
		allowed["mean"], allowed["stddev"] = &g.Mean, &g.Stddev
	case "uniform":
		g.Lo, g.Hi = -1, 1
		allowed["lo"], allowed["hi"] = &g.Lo, &g.Hi
	default:
		return nil, fmt.Errorf("generator %q: unknown distribution %q (want gaussian or uniform)", spec, dist)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(params, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("generator %q: %q is not key=value", spec, kv)
		}
		if seen[k] {
			return nil, fmt.Errorf("generator %q: %s given twice", spec, k)
		}
		seen[k] = true
		if k == "scale" {
			switch v {
			case "fan-in":
			case "none":
				g.NoFanInScale = true
			default:
				return nil, fmt.Errorf("generator %q: scale must be fan-in or none, got %q", spec, v)
			}
			continue
		}
		if k == "seed" {
			s, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("generator %q: seed %q is not an unsigned integer", spec, v)
			}
			g.Seed = s
			continue
		}
		dst, ok := allowed[k]
		if !ok {
			return nil, fmt.Errorf("generator %q: unknown parameter %q for %s", spec, k, dist)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("generator %q: %s=%q is not a finite number", spec, k, v)
		}
		*dst = f
	}
	if !seen["seed"] {
		return nil, fmt.Errorf("generator %q: seed=N is required", spec)
	}
	return g, nil
}

// Generate draws one input per type, each rounded to its element kind;
// fanIn[i], when positive, scales input i by 1/√fanIn[i] (see FanIns; nil
// scales nothing).
func (g *Generator) Generate(types []ir.Type, fanIn []int) ([]*eval.Array, error) {
	out := make([]*eval.Array, len(types))
	for i, t := range types {
		shape, k, err := shapeAndKind(t)
		if err != nil {
			return nil, fmt.Errorf("input #%d: %v", i, err)
		}
		a, err := eval.New(shape, k)
		if err != nil {
			return nil, fmt.Errorf("input #%d: %v", i, err)
		}
		seed := g.Seed + uint64(i)
		scale := 1.0
		if !g.NoFanInScale && i < len(fanIn) && fanIn[i] > 0 {
			scale = 1 / math.Sqrt(float64(fanIn[i]))
		}
		switch g.Distribution {
		case "gaussian":
			err = numeric.FillGaussian(a.Data, seed, g.Mean*scale, g.Stddev*scale)
		case "uniform":
			err = numeric.FillUniform(a.Data, seed, g.Lo*scale, g.Hi*scale)
		default:
			err = fmt.Errorf("unknown distribution %q", g.Distribution)
		}
		if err != nil {
			return nil, fmt.Errorf("input #%d: %v", i, err)
		}
		numeric.RoundSlice(a.Data, k)
		out[i] = a
	}
	return out, nil
}

// FanIns returns, for each argument of fn, its fan-in when a matmul or
// batch matmul multiplies by it (it is the right operand, directly or
// through element type conversions, as matmul-precision leaves it): the
// contracting size, its next-to-last dimension. 0 for other arguments.
func FanIns(fn *ir.Operation) []int {
	body, err := functionBody(fn)
	if err != nil {
		return nil
	}
	out := make([]int, body.NumArguments())
	for i, a := range body.Arguments() {
		rt, ok := a.Type().(*ir.RankedTensorType)
		if !ok || len(rt.Dims) < 2 {
			continue
		}
		var visit func(v *ir.Value, depth int)
		visit = func(v *ir.Value, depth int) {
			v.Uses(func(u *ir.OpOperand) {
				switch {
				case u.Index() == 1 && u.Owner().Is(tensor.MatmulOp, tensor.BatchMatmulOp):
					out[i] = max(out[i], int(rt.Dims[len(rt.Dims)-2]))
				case u.Owner().Is(tensor.ConvertOp) && depth < 4:
					visit(u.Owner().Result(0), depth+1)
				}
			})
		}
		visit(a, 0)
	}
	return out
}

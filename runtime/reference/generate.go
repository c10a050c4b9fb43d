package reference

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// Generator describes seeded inputs: a distribution and its parameters.
// Input i of a function is drawn with seed Seed+i, so that inputs differ
// from each other and the whole set is named by one number.
type Generator struct {
	// Distribution is "gaussian" (Mean, Stddev) or "uniform" (Lo, Hi).
	Distribution string
	Seed         uint64
	Mean, Stddev float64
	Lo, Hi       float64
}

// ParseGenerator reads a generator spec:
//
//	gaussian:seed=1[,mean=0][,stddev=1]
//	uniform:seed=1[,lo=-1][,hi=1]
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

// Generate draws one input per type, each rounded to its element kind.
func (g *Generator) Generate(types []ir.Type) ([]*eval.Array, error) {
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
		switch g.Distribution {
		case "gaussian":
			err = numeric.FillGaussian(a.Data, seed, g.Mean, g.Stddev)
		case "uniform":
			err = numeric.FillUniform(a.Data, seed, g.Lo, g.Hi)
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

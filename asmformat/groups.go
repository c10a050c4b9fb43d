package asmformat

import "github.com/ipuir/ipuir/ir"

// Segment-size attributes say how many values each operand or result
// group has when more than one group is optional or variadic, as in MLIR.
const (
	operandSegmentsAttr = "operandSegmentSizes"
	resultSegmentsAttr  = "resultSegmentSizes"
)

// groupStarts splits n values over declared groups and returns where each
// group starts (len(defs)+1 entries, the last being n). Singles take one
// value, a lone optional or variadic group the rest, and several of them
// follow the segment sizes. ok is false when the values do not fit.
func groupStarts(defs []ir.ValueDef, n int, segments ir.Attribute) ([]int, bool) {
	starts := make([]int, len(defs)+1)
	if seg, isSeg := segments.(*ir.DenseArrayAttr); isSeg && len(seg.Ints) == len(defs) {
		for i, s := range seg.Ints {
			starts[i+1] = starts[i] + int(s)
		}
		return starts, starts[len(defs)] == n
	}
	flexible, fixed := -1, 0
	for i, d := range defs {
		if d.Kind == ir.Single {
			fixed++
		} else if flexible >= 0 {
			return nil, false
		} else {
			flexible = i
		}
	}
	rest := n - fixed
	if rest < 0 || flexible < 0 && rest != 0 {
		return nil, false
	}
	for i, d := range defs {
		size := 1
		if i == flexible {
			size = rest
		} else if d.Kind != ir.Single {
			size = 0
		}
		starts[i+1] = starts[i] + size
	}
	return starts, true
}

// group returns the values of group i, or nil when the op does not fit
// its definition (custom printers see only verified ops; this keeps an
// unverified one from panicking).
func group(vals []*ir.Value, defs []ir.ValueDef, i int, segments ir.Attribute) []*ir.Value {
	starts, ok := groupStarts(defs, len(vals), segments)
	if !ok {
		return nil
	}
	return vals[starts[i]:starts[i+1]]
}

func types(vals []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(vals))
	for i, v := range vals {
		out[i] = v.Type()
	}
	return out
}

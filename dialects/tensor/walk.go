package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Value is what a Walker knows of one SSA value: the array the dialect's
// semantics computes and, when the walk bounds errors, a bound per
// element (float64, the array's shape) on how far a device's value may lie
// from it. A nil Bound is an exact value.
type Value struct {
	Array *eval.Array
	Bound *eval.Array
}

// Walker evaluates a block of tensor-dialect ops in order: the reference
// interpreter's loop, and the accuracy analysis's (Bound) when Bounds is
// set. Values are dropped after their last use, so a block needs the
// memory of what is live at once, not of every value it makes.
type Walker struct {
	// Bounds asks for each value's error bound (see Bound) besides its
	// array.
	Bounds bool
	// Reserve is called before each result is computed (with the result's
	// type) and may refuse it; Release is called with the type of each
	// value dropped. Either may be nil.
	Reserve func(op *ir.Operation, t ir.Type) error
	Release func(t ir.Type)
	// After, when set, sees each op's value as soon as it is computed,
	// and may replace it: a checker puts a device's value (exact) in the
	// reference's place there.
	After func(op *ir.Operation, v *Value) error
}

// Run evaluates body's ops from args (one per block argument; the caller
// has checked their types) up to its return-like terminator, if any, and
// returns the values of want, in order.
func (w *Walker) Run(body *ir.Block, args []Value, want []*ir.Value) ([]Value, error) {
	values := make(map[*ir.Value]Value, len(args)+body.NumOps())
	for i, a := range body.Arguments() {
		values[a] = args[i]
	}
	kept := make(map[*ir.Value]bool, len(want))
	for _, v := range want {
		kept[v] = true
	}
	last := map[*ir.Value]*ir.Operation{}
	for _, op := range body.Ops() {
		for _, v := range op.Operands() {
			last[v] = op
		}
	}
	for _, op := range body.Ops() {
		if op.HasTrait(ir.TraitReturnLike) {
			break
		}
		if !Evaluates(op) {
			return nil, op.EmitOpError("cannot be evaluated by the reference interpreter (only tensor dialect ops and func.return can)")
		}
		if op.NumResults() != 1 || op.NumRegions() != 0 {
			return nil, op.EmitOpError("has %d results and %d regions; the interpreter evaluates ops of one result and no regions",
				op.NumResults(), op.NumRegions())
		}
		in := make([]*eval.Array, op.NumOperands())
		var errs []*eval.Array
		if w.Bounds {
			errs = make([]*eval.Array, op.NumOperands())
		}
		for i, v := range op.Operands() {
			x, ok := values[v]
			if !ok {
				return nil, op.EmitOpError("operand #%d is not defined before its use in the function body", i)
			}
			in[i] = x.Array
			if w.Bounds {
				errs[i] = x.Bound
			}
		}
		if w.Reserve != nil {
			if err := w.Reserve(op, op.Result(0).Type()); err != nil {
				return nil, op.EmitOpError("%v", err)
			}
		}
		res, err := Evaluate(op, in)
		if err != nil {
			return nil, op.EmitOpError("%v", err)
		}
		v := Value{Array: res}
		if w.Bounds {
			if v.Bound, err = Bound(op, in, errs, res); err != nil {
				return nil, op.EmitOpError("its error bound: %v", err)
			}
		}
		if w.After != nil {
			if err := w.After(op, &v); err != nil {
				return nil, err
			}
		}
		values[op.Result(0)] = v
		for _, u := range op.Operands() {
			if _, held := values[u]; held && last[u] == op && !kept[u] && !u.IsBlockArgument() {
				delete(values, u)
				if w.Release != nil {
					w.Release(u.Type())
				}
			}
		}
	}
	out := make([]Value, len(want))
	for i, v := range want {
		x, ok := values[v]
		if !ok {
			if parent := body.ParentOp(); parent != nil {
				return nil, parent.EmitError("result #%d is not computed by the function body", i)
			}
			return nil, fmt.Errorf("value #%d is not computed by the block", i)
		}
		out[i] = x
	}
	return out, nil
}

package reference

import (
	"fmt"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/ir"
)

// ReturnOp is the terminator whose operands are a function's results.
const ReturnOp = "func.return"

// Options tune a run. The zero value is a plain run.
type Options struct {
	// Observe, when set, is called after each op with its result, in
	// program order: the hook for checkpoints that compare a device's
	// intermediate values with the interpreter's. The array must not be
	// modified.
	Observe func(op *ir.Operation, result *eval.Array)

	// MemoryLimit bounds the bytes of values held at once (inputs and
	// live results, 8 bytes an element); 0 means DefaultMemoryLimit. Kernels
	// need scratch of at most their operands' size on top.
	MemoryLimit int64
}

// Run evaluates fn, a function whose body is one block of tensor-dialect
// ops ending in func.return, on inputs (one per block argument, each
// matching the argument's type), and returns the returned values.
func Run(fn *ir.Operation, inputs []*eval.Array, opts *Options) ([]*eval.Array, error) {
	if opts == nil {
		opts = &Options{}
	}
	body, err := functionBody(fn)
	if err != nil {
		return nil, err
	}
	args := body.Arguments()
	if len(inputs) != len(args) {
		return nil, fn.EmitError("%s takes %d %s, but %d %s given", describeFn(fn), len(args),
			plural(len(args), "input"), len(inputs), plural(len(inputs), "was", "were"))
	}
	values := make(map[*ir.Value]*eval.Array, len(args)+body.NumOps())
	budget := newMemoryBudget(opts.MemoryLimit)
	for i, a := range args {
		if err := budget.reserve(fmt.Sprintf("input #%d", i), a.Type()); err != nil {
			return nil, fn.EmitError("%v", err)
		}
		if err := CheckInput(inputs[i], a.Type()); err != nil {
			return nil, fn.EmitError("input #%d: %v", i, err)
		}
		values[a] = inputs[i]
	}
	lastUse := lastUses(body)
	ops := body.Ops()
	for idx, op := range ops {
		if op.HasTrait(ir.TraitReturnLike) {
			if idx != len(ops)-1 {
				return nil, op.EmitOpError("must be the last operation in the function body")
			}
			out := make([]*eval.Array, op.NumOperands())
			for i, v := range op.Operands() {
				out[i] = values[v]
			}
			return out, nil
		}
		if !tensor.Evaluates(op) {
			return nil, op.EmitOpError("cannot be evaluated by the reference interpreter (only tensor dialect ops and func.return can)")
		}
		if op.NumResults() != 1 || op.NumRegions() != 0 {
			return nil, op.EmitOpError("has %d results and %d regions; the interpreter evaluates ops of one result and no regions",
				op.NumResults(), op.NumRegions())
		}
		in := make([]*eval.Array, op.NumOperands())
		for i, v := range op.Operands() {
			a, ok := values[v]
			if !ok {
				return nil, op.EmitOpError("operand #%d is not defined before its use in the function body", i)
			}
			in[i] = a
		}
		if err := budget.reserve("the result", op.Result(0).Type()); err != nil {
			return nil, op.EmitOpError("%v", err)
		}
		res, err := tensor.Evaluate(op, in)
		if err != nil {
			return nil, op.EmitOpError("%v", err)
		}
		values[op.Result(0)] = res
		if opts.Observe != nil {
			opts.Observe(op, res)
		}
		// Drop values no later op needs: the attention block's 16×729×729
		// scores would otherwise pile up.
		for _, v := range op.Operands() {
			if _, held := values[v]; held && lastUse[v] == op && !v.IsBlockArgument() {
				delete(values, v)
				budget.release(v.Type())
			}
		}
	}
	return nil, fn.EmitError("%s has no %s", describeFn(fn), ReturnOp)
}

// functionBody returns the single block of fn's single region.
func functionBody(fn *ir.Operation) (*ir.Block, error) {
	if fn.NumRegions() != 1 || fn.Region(0).Empty() {
		return nil, fn.EmitError("%s has no body", describeFn(fn))
	}
	blocks := fn.Region(0).Blocks()
	if len(blocks) != 1 {
		return nil, fn.EmitError("%s has %d blocks; the interpreter runs single-block functions", describeFn(fn), len(blocks))
	}
	return blocks[0], nil
}

// lastUses maps each value used in body to the last op that uses it.
func lastUses(body *ir.Block) map[*ir.Value]*ir.Operation {
	last := map[*ir.Value]*ir.Operation{}
	for _, op := range body.Ops() {
		for _, v := range op.Operands() {
			last[v] = op
		}
	}
	return last
}

func describeFn(fn *ir.Operation) string {
	if name, ok := ir.SymbolName(fn); ok {
		return "function @" + name
	}
	return "'" + fn.Name() + "'"
}

// plural picks the singular or plural word for n: plural(n, "input") adds
// an s; plural(n, "was", "were") chooses.
func plural(n int, forms ...string) string {
	if n == 1 {
		return forms[0]
	}
	if len(forms) > 1 {
		return forms[1]
	}
	return forms[0] + "s"
}

// LookupFunction finds the function called name among module's top-level
// symbols.
func LookupFunction(module *ir.Operation, name string) (*ir.Operation, error) {
	if module.NumRegions() != 1 || module.Region(0).Empty() {
		return nil, module.EmitError("module has no body")
	}
	var names []string
	for _, op := range module.Region(0).Front().Ops() {
		if n, ok := ir.SymbolName(op); ok {
			if n == name {
				return op, nil
			}
			names = append(names, "@"+n)
		}
	}
	if len(names) == 0 {
		return nil, module.EmitError("no function @%s: the module defines no symbols", name)
	}
	return nil, module.EmitError("no function @%s in the module (it defines %s)", name, joinNames(names))
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// ArgumentTypes returns the types of fn's inputs (its entry block's
// arguments).
func ArgumentTypes(fn *ir.Operation) ([]ir.Type, error) {
	body, err := functionBody(fn)
	if err != nil {
		return nil, err
	}
	types := make([]ir.Type, body.NumArguments())
	for i, a := range body.Arguments() {
		types[i] = a.Type()
	}
	return types, nil
}

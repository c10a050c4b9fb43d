package reference

import (
	"fmt"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/eval"
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

	// Bounds makes RunValues carry, beside each value, a bound per element
	// on how far a device's value may lie from it (tensor.Bound): the
	// accuracy analysis. It doubles the memory a value takes.
	Bounds bool
	// After, when set, sees each op's value (and bound) as it is computed
	// and may replace it: a checker puts a device's value there so that
	// the ops after it are evaluated on the device's inputs.
	After func(op *ir.Operation, v *tensor.Value) error

	// MemoryLimit bounds the bytes of values held at once (inputs and
	// live results, 8 bytes an element, 16 with Bounds); 0 means
	// DefaultMemoryLimit. Kernels need scratch of at most their operands'
	// size on top.
	MemoryLimit int64
}

// Run evaluates fn, a function whose body is one block of tensor-dialect
// ops ending in func.return, on inputs (one per block argument, each
// matching the argument's type), and returns the returned values.
func Run(fn *ir.Operation, inputs []*eval.Array, opts *Options) ([]*eval.Array, error) {
	vals, err := RunValues(fn, inputs, opts)
	if err != nil {
		return nil, err
	}
	out := make([]*eval.Array, len(vals))
	for i, v := range vals {
		out[i] = v.Array
	}
	return out, nil
}

// RunValues is Run returning each result with its bound (with
// Options.Bounds; inputs are exact).
func RunValues(fn *ir.Operation, inputs []*eval.Array, opts *Options) ([]tensor.Value, error) {
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
	budget := newMemoryBudget(opts.MemoryLimit)
	if opts.Bounds {
		budget.copies = 2
	}
	in := make([]tensor.Value, len(args))
	for i, a := range args {
		if err := budget.reserve(fmt.Sprintf("input #%d", i), a.Type()); err != nil {
			return nil, fn.EmitError("%v", err)
		}
		if err := CheckInput(inputs[i], a.Type()); err != nil {
			return nil, fn.EmitError("input #%d: %v", i, err)
		}
		in[i] = tensor.Value{Array: inputs[i]}
	}
	term := body.Last()
	if term == nil || !term.HasTrait(ir.TraitReturnLike) {
		return nil, fn.EmitError("%s has no %s", describeFn(fn), ReturnOp)
	}
	for _, op := range body.Ops() {
		if op.HasTrait(ir.TraitReturnLike) && op != term {
			return nil, op.EmitOpError("must be the last operation in the function body")
		}
	}
	w := &tensor.Walker{
		Bounds:  opts.Bounds,
		Reserve: func(_ *ir.Operation, t ir.Type) error { return budget.reserve("the result", t) },
		Release: budget.release,
		After: func(op *ir.Operation, v *tensor.Value) error {
			if opts.Observe != nil {
				opts.Observe(op, v.Array)
			}
			if opts.After != nil {
				return opts.After(op, v)
			}
			return nil
		},
	}
	return w.Run(body, in, term.Operands())
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

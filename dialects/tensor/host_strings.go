package tensor

import "github.com/ipuir/ipuir/ir"

// Argument and result attributes of a function whose strings the host
// converts at its streams (HostStrings).
const (
	// HostParseAttr marks an argument the host reads as strings and
	// parses into numbers of the argument's type.
	HostParseAttr = "ipu.host_parse"
	// HostFormatAttr marks a result the host formats as strings.
	HostFormatAttr = "ipu.host_format"
)

// HostStrings moves the string conversions at a function's edges to the
// host, as the narrowing passes move i64 and f64 to their streams: an
// argument of strings that only tensor.string_parse reads (to one type)
// becomes an argument of that type, marked HostParseAttr, and a result
// that tensor.string_format makes from numbers becomes those numbers,
// marked HostFormatAttr. The host parses and formats at the streams (the
// package's text streams) with the same rules as the ops
// (eval.ParseNumbers, eval.FormatNumbers), so a model that reads numbers
// as text, or writes them so, runs on the tiles; strings anywhere else
// stay, and the lowering refuses them by name. It returns how many
// arguments and results it moved.
func HostStrings(root *ir.Operation) int {
	ctx := root.Context()
	moved := 0
	root.Walk(func(fn *ir.Operation) ir.WalkResult {
		ft, ok := fn.Attr("function_type").(*ir.TypeAttr)
		if !ok || fn.NumRegions() != 1 || fn.Region(0).Empty() {
			return ir.WalkAdvance
		}
		f, ok := ft.T.(*ir.FunctionType)
		if !ok {
			return ir.WalkAdvance
		}
		body := fn.Region(0).Blocks()[0]
		ins, outs := append([]ir.Type(nil), f.Inputs...), append([]ir.Type(nil), f.Results...)
		for i, a := range body.Arguments() {
			if !IsStringTensor(a.Type()) || !a.HasUses() || i >= len(ins) {
				continue
			}
			var to ir.Type
			only := true
			for _, u := range a.Users() {
				if !u.Is(StringParseOp) || (to != nil && u.Result(0).Type() != to) {
					only = false
					break
				}
				to = u.Result(0).Type()
			}
			if !only {
				continue
			}
			for _, u := range a.Users() {
				u.Result(0).ReplaceAllUsesWith(a)
				u.Erase()
			}
			a.SetType(to)
			ins[i] = to
			ir.SetArgumentAttr(ctx, fn, i, len(ins), HostParseAttr, ctx.Unit())
			moved++
		}
		term := body.Last()
		if term != nil && term.HasTrait(ir.TraitReturnLike) {
			for i, v := range term.Operands() {
				def := v.DefiningOp()
				if def == nil || !def.Is(StringFormatOp) || i >= len(outs) {
					continue
				}
				term.SetOperand(i, def.Operand(0))
				outs[i] = def.Operand(0).Type()
				ir.SetResultAttr(ctx, fn, i, len(outs), HostFormatAttr, ctx.Unit())
				if !def.Result(0).HasUses() {
					def.Erase()
				}
				moved++
			}
		}
		fn.SetAttr(ctx, "function_type", ctx.TypeAttr(ctx.Function(ins, outs)))
		return ir.WalkSkip
	})
	return moved
}

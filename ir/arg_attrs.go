package ir

// ArgAttrsName is the attribute of a function-like op that holds one
// dictionary of attributes per argument (MLIR's `arg_attrs`, printed
// after each argument's type: `%w: tensor<4xf16> {tiled.home}`).
const ArgAttrsName = "arg_attrs"

// ResAttrsName is ArgAttrsName for a function's results (`res_attrs`).
const ResAttrsName = "res_attrs"

// ArgumentAttr returns the attribute name of fn's argument i, or nil.
func ArgumentAttr(fn *Operation, i int, name string) Attribute {
	return listedAttr(fn, ArgAttrsName, i, name)
}

// ResultAttr returns the attribute name of fn's result i, or nil.
func ResultAttr(fn *Operation, i int, name string) Attribute {
	return listedAttr(fn, ResAttrsName, i, name)
}

func listedAttr(fn *Operation, list string, i int, name string) Attribute {
	arr, ok := fn.Attr(list).(*ArrayAttr)
	if !ok || i < 0 || i >= len(arr.Elems) {
		return nil
	}
	d, _ := arr.Elems[i].(*DictAttr)
	return d.Get(name)
}

// SetArgumentAttr sets the attribute name of fn's argument i, of n arguments,
// to value, keeping the argument's other attributes; a nil value removes
// it (as Operation.SetAttr does).
func SetArgumentAttr(ctx *Context, fn *Operation, i, n int, name string, value Attribute) {
	setListedAttr(ctx, fn, ArgAttrsName, i, n, name, value)
}

// SetResultAttr is SetArgumentAttr for fn's result i of n.
func SetResultAttr(ctx *Context, fn *Operation, i, n int, name string, value Attribute) {
	setListedAttr(ctx, fn, ResAttrsName, i, n, name, value)
}

func setListedAttr(ctx *Context, fn *Operation, list string, i, n int, name string, value Attribute) {
	elems := make([]Attribute, n)
	if arr, ok := fn.Attr(list).(*ArrayAttr); ok {
		copy(elems, arr.Elems)
	}
	for k := range elems {
		if elems[k] == nil {
			elems[k] = ctx.Dict(nil)
		}
	}
	var entries []NamedAttr
	if d, ok := elems[i].(*DictAttr); ok {
		for _, e := range d.Entries {
			if e.Name != name {
				entries = append(entries, e)
			}
		}
	}
	if value != nil {
		entries = append(entries, NamedAttr{Name: name, Value: value})
	}
	elems[i] = ctx.Dict(entries)
	fn.SetAttr(ctx, list, ctx.Array(elems...))
}

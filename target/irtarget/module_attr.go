package irtarget

import (
	"fmt"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
)

// ModuleAttr is the discardable attribute of a builtin.module that names
// the machine it is compiled for, by registry name:
//
//	module attributes {ipu.target = "ipu21"} { ... }
//
// A plain string keeps the textual IR readable and lets mlir-opt parse it;
// the description itself stays data in this package, looked up by name.
const ModuleAttr = "ipu.target"

// FromModule returns a fresh copy of the target named by the ipu.target
// attribute of op, if op is a builtin.module, or of the nearest module
// enclosing op, so that passes anchored on functions find it too. A module
// without the attribute, an attribute that is not a string and an unknown
// name are errors located at the module.
func FromModule(op *ir.Operation) (*target.Target, error) {
	module := enclosingModule(op)
	if module == nil {
		return nil, op.EmitError("'%s' is not inside a builtin.module, so it has no %s attribute", op.Name(), ModuleAttr)
	}
	a := module.Attr(ModuleAttr)
	if a == nil {
		return nil, module.EmitOpError("has no '%s' attribute naming the target (set it in the module's attributes "+
			"or pass --target=NAME; known targets: %s)", ModuleAttr, strings.Join(target.Names(), ", "))
	}
	s, ok := a.(*ir.StringAttr)
	if !ok {
		return nil, module.EmitOpError("attribute '%s' must be a string naming a target, but is %s", ModuleAttr, ir.AttrString(a))
	}
	t, err := target.Lookup(s.Val)
	if err != nil {
		return nil, module.EmitOpError("attribute '%s': %v", ModuleAttr, err)
	}
	return t, nil
}

// SetOnModule names the target of module, replacing any ipu.target
// attribute already there: what `ipu-opt --target=NAME` does, so that a
// command-line choice overrides the file. The name must be a known target.
func SetOnModule(module *ir.Operation, name string) error {
	if !module.Is(ir.Module) {
		return module.EmitError("--target applies to a builtin.module, not '%s'", module.Name())
	}
	if _, err := target.Lookup(name); err != nil {
		return fmt.Errorf("--target: %w", err)
	}
	module.SetAttr(module.Context(), ModuleAttr, module.Context().String(name))
	return nil
}

// F64Attr is the discardable attribute of a builtin.module that says how
// its f64 values are computed: "f32", the default (as f32: at f32's speed,
// range and precision; narrow-f64), or "binary64" (exactly, in software:
// the target's binary64 rates, never on the AMP).
//
//	module attributes {ipu.target = "ipu21", ipu.f64 = "binary64"} { ... }
const F64Attr = "ipu.f64"

// KeepsBinary64 reports whether the module holding op (op itself, or its
// nearest enclosing builtin.module) asks for binary64 (F64Attr); a value
// other than "f32" or "binary64" is an error at the module.
func KeepsBinary64(op *ir.Operation) (bool, error) {
	module := enclosingModule(op)
	if module == nil {
		return false, nil
	}
	a := module.Attr(F64Attr)
	if a == nil {
		return false, nil
	}
	if s, ok := a.(*ir.StringAttr); ok && (s.Val == "f32" || s.Val == "binary64") {
		return s.Val == "binary64", nil
	}
	return false, module.EmitOpError("attribute '%s' is %s; it is \"f32\" (compute f64 as f32, the default) or \"binary64\" (compute binary64 in software)", F64Attr, ir.AttrString(a))
}

// enclosingModule is op if it is a builtin.module, else the nearest
// module around it, or nil: where the module attributes are read.
func enclosingModule(op *ir.Operation) *ir.Operation {
	for op != nil && !op.Is(ir.Module) {
		op = op.ParentOp()
	}
	return op
}

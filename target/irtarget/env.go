package irtarget

import (
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
)

// EnvKey is the target's place in an ir.Env: verifiers that check IR
// against a machine (tiled layouts and plans) read it from there, never
// from the enclosing module.
var EnvKey = ir.NewEnvKey[*target.Target]("target")

// FromEnv returns the target env names, if it names one.
func FromEnv(env *ir.Env) (*target.Target, bool) { return EnvKey.Get(env) }

// EnvOfModule states the facts of a module explicitly for verification
// and passes: the target its ipu.target attribute names, when it has one.
// A module without the attribute gives the empty environment; an attribute
// that names no known target is an error at the module.
func EnvOfModule(module *ir.Operation) (*ir.Env, error) {
	if module == nil || !module.Is(ir.Module) || module.Attr(ModuleAttr) == nil {
		return nil, nil
	}
	t, err := FromModule(module)
	if err != nil {
		return nil, err
	}
	return EnvKey.With(nil, t), nil
}

// Of is the machine the module is compiled for: the one the tool states
// in env (--target), else the one its ipu.target attribute names.
func Of(module *ir.Operation, env *ir.Env) (*target.Target, error) {
	if t, ok := FromEnv(env); ok {
		return t, nil
	}
	return FromModule(module)
}

// Named is the fact that the module names its target, or the tool states
// one: what every pass that prices or places work needs.
var Named = &ir.Fact{Name: "ipu.target",
	Doc: "the module names its target (an 'ipu.target' attribute, or --target=NAME; known targets: " + strings.Join(target.Names(), ", ") + ")",
	Lacking: func(root *ir.Operation, env *ir.Env) *ir.Operation {
		if _, ok := FromEnv(env); ok {
			return nil
		}
		for op := root; op != nil; op = op.ParentOp() {
			if op.Is(ir.Module) {
				if op.Attr(ModuleAttr) != nil {
					return nil
				}
				return op
			}
		}
		return root
	}}

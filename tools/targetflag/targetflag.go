// Package targetflag is the --target and --show-targets flags of ipuir's
// tools (ipu-opt, ipu-translate): an optmain.Extension that names the
// machine a module is compiled for, overriding its ipu.target attribute.
package targetflag

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
)

// Extension adds --target and --show-targets.
type Extension struct {
	name        string
	options     []string
	showTargets bool
}

// New returns the extension.
func New() *Extension { return &Extension{} }

func (e *Extension) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.name, "target", "", "Compile for this target (sets the module's ipu.target attribute, overriding the file's)")
	fs.StringArrayVar(&e.options, "target-option", nil, "Set one of the target's assumed figures, KEY=VALUE (repeatable; --show-targets --target=NAME lists them), on --target's target or the module's")
	fs.BoolVar(&e.showTargets, "show-targets", false, "Print the built-in targets (with --target=NAME: every figure of that target) and exit")
}

func (e *Extension) Early(_ []string, stdout io.Writer) (bool, int, error) {
	if e.name != "" {
		spec, err := target.WithOptions(e.name, e.options)
		if err == nil {
			_, err = target.Lookup(spec)
		}
		if err != nil {
			return true, 1, fmt.Errorf("--target: %w", err)
		}
		e.name = spec
	} else if e.showTargets && len(e.options) > 0 {
		return true, 1, fmt.Errorf("--target-option: --show-targets needs --target=NAME to set it on")
	}
	if !e.showTargets {
		return false, 0, nil
	}
	text, err := target.ShowTargets(e.name)
	if err != nil {
		return true, 1, err
	}
	fmt.Fprint(stdout, text)
	return true, 0, nil
}

func (e *Extension) Process(_ *ir.Context, module *ir.Operation, in *optmain.Input) error {
	name := e.name
	if name == "" && len(e.options) > 0 {
		// The options apply to the target the module names.
		t, err := irtarget.FromModule(module)
		if err != nil {
			return err
		}
		if name, err = target.WithOptions(t.Name, e.options); err != nil {
			return module.EmitOpError("--target-option: %v", err)
		}
		if _, err := target.Lookup(name); err != nil {
			return module.EmitOpError("--target-option: %v", err)
		}
	}
	if name == "" {
		return nil
	}
	in.Changed = true
	return irtarget.SetOnModule(module, name)
}

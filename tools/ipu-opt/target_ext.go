package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/optmain"
)

// targetExtension adds --target and --show-targets.
type targetExtension struct {
	name        string
	showTargets bool
}

func newTargetExtension() *targetExtension { return &targetExtension{} }

func (e *targetExtension) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.name, "target", "", "Compile for this target (sets the module's ipu.target attribute, overriding the file's)")
	fs.BoolVar(&e.showTargets, "show-targets", false, "Print the built-in targets (with --target=NAME: every figure of that target) and exit")
}

func (e *targetExtension) Early(_ []string, stdout io.Writer) (bool, int, error) {
	if !e.showTargets {
		if e.name != "" {
			if _, err := target.Lookup(e.name); err != nil {
				return true, 1, fmt.Errorf("--target: %w", err)
			}
		}
		return false, 0, nil
	}
	text, err := target.ShowTargets(e.name)
	if err != nil {
		return true, 1, err
	}
	fmt.Fprint(stdout, text)
	return true, 0, nil
}

func (e *targetExtension) Process(_ *ir.Context, module *ir.Operation, _ *optmain.Input) error {
	if e.name == "" {
		return nil
	}
	return target.SetOnModule(module, e.name)
}

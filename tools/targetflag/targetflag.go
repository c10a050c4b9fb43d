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
	showTargets bool
}

// New returns the extension.
func New() *Extension { return &Extension{} }

func (e *Extension) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.name, "target", "", "Compile for this target (sets the module's ipu.target attribute, overriding the file's)")
	fs.BoolVar(&e.showTargets, "show-targets", false, "Print the built-in targets (with --target=NAME: every figure of that target) and exit")
}

func (e *Extension) Early(_ []string, stdout io.Writer) (bool, int, error) {
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

func (e *Extension) Process(_ *ir.Context, module *ir.Operation, in *optmain.Input) error {
	if e.name == "" {
		return nil
	}
	in.Changed = true
	return irtarget.SetOnModule(module, e.name)
}

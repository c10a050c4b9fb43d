package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// program is a parsed, verified module and the function to run.
type program struct {
	*toolkit.Program
	fn   *ir.Operation
	name string
	args []ir.Type
}

// load parses and verifies file with the tools' shared loader and finds
// the function. Diagnostics are printed to stderr with the source line
// they point at.
func load(file, function string, stderr io.Writer) (*program, error) {
	loader := &toolkit.Loader{Setup: registry.RegisterDialects, Env: irtarget.EnvOfModule}
	lp, err := loader.Load(file, os.Stdin, stderr)
	if err != nil {
		return nil, err
	}
	return finishLoad(lp, function, stderr)
}

// loadSource is load for a module's text kept in a package.
func loadSource(file string, src []byte, function string, stderr io.Writer) (*program, error) {
	loader := &toolkit.Loader{Setup: registry.RegisterDialects, Env: irtarget.EnvOfModule}
	lp, err := loader.LoadSource(file, src, stderr)
	if err != nil {
		return nil, err
	}
	return finishLoad(lp, function, stderr)
}

func finishLoad(lp *toolkit.Program, function string, stderr io.Writer) (*program, error) {
	var err error
	p := &program{Program: lp}
	report := func(err error) error { return p.Report(err, stderr) }
	if function == "" {
		if function, err = onlyFunction(p.Module); err != nil {
			return nil, report(err)
		}
	}
	p.name = function
	if p.fn, err = reference.LookupFunction(p.Module, function); err != nil {
		return nil, report(err)
	}
	if p.args, err = reference.ArgumentTypes(p.fn); err != nil {
		return nil, report(err)
	}
	return p, nil
}

// onlyFunction names the module's single function, so that --function may
// be left out for one-function files.
func onlyFunction(module *ir.Operation) (string, error) {
	var names []string
	for _, op := range ir.ModuleBody(module).Ops() {
		if ir.Implements[ir.FunctionLike](op) {
			if n, ok := ir.SymbolName(op); ok {
				names = append(names, n)
			}
		}
	}
	if len(names) != 1 {
		return "", module.EmitError("the module has %d functions; choose one with --function", len(names))
	}
	return names[0], nil
}

// inputs reads the --inputs files or generates inputs as --generate says.
func (p *program) inputs(o *options) ([]*eval.Array, error) {
	if err := reference.CheckInputsFit(p.args, o.memoryLimit); err != nil {
		return nil, p.fn.EmitError("%v", err)
	}
	if o.generate != "" {
		g, err := reference.ParseGenerator(o.generate)
		if err != nil {
			return nil, fmt.Errorf("--generate: %w", err)
		}
		return g.Generate(p.args, reference.FanIns(p.fn))
	}
	if len(o.inputFiles) == 0 {
		if len(p.args) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("@%s takes %s: give them with --inputs a.npy,... (or NAME=a.npy,...) or --generate gaussian:seed=N", p.name, count(len(p.args), "input"))
	}
	names := p.argNames()
	files, err := ordered(o.inputFiles, names, "@"+p.name)
	if err != nil {
		return nil, err
	}
	out := make([]*eval.Array, len(files))
	for i, path := range files {
		a, err := npy.ReadFile(path)
		if err != nil {
			// The error names the file already.
			return nil, fmt.Errorf("%s: %w", inputLabel(names, i), err)
		}
		if out[i], err = reference.FromNPY(a, p.args[i]); err != nil {
			return nil, fmt.Errorf("%s (%s): %w", inputLabel(names, i), path, err)
		}
	}
	return out, nil
}

// argNames are the function's arguments' names (ipu.name; "" for one
// without).
func (p *program) argNames() []string {
	names := make([]string, len(p.args))
	for i := range names {
		if a, ok := ir.ArgumentAttr(p.fn, i, pkgemit.StreamNameAttr).(*ir.StringAttr); ok {
			names[i] = a.Val
		}
	}
	return names
}

// resultNames are the function's results' names (ipu.name in res_attrs;
// "" for one without).
func (p *program) resultNames() []string {
	ft, ok := p.fn.Attr("function_type").(*ir.TypeAttr)
	if !ok {
		return nil
	}
	f, ok := ft.T.(*ir.FunctionType)
	if !ok {
		return nil
	}
	names := make([]string, len(f.Results))
	arr, _ := p.fn.Attr("res_attrs").(*ir.ArrayAttr)
	for i := range names {
		if arr == nil || i >= len(arr.Elems) {
			break
		}
		if d, ok := arr.Elems[i].(*ir.DictAttr); ok {
			if a, ok := d.Get(pkgemit.StreamNameAttr).(*ir.StringAttr); ok {
				names[i] = a.Val
			}
		}
	}
	return names
}

// count spells "1 input", "2 inputs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package main

import (
	"fmt"
	"io"
	"os"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/runtime/reference"
)

// program is a parsed, verified module and the function to run.
type program struct {
	ctx     *ir.Context
	sources *ir.SourceMgr
	module  *ir.Operation
	fn      *ir.Operation
	name    string
	args    []ir.Type
}

// load parses and verifies file and finds the function. Diagnostics are
// printed to stderr with the source line they point at.
func load(file, function string, stderr io.Writer) (*program, error) {
	var src []byte
	var err error
	if file == "-" {
		file = "<stdin>"
		src, err = io.ReadAll(os.Stdin)
	} else {
		src, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	ctx := ir.NewContext()
	for _, register := range []func(*ir.Context) error{funcd.Register, tensor.Register} {
		if err := register(ctx); err != nil {
			return nil, fmt.Errorf("BUG: registering dialects: %w", err)
		}
	}
	p := &program{ctx: ctx, sources: ir.NewSourceMgr()}
	report := func(err error) error {
		if d, ok := err.(*ir.Diagnostic); ok {
			fmt.Fprint(stderr, p.sources.Render(d))
			return errReported
		}
		return err
	}
	p.module, err = parser.ParseSourceString(ctx, src, parser.Config{Filename: file, SourceMgr: p.sources})
	if err != nil {
		return nil, report(err)
	}
	if d := ir.Verify(p.module); d != nil {
		return nil, report(d)
	}
	if function == "" {
		if function, err = onlyFunction(p.module); err != nil {
			return nil, report(err)
		}
	}
	p.name = function
	if p.fn, err = reference.LookupFunction(p.module, function); err != nil {
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
		if op.Name() == funcd.FuncOpName {
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
	if o.generate != "" {
		g, err := reference.ParseGenerator(o.generate)
		if err != nil {
			return nil, fmt.Errorf("--generate: %w", err)
		}
		return g.Generate(p.args)
	}
	if len(o.inputs) == 0 {
		if len(p.args) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("@%s takes %s: give them with --inputs a.npy,... or --generate gaussian:seed=N", p.name, count(len(p.args), "input"))
	}
	if len(o.inputs) != len(p.args) {
		return nil, fmt.Errorf("@%s takes %s, but --inputs names %s", p.name, count(len(p.args), "input"), count(len(o.inputs), "file"))
	}
	out := make([]*eval.Array, len(o.inputs))
	for i, path := range o.inputs {
		a, err := npy.ReadFile(path)
		if err != nil {
			// The error names the file already.
			return nil, fmt.Errorf("input #%d: %w", i, err)
		}
		if out[i], err = reference.FromNPY(a, p.args[i]); err != nil {
			return nil, fmt.Errorf("input #%d (%s): %w", i, path, err)
		}
	}
	return out, nil
}

// count spells "1 input", "2 inputs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Package memoryflag is the tools' --memory-report and --memory-summary
// flags: after the pipeline, a tile-asm program's memory per tile as JSON
// (written whole or not at all) and a table of the busiest tiles on
// stderr.
package memoryflag

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/memoryreport"
)

// Extension adds the flags to a tool built on optmain.
type Extension struct {
	file    string
	summary bool
	out     *toolkit.Output // --memory-report, registered with the run's outputs
}

// New returns the extension.
func New() *Extension { return &Extension{} }

func (e *Extension) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.file, "memory-report", "", "After the pipeline, write the tile-asm program's memory per tile (bytes per class, code, exchange tables, host code, peak live bytes) as JSON to this file")
	fs.BoolVar(&e.summary, "memory-summary", false, "After the pipeline, print the busiest tiles' memory and the busiest tile's largest buffers to stderr")
}

func (e *Extension) Early([]string, io.Writer) (bool, int, error) { return false, 0, nil }

// RegisterOutputs adds --memory-report to the run's outputs, checked
// against the input and -o before any work.
func (e *Extension) RegisterOutputs(outs *toolkit.Outputs) (err error) {
	e.out, err = outs.Add("--memory-report", e.file)
	return err
}

func (e *Extension) Process(*ir.Context, *ir.Operation, *optmain.Input) error { return nil }

// Emit writes the report and leaves the output to the printer.
func (e *Extension) Emit(_ *ir.Context, module *ir.Operation, in *optmain.Input, _ io.Writer) (bool, error) {
	if e.file == "" && !e.summary {
		return false, nil
	}
	tg, ok := irtarget.FromEnv(in.Env)
	if !ok {
		return false, module.EmitError("--memory-report and --memory-summary need the module's target (an 'ipu.target' attribute or --target)")
	}
	reports, err := memoryreport.Reports(module, tg)
	if err != nil {
		return false, err
	}
	if e.summary {
		for _, r := range reports {
			if err := r.WriteSummary(in.Stderr); err != nil {
				return false, err
			}
		}
	}
	if e.out != nil {
		if err := e.out.Write(func(w io.Writer) error { return memoryreport.WriteJSON(w, reports) }); err != nil {
			return false, fmt.Errorf("--memory-report: %v", err)
		}
	}
	return false, nil
}

// Command ipu-translate translates ipuir programs to and from other
// formats, as mlir-translate does for MLIR:
//
//	ipu-translate --exchange-to-json FILE.ipuir -o OUT.json
//
// writes the exchange phases of a program at the exchange level or later
// as JSON (exchange.JSON), the form users' own tools read. It is built on
// the same driver as ipu-opt (package optmain): the same flags for input,
// output, diagnostics and logs, --split-input-file, and a failure that
// leaves an existing output file as it was.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/targetflag"
	"github.com/ipuir/ipuir/translate/exchangejson"
)

// Version is the tool's version.
const Version = "0.1.0"

func main() { os.Exit(newTool().Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func newTool() *optmain.Tool {
	return &optmain.Tool{
		Name:       "ipu-translate",
		Version:    Version,
		Overview:   "translation driver for ipuir: exchange phases to JSON",
		Dialects:   registry.RegisterDialects,
		Env:        target.EnvOfModule,
		Extensions: []optmain.Extension{targetflag.New(), &translations{}},
	}
}

// translations are the tool's output formats, one flag each.
type translations struct {
	exchangeToJSON bool
}

func (t *translations) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&t.exchangeToJSON, "exchange-to-json", false,
		`Write the exchange phases as JSON: {"phases": [{"phase": N, "transfers": [{"id", "src", "dst", "words"}], "schedule": {"horizon", "segments": [[id, start, words]]}}]}`)
}

func (t *translations) Early([]string, io.Writer) (bool, int, error) {
	if !t.exchangeToJSON {
		return true, 2, fmt.Errorf("no translation chosen (--exchange-to-json)")
	}
	return false, 0, nil
}

func (t *translations) Process(*ir.Context, *ir.Operation, *optmain.Input) error { return nil }

func (t *translations) Emit(_ *ir.Context, module *ir.Operation, _ *optmain.Input, out io.Writer) (bool, error) {
	if !t.exchangeToJSON {
		return false, nil
	}
	if !exchangejson.HasExchange(module) {
		return true, module.EmitError("--exchange-to-json needs a program at the exchange level or later (run ipu-opt --pass-pipeline='builtin.module(lower-to-exchange)' first)")
	}
	return true, exchangejson.Write(out, module)
}

// Command ipu-opt is ipuir's optimizer driver, in the image of mlir-opt: it
// reads `.ipuir` (or `.mlir`) IR, verifies it, runs a pass pipeline and
// prints the result.
//
//	ipu-opt input.ipuir --pass-pipeline='builtin.module(func.func(canonicalize,cse))'
//	ipu-opt input.ipuir --canonicalize --cse --mlir-print-ir-after-all
//	ipu-opt bad.ipuir --split-input-file --verify-diagnostics
//
// The driver itself is package optmain; this command gives it ipuir's
// dialects and passes (package registry), the --target flag and the
// --memory-report and --memory-summary flags. Built
// with the `ipuir_testing` build tag (as the behaviour tests build it) it
// also registers the test dialect and passes of tests/.
package main

import (
	"os"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/memoryflag"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/targetflag"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// Version is the ipuir release this tool belongs to.
const Version = "0.1.0"

func main() {
	toolkit.RemoveOutputsOnSignal()
	os.Exit(newTool().Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// newTool is ipu-opt: ipuir's dialects and passes, the target flag, and
// the test ones when built for ipuir's tests.
func newTool() *optmain.Tool {
	tool := &optmain.Tool{
		Name:       "ipu-opt",
		Version:    Version,
		Dialects:   registry.RegisterDialects,
		Passes:     registry.RegisterPasses,
		Env:        irtarget.EnvOfModule,
		Extensions: []optmain.Extension{targetflag.New(), memoryflag.New(), onnxInputs{}},
	}
	addTestRegistrations(tool)
	return tool
}

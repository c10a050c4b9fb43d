// Command ipu-opt is ipuir's optimizer driver, in the image of mlir-opt: it
// reads `.ipuir` (or `.mlir`) IR, verifies it, runs a pass pipeline and
// prints the result.
//
//	ipu-opt input.ipuir --pass-pipeline='builtin.module(func.func(canonicalize,cse))'
//	ipu-opt input.ipuir --canonicalize --cse --mlir-print-ir-after-all
//	ipu-opt bad.ipuir --split-input-file --verify-diagnostics
//
// The driver itself is package optmain; this command registers ipuir's
// dialects, passes and targets with it.
package main

import (
	"os"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/tools/optmain"
)

func main() {
	tool := &optmain.Tool{
		Name:       "ipu-opt",
		Version:    Version,
		Setup:      registerDialects,
		Extensions: []optmain.Extension{newTargetExtension(), newPassExtension()},
	}
	os.Exit(tool.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Version is the ipuir release this tool belongs to.
const Version = "0.1.0"

func registerDialects(ctx *ir.Context) {
	for _, register := range dialectRegistrations {
		if err := register(ctx); err != nil {
			panic("BUG: " + err.Error())
		}
	}
}

package main

import (
	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/passes/testdialect"
	"github.com/ipuir/ipuir/passes/testpasses"
)

// dialectRegistrations lists the dialects ipu-opt knows, lowest level last.
var dialectRegistrations = []func(*ir.Context) error{
	funcd.Register,
	tensor.Register,
	tiled.Register,
	// The test dialect and passes exist for ipuir's own tests, as MLIR's do
	// in mlir-opt: they exercise the pass manager's failure paths.
	testdialect.Register,
}

// passRegistrations lists the groups of passes ipu-opt knows.
var passRegistrations = []func(*passes.Registry) error{
	passes.RegisterBuiltinPasses,
	passes.RegisterTensorPasses,
	testpasses.Register,
	passes.RegisterTiledPasses,
}

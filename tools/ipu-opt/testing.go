//go:build ipuir_testing

package main

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/testdialect"
	"github.com/ipuir/ipuir/tests/testpasses"
	"github.com/ipuir/ipuir/tools/optmain"
)

// addTestRegistrations adds the test dialect and passes of tests/ after
// ipuir's own, as mlir-opt registers MLIR's test passes when built with
// its tests: --list-passes shows users' passes first, then the test-*
// ones.
func addTestRegistrations(tool *optmain.Tool) {
	dialects, ps := tool.Dialects, tool.Passes
	tool.Dialects = func(ctx *ir.Context) error {
		if err := dialects(ctx); err != nil {
			return err
		}
		return testdialect.Register(ctx)
	}
	tool.Passes = func(r *passes.Registry) error {
		if err := ps(r); err != nil {
			return err
		}
		return testpasses.Register(r)
	}
}

// Command toy-opt is ipu-opt with the toy dialect and its pass added.
package main

import (
	"os"

	"example.com/toy"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/tools/optmain"
)

func main() {
	tool := &optmain.Tool{
		Name:     "toy-opt",
		Dialects: registry.DialectsAnd(toy.Dialect),
		Passes:   registry.PassesAnd(toy.RegisterPasses),
	}
	os.Exit(tool.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

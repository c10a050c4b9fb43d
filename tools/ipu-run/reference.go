package main

import (
	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/runtime/reference"
)

// referenceMode runs on the host reference interpreter.
type referenceMode struct{}

func (referenceMode) Name() string { return "reference" }

func (referenceMode) Run(p *program, inputs []*eval.Array) ([]*eval.Array, error) {
	return reference.Run(p.fn, inputs, nil)
}

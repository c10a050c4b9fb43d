package main

import (
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
)

// referenceMode runs on the host reference interpreter.
type referenceMode struct {
	memoryLimit int64 // bytes; 0 is the interpreter's default
}

func (referenceMode) Name() string { return "reference" }

func (m referenceMode) Run(p *program, inputs []*eval.Array) ([]*eval.Array, error) {
	return reference.Run(p.fn, inputs, &reference.Options{MemoryLimit: m.memoryLimit})
}

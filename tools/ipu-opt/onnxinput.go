package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/translate/onnximport"
)

// onnxInputs names an ONNX model given to ipu-opt, which reads IR text
// only, and says how to import or compile it.
type onnxInputs struct{}

func (onnxInputs) AddFlags(*pflag.FlagSet)                                  {}
func (onnxInputs) Early([]string, io.Writer) (bool, int, error)             { return false, 0, nil }
func (onnxInputs) Process(*ir.Context, *ir.Operation, *optmain.Input) error { return nil }

func (onnxInputs) TranslateInput(file string, data []byte) ([]byte, bool, error) {
	if _, ok := onnximport.Decode(data); !ok {
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("%s is an ONNX model, not IR text: ipu-translate --import-onnx %s --target=T -o MODEL.ipuir imports it, and ipu-translate --emit-package %s --target=T -o MODEL.ipupkg compiles it", file, file, file)
}

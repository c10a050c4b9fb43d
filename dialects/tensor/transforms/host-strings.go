package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// HostStrings is the `host-strings` pass: no tile holds text, so the
// string conversions at a function's edges move to the host
// (tensor.HostStrings): an argument of strings that only string_parse
// reads becomes the numbers it is parsed into (ipu.host_parse), and a
// result string_format makes becomes the numbers it formats
// (ipu.host_format). The package's streams keep them as text, and a
// runner parses each input and formats each output with the ops' rules.
// It runs first in lower-tensor-to-tiled; a program without strings is
// unchanged, and one with strings elsewhere is refused by
// tiled-assign-layouts, naming them.
type HostStrings struct {
	NumMoved passes.Statistic `statistic:"num-moved" help:"Number of arguments and results whose string conversions moved to the host"`
}

func (*HostStrings) Name() string { return "host-strings" }
func (*HostStrings) Summary() string {
	return "Move the parsing of string arguments and the formatting of string results to the host's streams (no tile holds text)"
}
func (*HostStrings) Anchor() string { return "" }

func (p *HostStrings) Run(op *ir.Operation, _ *passes.PassContext) error {
	p.NumMoved.Add(uint64(tensor.HostStrings(op)))
	return nil
}

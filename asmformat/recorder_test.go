package asmformat_test

import (
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// recordingPrinter is an ir.OpAsmPrinter that writes plain text, for
// printing ops outside any module.
type recordingPrinter struct {
	ctx *ir.Context
	asm ir.AsmPrinter
}

func (p *recordingPrinter) Context() *ir.Context                { return p.ctx }
func (p *recordingPrinter) Asm() *ir.AsmPrinter                 { return &p.asm }
func (p *recordingPrinter) WriteString(s string)                { p.asm.WriteString(s) }
func (p *recordingPrinter) PrintType(t ir.Type)                 { p.asm.PrintType(t) }
func (p *recordingPrinter) PrintAttr(a ir.Attribute)            { p.asm.PrintAttr(a) }
func (p *recordingPrinter) PrintAttrWithoutType(a ir.Attribute) { p.asm.PrintAttrWithoutType(a) }
func (p *recordingPrinter) PrintOperand(v *ir.Value)            { p.asm.WriteString("%v") }
func (p *recordingPrinter) PrintOperands(vs []*ir.Value) {
	p.asm.WriteString(strings.Repeat("%v, ", len(vs)))
}
func (p *recordingPrinter) PrintSuccessor(b *ir.Block)  { p.asm.WriteString("^bb") }
func (p *recordingPrinter) PrintSymbolName(name string) { p.asm.PrintSymbolName(name) }
func (p *recordingPrinter) PrintOptionalAttrDict(attrs []ir.NamedAttr, elided ...string) {
}
func (p *recordingPrinter) PrintOptionalAttrDictWithKeyword(attrs []ir.NamedAttr, elided ...string) {
}
func (p *recordingPrinter) PrintRegionArgument(v *ir.Value, attrs *ir.DictAttr, omitType bool) {}
func (p *recordingPrinter) PrintRegion(r *ir.Region, printEntryBlockArgs, printBlockTerminators bool) {
	p.asm.WriteString("{}")
}
func (p *recordingPrinter) PrintOptionalLocationSpecifier(l ir.Location) {}

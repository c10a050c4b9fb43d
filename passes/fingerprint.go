package passes

import (
	"hash/maphash"
	"unsafe"

	"github.com/ipuir/ipuir/ir"
)

// fingerprint hashes the identity of everything in op's tree: ops, their
// names, attributes, properties, result types, operands, successors and
// locations. Types and attributes are uniqued, so their pointers stand
// for their values. --mlir-print-ir-after-change compares the fingerprint
// before and after a pass, as MLIR's OperationFingerPrint does.
func fingerprint(op *ir.Operation) uint64 {
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	word := func(p uintptr) {
		var b [8]byte
		for i := range b {
			b[i] = byte(p >> (8 * i))
		}
		h.Write(b[:])
	}
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		word(uintptr(unsafe.Pointer(o)))
		h.WriteString(o.Name())
		word(ir.UniqueID(o.Props()))
		word(ir.UniqueID(o.Attrs()))
		word(ir.UniqueID(o.Loc()))
		if b := o.Block(); b != nil {
			word(uintptr(unsafe.Pointer(b)))
		}
		for i := 0; i < o.NumOperands(); i++ {
			word(uintptr(unsafe.Pointer(o.Operand(i))))
		}
		for _, r := range o.Results() {
			word(ir.UniqueID(r.Type()))
		}
		for _, s := range o.Successors() {
			word(uintptr(unsafe.Pointer(s)))
		}
		for _, r := range o.Regions() {
			for _, b := range r.Blocks() {
				word(uintptr(unsafe.Pointer(b)))
				for _, a := range b.Arguments() {
					word(ir.UniqueID(a.Type()))
				}
			}
		}
		return ir.WalkAdvance
	})
	return h.Sum64()
}

var fingerprintSeed = maphash.MakeSeed()

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
		word(ifacePtr(o.Props()))
		word(ifacePtr(o.Attrs()))
		word(ifacePtr(o.Loc()))
		if b := o.Block(); b != nil {
			word(uintptr(unsafe.Pointer(b)))
		}
		for i := 0; i < o.NumOperands(); i++ {
			word(uintptr(unsafe.Pointer(o.Operand(i))))
		}
		for _, r := range o.Results() {
			word(ifacePtr(r.Type()))
		}
		for _, s := range o.Successors() {
			word(uintptr(unsafe.Pointer(s)))
		}
		for _, r := range o.Regions() {
			for _, b := range r.Blocks() {
				word(uintptr(unsafe.Pointer(b)))
				for _, a := range b.Arguments() {
					word(ifacePtr(a.Type()))
				}
			}
		}
		return ir.WalkAdvance
	})
	return h.Sum64()
}

var fingerprintSeed = maphash.MakeSeed()

// ifacePtr returns the data word of an interface holding a pointer (zero
// for nil), the identity of a uniqued type or attribute.
func ifacePtr(v any) uintptr {
	if v == nil {
		return 0
	}
	return (*[2]uintptr)(unsafe.Pointer(&v))[1]
}

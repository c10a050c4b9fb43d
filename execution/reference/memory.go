package reference

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/ir"
)

// DefaultMemoryLimit bounds the bytes of values the interpreter holds at
// once when Options.MemoryLimit is zero. The attention block peaks near
// 150 MB; a function far beyond the limit (a tensor<2147483648xf32>
// argument, a 400-million-element splat) is refused at the value that
// would cross it, with a message, before anything is allocated.
const DefaultMemoryLimit = 4 << 30

// valueBytes is the storage the interpreter needs for a value of shape
// (shape is static): 8 bytes per element, whatever the element type,
// since eval.Array holds float64s. ok is false when the size overflows.
func valueBytes(shape []int) (int64, bool) {
	n := int64(8)
	for _, d := range shape {
		if d < 0 || (d != 0 && n > (1<<62)/int64(d)) {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

// memoryBudget counts the bytes of live values against a limit; a value
// counts copies times (2 when each value carries an error bound).
type memoryBudget struct {
	limit  int64
	live   int64
	copies int64
}

func newMemoryBudget(limit int64) *memoryBudget {
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	return &memoryBudget{limit: limit, copies: 1}
}

// reserve takes the storage of a value of type t, or says why it does not
// fit; what names the value in the message. A type the interpreter cannot
// hold takes nothing: the code that meets it says why. Nor do strings,
// whose bytes are their inputs' (no string op makes more strings than it
// reads, and those are read whole before the run).
func (b *memoryBudget) reserve(what string, t ir.Type) error {
	shape, _, err := shapeAndKind(t)
	if err != nil {
		return nil
	}
	n, ok := valueBytes(shape)
	if ok && n > (1<<62)/b.copies {
		ok = false
	}
	n *= b.copies
	if !ok || n > b.limit-b.live {
		need := "more than 2^62 bytes"
		if ok {
			need = humanize.IBytes(uint64(n))
		}
		held := ""
		if b.live > 0 {
			held = fmt.Sprintf(" besides the %s already held", humanize.IBytes(uint64(b.live)))
		}
		return fmt.Errorf("%s of type '%s' needs %s (%d bytes an element)%s; the reference interpreter's memory limit is %s (see --memory-limit)",
			what, ir.TypeString(t), need, 8*b.copies, held, humanize.IBytes(uint64(b.limit)))
	}
	b.live += n
	return nil
}

// release returns the storage of a value of type t.
func (b *memoryBudget) release(t ir.Type) {
	if shape, _, err := shapeAndKind(t); err == nil {
		if n, ok := valueBytes(shape); ok {
			b.live -= n * b.copies
		}
	}
}

// CheckInputsFit reports whether inputs of the given types fit within
// limit (0: DefaultMemoryLimit) before any is read or generated, naming
// the first that does not.
func CheckInputsFit(types []ir.Type, limit int64) error {
	b := newMemoryBudget(limit)
	for i, t := range types {
		if err := b.reserve(fmt.Sprintf("input #%d", i), t); err != nil {
			return err
		}
	}
	return nil
}

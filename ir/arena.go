package ir

// An Arena allocates the parts of many ops (the op, its operands and
// results, and the slices that list them) from shared blocks instead of
// one heap object each. A parser creates hundreds of thousands of ops that
// live as long as the module: with an arena they cost a few large objects
// instead of six small ones each, which is less memory (no rounding to
// size classes) and far less work for the garbage collector (MLIR
// co-allocates an op with its operands and results for the same reason).
//
// The price is that an erased op's memory is reclaimed only with its
// block's other ops; code that creates and erases ops repeatedly (passes)
// uses NewOperation, not an arena. An Arena is not safe for concurrent use.
type Arena struct {
	ops         []Operation
	operands    []OpOperand
	operandPtrs []*OpOperand
	values      []Value
	valuePtrs   []*Value
	extras      []opExtra
}

// arenaBlock is the number of items a block holds; larger requests are
// allocated on their own.
const arenaBlock = 512

// take returns the next n items of *pool, starting a new block when the
// current one is full. The slice's capacity is its length, so that an
// append copies instead of overwriting a neighbour's items.
func take[T any](pool *[]T, n int) []T {
	if n > arenaBlock/4 {
		return make([]T, n)
	}
	if len(*pool)+n > cap(*pool) {
		*pool = make([]T, 0, arenaBlock)
	}
	start := len(*pool)
	*pool = (*pool)[:start+n]
	return (*pool)[start : start+n : start+n]
}

func (a *Arena) newOp() *Operation {
	if a == nil {
		return &Operation{}
	}
	return &take(&a.ops, 1)[0]
}

func (a *Arena) newOperands(n int) ([]OpOperand, []*OpOperand) {
	if a == nil {
		return make([]OpOperand, n), make([]*OpOperand, n)
	}
	return take(&a.operands, n), take(&a.operandPtrs, n)
}

func (a *Arena) newValues(n int) ([]Value, []*Value) {
	if a == nil {
		return make([]Value, n), make([]*Value, n)
	}
	return take(&a.values, n), take(&a.valuePtrs, n)
}

func (a *Arena) newExtra() *opExtra {
	if a == nil {
		return &opExtra{}
	}
	return &take(&a.extras, 1)[0]
}

// newValue returns a zero Value from the arena (or the heap for a nil
// arena), for block arguments.
func (a *Arena) newValue() *Value {
	if a == nil {
		return &Value{}
	}
	return &take(&a.values, 1)[0]
}

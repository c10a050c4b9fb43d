package ir

// WalkResult steers a walk.
type WalkResult uint8

const (
	WalkAdvance   WalkResult = iota // keep going
	WalkSkip                        // do not visit this op's regions (pre-order only)
	WalkInterrupt                   // stop the whole walk
)

// Walk visits op and every op nested in it in pre-order (parents before
// children). It reports whether the walk was interrupted. The callback may
// erase the op it is given in post-order walks only.
func (op *Operation) Walk(f func(*Operation) WalkResult) bool {
	switch f(op) {
	case WalkInterrupt:
		return true
	case WalkSkip:
		return false
	}
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; {
				next := o.next
				if o.Walk(f) {
					return true
				}
				o = next
			}
		}
	}
	return false
}

// WalkPost visits nested ops before their parents (children first), so
// the callback may erase the op it is given. It reports interruption.
func (op *Operation) WalkPost(f func(*Operation) WalkResult) bool {
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; {
				next := o.next
				if o.WalkPost(f) {
					return true
				}
				o = next
			}
		}
	}
	return f(op) == WalkInterrupt
}

// Find is the first op, in pre-order from op itself, that satisfies f,
// or nil.
func (op *Operation) Find(f func(*Operation) bool) *Operation {
	var found *Operation
	op.Walk(func(o *Operation) WalkResult {
		if f(o) {
			found = o
			return WalkInterrupt
		}
		return WalkAdvance
	})
	return found
}

func (op *Operation) walkPost(f func(*Operation)) {
	op.WalkPost(func(o *Operation) WalkResult { f(o); return WalkAdvance })
}

// Each visits every op nested in op (not op itself) in pre-order.
func (op *Operation) Each(f func(*Operation)) {
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				f(o)
				o.Each(f)
			}
		}
	}
}

// BackwardSlice is vs and every value they are computed from: the
// operands of their defining ops, transitively, going only through the ops
// through accepts (every op when through is nil), as MLIR's
// getBackwardSlice gathers ops.
func BackwardSlice(vs []*Value, through func(*Operation) bool) map[*Value]bool {
	out := make(map[*Value]bool, len(vs))
	work := append([]*Value(nil), vs...)
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if out[v] {
			continue
		}
		out[v] = true
		if def := v.DefiningOp(); def != nil && (through == nil || through(def)) {
			work = append(work, def.Operands()...)
		}
	}
	return out
}

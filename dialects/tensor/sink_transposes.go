package tensor

import (
	"slices"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// maxFoldedTransposeElements bounds the constants SinkTransposes
// rearranges at compile time: a larger one keeps its transpose where it is.
const maxFoldedTransposeElements = 1 << 22

// SinkTransposes moves each transpose past the ops that read it, toward
// the program's results, where a transpose with the inverse permutation
// cancels it: a model exported channels-first (ONNX's NCHW) whose
// convolutions are computed channels-last gets, from the decomposition, a
// transpose back to channels-first after each convolution and one to
// channels-last before the next; between them run the bias, activation,
// residual add and pooling, which do not care which order the axes are in.
// Sinking is what ONNX Runtime's transpose optimizer does; here it leaves
// the whole network channels-last, with one transpose at the input and one
// at the output, and so no relayout between layers.
//
// A transpose t = transpose(x, p) moves past a user u when every operand
// of u is t itself or a value whose channels-last form costs nothing: a
// transpose by the same p (its input), a constant (rearranged at compile
// time, a splat only retyped), or a broadcast (broadcast along the
// permuted axes instead). u is then computed on x's axes and a transpose
// by p follows it: elementwise ops; slice and concat (their attributes
// permuted); reduce_sum and reduce_max (the reduced axes permuted, the
// transpose after it of the remaining axes, or none); broadcast (which
// absorbs the transpose when the permuted dimensions stay increasing);
// transpose (the two composed, gone when the composition is the
// identity); reshape (which reads x directly when p moves only axes of
// size 1). Values and their order of evaluation are unchanged, except that
// a reduction sums over the same elements in the order of x's axes. Each
// op computed on x's axes in place of one of the source's is located
// where that op was, marked with the permutation back (PermutedLoc), so
// that a checkpoint still compares it with the source. It returns how
// many ops a transpose moved past or was folded into.
func SinkTransposes(root *ir.Operation) (int, error) {
	ctx := root.Context()
	s := &sinker{rw: ir.NewRewriter(ctx, nil), erased: map[*ir.Operation]bool{}}
	ops := 0
	root.Walk(func(*ir.Operation) ir.WalkResult { ops++; return ir.WalkAdvance })
	// Each step moves a transpose past one op of a finite program toward
	// its results, so the work ends; the budget guards that argument.
	budget := 8*ops + 64
	moved := 0
	// One group at a time, the one that removes most first: groups meet
	// (a convolution's transpose back and the next one's transpose in are
	// two groups that cancel each other), and the first to move decides
	// where the other's transposes are.
	for budget > 0 {
		work := bestGroup(root)
		if len(work) == 0 {
			break
		}
		before := moved
		for len(work) > 0 && budget > 0 {
			t := work[len(work)-1]
			work = work[:len(work)-1]
			if s.erased[t] || t.Block() == nil {
				continue
			}
			s.markResultPiece(t)
			for _, u := range slices.Compact(t.Result(0).Users()) {
				if s.erased[u] || u.Block() == nil {
					continue
				}
				budget--
				next, ok, err := s.sinkInto(u, t)
				if err != nil {
					return moved, err
				}
				if ok {
					moved++
					if next != nil {
						work = append(work, next)
					}
				}
			}
			if !t.Result(0).HasUses() {
				s.erase(t)
			}
		}
		if moved == before {
			break // the group could not move after all
		}
	}
	// The constants, broadcasts and transposes the moved ops read before
	// are dead once every reader reads their rearranged copy (or input).
	for _, op := range s.replaced {
		if !s.erased[op] && op.Block() != nil && !op.Result(0).HasUses() {
			s.erase(op)
		}
	}
	return moved, nil
}

// movedLoc is the location of the op that computes u's value on the
// axes of a transpose by p: u's, marked with p (PermutedLoc) when u's
// value is its source op's (isResultPiece); an inner piece of a
// decomposed op has no value of the source's, and keeps u's location.
func (s *sinker) movedLoc(u *ir.Operation, p []int) ir.Location {
	if !isResultPiece(u) {
		return u.Loc()
	}
	return PermutedLoc(s.rw.Ctx, u.Loc(), p)
}

// isResultPiece reports whether op's value is the value of the source op
// at its location: no op located there reads it (a decomposed op's pieces
// share its location, and only the last leaves it).
func isResultPiece(op *ir.Operation) bool {
	if _, ok := ir.FileLineColOf(op.Loc()); !ok || op.NumResults() != 1 {
		return false
	}
	for _, u := range op.Result(0).Users() {
		if sameFileLoc(u.Loc(), op.Loc()) {
			return false
		}
	}
	return true
}

// sameFileLoc reports whether a and b have the same first file location.
func sameFileLoc(a, b ir.Location) bool {
	x, ok1 := ir.FileLineColOf(a)
	y, ok2 := ir.FileLineColOf(b)
	return ok1 && ok2 && x.File == y.File && x.Line == y.Line && x.Col == y.Col
}

// markResultPiece marks x = t's operand as computing, rearranged, the
// value t gives its source op (PermutedLoc) when t is the last piece of a
// decomposed op (x is located where t is, and t's value leaves for ops
// located elsewhere): once t moves or cancels, x is what is stored of the
// source op's value.
func (s *sinker) markResultPiece(t *ir.Operation) {
	x := t.Operand(0).DefiningOp()
	p := permOf(t)
	if x == nil || p == nil || x.NumResults() != 1 || !sameFileLoc(x.Loc(), t.Loc()) || !isResultPiece(t) {
		return
	}
	if _, marked := SourcePermutation(x.Loc()); marked {
		return
	}
	x.SetLoc(PermutedLoc(s.rw.Ctx, x.Loc(), p))
}

type sinker struct {
	rw     *ir.Rewriter
	erased map[*ir.Operation]bool
	// replaced are the constants, broadcasts and transposes that moved
	// ops read a rearranged copy (or the input) of instead.
	replaced []*ir.Operation
}

func (s *sinker) erase(op *ir.Operation) {
	s.erased[op] = true
	s.rw.EraseOp(op)
}

func permOf(op *ir.Operation) []int {
	p, err := opAttrs(op).ints(PermutationAttr)
	if err != nil {
		return nil
	}
	return p
}

// inverse is q with q[p[i]] = i.
func inverse(p []int) []int {
	q := make([]int, len(p))
	for i, pi := range p {
		q[pi] = i
	}
	return q
}

// unpermuted is the shape whose transpose by p is shape: x's shape for a
// value transpose(x, p) has.
func unpermuted(shape, p []int) []int {
	out := make([]int, len(shape))
	for i, pi := range p {
		out[pi] = shape[i]
	}
	return out
}

// sinkInto rewrites u, a user of t = transpose(x, p), to read x, and
// returns the transpose that now follows u (nil when none does).
func (s *sinker) sinkInto(u, t *ir.Operation) (*ir.Operation, bool, error) {
	p := permOf(t)
	if p == nil || u.NumResults() != 1 {
		return nil, false, nil
	}
	x := t.Operand(0)
	ctx := s.rw.Ctx
	s.rw.SetInsertionPoint(u)
	switch {
	case u.Is(TransposeOp):
		q := permOf(u)
		if len(q) != len(p) {
			return nil, false, nil
		}
		r := compose(p, q)
		if isIdentity(r) {
			// x is u's value: when u gave its source op's value and x is
			// a piece of the same op, x now holds that value as it is.
			if def := x.DefiningOp(); def != nil && isResultPiece(u) && sameFileLoc(def.Loc(), u.Loc()) {
				def.SetLoc(u.Loc())
			}
			u.Result(0).ReplaceAllUsesWith(x)
			s.erase(u)
			return nil, true, nil
		}
		next := s.transpose(u, x, r)
		s.replace(u, next)
		return next, true, nil
	case u.Is(ReshapeOp):
		if !movesOnlyUnitAxes(shapeOf(x.Type()), p) {
			return nil, false, nil
		}
		s.rw.ModifyInPlace(u, func() { u.SetOperand(0, x) })
		return nil, true, nil
	case u.Is(BroadcastOp):
		d, ok := broadcastAbsorbing(u, p)
		if !ok {
			return nil, false, nil
		}
		b := s.rw.Create(&ir.OperationState{Name: BroadcastOpName, Loc: u.Loc(), Operands: []*ir.Value{x},
			ResultTypes: []ir.Type{u.Result(0).Type()}, Attrs: []ir.NamedAttr{{Name: DimensionsAttr, Value: I64Array(ctx, d...)}}})
		u.Result(0).ReplaceAllUsesWith(b.Result(0))
		s.erase(u)
		return nil, true, nil
	case u.Is(SliceOp):
		if slicesOf(t.Result(0)) > maxCarriedSlices {
			return nil, false, nil // sinkEffect's rule: a gather's slices stay
		}
		a := opAttrs(u)
		off, err1 := a.ints(OffsetsAttr)
		size, err2 := a.ints(SizesAttr)
		str, err3 := a.ints(StridesAttr)
		if err1 != nil || err2 != nil || err3 != nil || len(off) != len(p) || len(size) != len(p) || len(str) != len(p) {
			return nil, false, nil
		}
		rt := u.Result(0).Type()
		inner := s.rw.Create(&ir.OperationState{Name: SliceOpName, Loc: s.movedLoc(u, p), Operands: []*ir.Value{x},
			ResultTypes: []ir.Type{ctx.Tensor(dims64(unpermuted(shapeOf(rt), p)), elemOf(rt))},
			Attrs: []ir.NamedAttr{{Name: OffsetsAttr, Value: I64Array(ctx, unpermuted(off, p)...)},
				{Name: SizesAttr, Value: I64Array(ctx, unpermuted(size, p)...)},
				{Name: StridesAttr, Value: I64Array(ctx, unpermuted(str, p)...)}}})
		next := s.transpose(u, inner.Result(0), p)
		s.replace(u, next)
		return next, true, nil
	case u.Is(ReduceSumOp, ReduceMaxOp):
		axes, err := opAttrs(u).ints(AxesAttr)
		if err != nil {
			return nil, false, nil
		}
		reduced := make([]bool, len(p))
		xAxes := make([]int, 0, len(axes))
		for _, a := range axes {
			if a < 0 || a >= len(p) {
				return nil, false, nil
			}
			reduced[a] = true
			xAxes = append(xAxes, p[a])
		}
		slices.Sort(xAxes)
		// The kept axes of x, in x's order, and where each of u's kept
		// axes (in u's order) is among them.
		var kept []int
		for i := range p {
			if !slices.Contains(xAxes, i) {
				kept = append(kept, i)
			}
		}
		var r []int
		for i, pi := range p {
			if !reduced[i] {
				r = append(r, slices.Index(kept, pi))
			}
		}
		xs := shapeOf(x.Type())
		shape := make([]int, len(kept))
		for i, k := range kept {
			shape[i] = xs[k]
		}
		loc := u.Loc()
		if !isIdentity(r) {
			loc = s.movedLoc(u, r)
		}
		inner := s.rw.Create(&ir.OperationState{Name: u.Name(), Loc: loc, Operands: []*ir.Value{x},
			ResultTypes: []ir.Type{ctx.Tensor(dims64(shape), elemOf(u.Result(0).Type()))},
			Attrs:       []ir.NamedAttr{{Name: AxesAttr, Value: I64Array(ctx, xAxes...)}}})
		if isIdentity(r) {
			u.Result(0).ReplaceAllUsesWith(inner.Result(0))
			s.erase(u)
			return nil, true, nil
		}
		next := s.transpose(u, inner.Result(0), r)
		s.replace(u, next)
		return next, true, nil
	case u.Is(ConcatOp):
		axis, err := opAttrs(u).int(AxisAttr)
		if err != nil || axis < 0 || axis >= len(p) {
			return nil, false, nil
		}
		operands, ok := s.unpermutedOperands(u, t, p)
		if !ok {
			return nil, false, nil
		}
		rt := u.Result(0).Type()
		inner := s.rw.Create(&ir.OperationState{Name: ConcatOpName, Loc: s.movedLoc(u, p), Operands: operands,
			ResultTypes: []ir.Type{ctx.Tensor(dims64(unpermuted(shapeOf(rt), p)), elemOf(rt))},
			Attrs:       []ir.NamedAttr{{Name: AxisAttr, Value: I64(ctx, p[axis])}}})
		next := s.transpose(u, inner.Result(0), p)
		s.replace(u, next)
		return next, true, nil
	case ir.Implements[ir.Elementwise](u):
		operands, ok := s.unpermutedOperands(u, t, p)
		if !ok {
			return nil, false, nil
		}
		rt := u.Result(0).Type()
		var attrs []ir.NamedAttr
		if d := u.Attrs(); d != nil {
			attrs = slices.Clone(d.Entries)
		}
		inner := s.rw.Create(&ir.OperationState{Name: u.Name(), Loc: s.movedLoc(u, p), Operands: operands,
			ResultTypes: []ir.Type{ctx.Tensor(dims64(unpermuted(shapeOf(rt), p)), elemOf(rt))}, Attrs: attrs})
		next := s.transpose(u, inner.Result(0), p)
		s.replace(u, next)
		return next, true, nil
	}
	return nil, false, nil
}

func hasDuplicates(xs []int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[i-1] {
			return true
		}
	}
	return false
}

// movesOnlyUnitAxes reports whether transposing a tensor of shape by p
// keeps its axes longer than 1 in their order: then the transpose only
// renames the shape, and the elements stay in row-major order.
func movesOnlyUnitAxes(shape, p []int) bool {
	last := -1
	for _, pi := range p {
		if shape[pi] == 1 {
			continue
		}
		if pi < last {
			return false
		}
		last = pi
	}
	return true
}

// unpermutedOperands is u's operands on x's axes (t is transpose(x, p)),
// or false when one of them would cost a transpose of its own. Nothing is
// built unless every operand can be.
func (s *sinker) unpermutedOperands(u, t *ir.Operation, p []int) ([]*ir.Value, bool) {
	for _, v := range u.Operands() {
		if v.DefiningOp() != t && !costlessToUnpermute(v, p) {
			return nil, false
		}
	}
	out := make([]*ir.Value, u.NumOperands())
	for i, v := range u.Operands() {
		out[i] = s.unpermuted(v, t, p)
	}
	return out, true
}

// costlessToUnpermute reports whether the w with transpose(w, p) = v costs
// nothing at run time: v is a transpose by p (w is its input), a constant
// (rearranged at compile time; a splat only retyped), or a broadcast whose
// dimensions stay increasing on w's axes.
func costlessToUnpermute(v *ir.Value, p []int) bool {
	def := v.DefiningOp()
	rt, ok := v.Type().(*ir.RankedTensorType)
	if def == nil || !ok || len(rt.Dims) != len(p) {
		return false
	}
	switch {
	case def.Is(TransposeOp):
		return slices.Equal(permOf(def), p)
	case def.Is(ConstantOp):
		d, ok := def.Attr("value").(*ir.DenseElementsAttr)
		if _, known := ElementKind(rt); !ok || !known {
			return false
		}
		return d.Splat || d.NumElements() <= maxFoldedTransposeElements
	case def.Is(BroadcastOp):
		_, ok := broadcastDimsUnpermuted(def, p)
		return ok
	}
	return false
}

// broadcastDimsUnpermuted is the dimensions of the broadcast that makes
// w, where def = broadcast(b, dims) makes transpose(w, p): b's axis j lands
// on def's axis dims[j], which is w's axis p[dims[j]]. False when they are
// not increasing (the broadcast would need its operand transposed).
func broadcastDimsUnpermuted(def *ir.Operation, p []int) ([]int, bool) {
	dims, err := opAttrs(def).ints(DimensionsAttr)
	if err != nil {
		return nil, false
	}
	d := make([]int, len(dims))
	for j, dj := range dims {
		if dj < 0 || dj >= len(p) {
			return nil, false
		}
		d[j] = p[dj]
	}
	return d, slices.IsSorted(d) && !hasDuplicates(d)
}

// unpermuted builds, before the insertion point, w with transpose(w, p) =
// v, for v = t's result or v costless to unpermute.
func (s *sinker) unpermuted(v *ir.Value, t *ir.Operation, p []int) *ir.Value {
	ctx := s.rw.Ctx
	def := v.DefiningOp()
	if def == t {
		return def.Operand(0)
	}
	s.replaced = append(s.replaced, def)
	if def.Is(TransposeOp) {
		return def.Operand(0)
	}
	rt := v.Type().(*ir.RankedTensorType)
	ut := ctx.Tensor(dims64(unpermuted(shapeOf(rt), p)), rt.Elem)
	loc := PermutedLoc(ctx, def.Loc(), p)
	if def.Is(BroadcastOp) {
		d, _ := broadcastDimsUnpermuted(def, p)
		b := s.rw.Create(&ir.OperationState{Name: BroadcastOpName, Loc: loc, Operands: []*ir.Value{def.Operand(0)},
			ResultTypes: []ir.Type{ut}, Attrs: []ir.NamedAttr{{Name: DimensionsAttr, Value: I64Array(ctx, d...)}}})
		return b.Result(0)
	}
	d := def.Attr("value").(*ir.DenseElementsAttr)
	attr := ir.Attribute(ctx.Dense(ut, d.Data))
	if !d.Splat {
		a, err := ArrayFromAttr(d)
		if err == nil {
			var moved *eval.Array
			if moved, err = eval.Transpose(a, inverse(p)); err == nil {
				attr, err = AttrFromArray(ctx, ut, moved)
			}
		}
		if err != nil {
			panic("BUG: sink-transposes: rearranging a verified constant: " + err.Error())
		}
	}
	c, err := Constant(&s.rw.Builder, loc, attr)
	if err != nil {
		panic("BUG: sink-transposes: a rearranged constant: " + err.Error())
	}
	return c
}

// transpose builds transpose(v, p) before u, with u's location.
func (s *sinker) transpose(u *ir.Operation, v *ir.Value, p []int) *ir.Operation {
	ctx := s.rw.Ctx
	shape := shapeOf(v.Type())
	out := make([]int, len(p))
	for i, pi := range p {
		out[i] = shape[pi]
	}
	return s.rw.Create(&ir.OperationState{Name: TransposeOpName, Loc: u.Loc(), Operands: []*ir.Value{v},
		ResultTypes: []ir.Type{ctx.Tensor(dims64(out), elemOf(v.Type()))},
		Attrs:       []ir.NamedAttr{{Name: PermutationAttr, Value: I64Array(ctx, p...)}}})
}

// replace replaces u's result by next's and erases u.
func (s *sinker) replace(u, next *ir.Operation) {
	u.Result(0).ReplaceAllUsesWith(next.Result(0))
	s.erase(u)
}

// SourcePermutationKey names, in a fused location's metadata, the
// permutation that takes the value of the op at that location to the
// value of the source op at its first file location: the op computes the
// source op's value with its axes rearranged (SinkTransposes), and
// transpose(value, permutation) is the source's. A checkpoint sampling
// the op carries the permutation (runtime/ipupkg's Checkpoint), so a
// runner compares it with the source in the source's order.
const SourcePermutationKey = "source_permutation"

// PermutedLoc is loc marked as computing the value of loc's source op
// transposed by p (SourcePermutationKey).
func PermutedLoc(ctx *ir.Context, loc ir.Location, p []int) ir.Location {
	if q, ok := SourcePermutation(loc); ok {
		// Already a rearrangement: the source is transpose(transpose(v, p), q).
		r := compose(p, q)
		if fused, isFused := loc.(*ir.FusedLoc); isFused {
			loc = ctx.FusedLoc(fused.Locs, nil)
		}
		if isIdentity(r) {
			return loc
		}
		p = r
	}
	meta := ctx.Dict([]ir.NamedAttr{{Name: SourcePermutationKey, Value: I64Array(ctx, p...)}})
	return ctx.FusedLoc([]ir.Location{loc}, meta)
}

// SourcePermutation is the permutation loc names (PermutedLoc), following
// the first location of fused ones and the child of named ones as
// ir.FileLineColOf does; false when it names none.
func SourcePermutation(loc ir.Location) ([]int, bool) {
	switch l := loc.(type) {
	case *ir.NameLoc:
		if l.Child != nil {
			return SourcePermutation(l.Child)
		}
	case *ir.FusedLoc:
		if d, ok := l.Metadata.(*ir.DictAttr); ok {
			if a, ok := d.Get(SourcePermutationKey).(*ir.DenseArrayAttr); ok {
				p := make([]int, len(a.Ints))
				for i, x := range a.Ints {
					p[i] = int(x)
				}
				if eval.CheckPermutation(p, len(p)) == nil {
					return p, true
				}
				return nil, false
			}
		}
		for _, s := range l.Locs {
			if _, ok := ir.FileLineColOf(s); ok {
				return SourcePermutation(s)
			}
		}
	}
	return nil, false
}

// bestGroup is the transposes of the group that sinking makes fewest
// transposes of, nil when none makes any fewer. Sinking leaves a transpose
// wherever a moved one reaches an op that cannot take it (a matmul, a
// reshape that reorders, the function's results), so it only pays where
// most of them cancel. The transposes by one permutation p that meet at
// ops (two operands of an add) move together; per such group, sinking
// removes the group's transposes and the inverse ones it meets, and adds
// one where the moved values leak to other ops. A group is worth moving
// when it removes more elements' worth of transposes than it adds. A
// channels-first network's transposes back after each convolution cancel
// against the next one's; the one before its first convolution would
// leak into the receptive fields, nine times its size, and stays.
func bestGroup(root *ir.Operation) []*ir.Operation {
	var best []*ir.Operation
	var bestGain int64
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, r := range op.Regions() {
			for _, b := range r.Blocks() {
				var perms [][]int
				for _, t := range b.Ops() {
					if p := permOf(t); t.Is(TransposeOp) && p != nil && !slices.ContainsFunc(perms, func(q []int) bool { return slices.Equal(p, q) }) {
						perms = append(perms, p)
					}
				}
				for _, p := range perms {
					for _, g := range sinkGroups(b, p) {
						if g.gain > bestGain {
							best, bestGain = g.transposes, g.gain
						}
					}
				}
			}
		}
		return ir.WalkAdvance
	})
	return best
}

// sinkGroup is transposes that move together, and the elements' worth of
// transposes that moving them removes, less what it adds.
type sinkGroup struct {
	transposes []*ir.Operation
	gain       int64
}

// sinkGroups is the groups of the transposes by p of block b.
func sinkGroups(b *ir.Block, p []int) []sinkGroup {
	// Values that would be transposes by p once the group moves (the
	// transposes themselves, then what the ops reading them compute), by
	// group; groups joined at an op are merged (union-find).
	var parent []int
	var gain []int64
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(ids []int) int {
		r := find(ids[0])
		for _, i := range ids[1:] {
			if j := find(i); j != r {
				parent[j] = r
				gain[r] += gain[j]
			}
		}
		return r
	}
	group := map[*ir.Value]int{}
	leaked := map[*ir.Value]bool{}
	var sources []*ir.Operation
	for _, op := range b.Ops() {
		var ids []int
		for _, v := range op.Operands() {
			if g, ok := group[v]; ok {
				ids = append(ids, g)
			}
		}
		if len(ids) > 0 {
			g := union(ids)
			switch sinkEffect(op, p, group) {
			case carries:
				group[op.Result(0)] = g
			case cancels:
				gain[g] += elementsOf(op.Result(0))
			case leaks:
				for _, v := range op.Operands() {
					if _, in := group[v]; in && !leaked[v] {
						leaked[v] = true
						gain[find(group[v])] -= elementsOf(v)
					}
				}
			}
		}
		// A transpose inside a decomposed op (its readers located where
		// it is: a convolution's transpose to channels last) is where the
		// decomposition wants it, and stays.
		if op.Is(TransposeOp) && slices.Equal(permOf(op), p) && len(ids) == 0 && isResultPiece(op) {
			parent = append(parent, len(parent))
			gain = append(gain, elementsOf(op.Result(0)))
			group[op.Result(0)] = len(parent) - 1
			sources = append(sources, op)
		}
	}
	at := map[int]int{}
	var out []sinkGroup
	for _, t := range sources {
		r := find(group[t.Result(0)])
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, sinkGroup{gain: gain[r]})
		}
		out[k].transposes = append(out[k].transposes, t)
	}
	return out
}

// The effect of moving a transpose by p past an op that reads it.
type effect int

const (
	leaks   effect = iota // the op cannot take it: a transpose stays before it
	carries               // the op computes on the moved axes; its result is transposed by p
	absorbs               // the op takes it at no cost (a reshape of unit axes, a broadcast, a reduction)
	cancels               // the op is the inverse transpose, and goes with it
)

// sinkEffect is what moving transposes by p (the values in group) past op
// does, by the rules SinkTransposes rewrites with.
func sinkEffect(op *ir.Operation, p []int, group map[*ir.Value]int) effect {
	if op.NumResults() != 1 {
		return leaks
	}
	x := op.Operand(0)
	switch {
	case op.Is(TransposeOp):
		q := permOf(op)
		if len(q) != len(p) {
			return leaks
		}
		r := compose(p, q)
		if isIdentity(r) {
			return cancels
		}
		return absorbs // one transpose for another
	case op.Is(ReshapeOp):
		if movesOnlyUnitAxes(unpermuted(shapeOf(x.Type()), p), p) {
			return absorbs
		}
	case op.Is(BroadcastOp):
		if _, ok := broadcastAbsorbing(op, p); ok {
			return absorbs
		}
	case op.Is(SliceOp):
		// A value read by many slices is gathered from (an upsampling's
		// rows, a resize's taps): its slices are laid out for the axis
		// order they read, and moving the transpose past them made a
		// U-Net's resize six times dearer. A pooling window's few slices
		// take it.
		if slicesOf(x) > maxCarriedSlices {
			return leaks
		}
		return carries
	case op.Is(ReduceSumOp, ReduceMaxOp):
		return absorbs // a transpose of the (smaller) reduced value at most
	case op.Is(ConcatOp), ir.Implements[ir.Elementwise](op):
		for _, v := range op.Operands() {
			if _, in := group[v]; !in && !costlessToUnpermute(v, p) {
				return leaks
			}
		}
		return carries
	}
	return leaks
}

// elementsOf is the number of elements of v's tensor type (0 for others).
func elementsOf(v *ir.Value) int64 {
	rt, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return 0
	}
	n := int64(1)
	for _, d := range rt.Dims {
		n *= d
	}
	return n
}

// maxCarriedSlices is the most slices of one value a transpose moves past
// (sinkEffect): a 3×3 pooling window's nine, not a resize's hundreds.
const maxCarriedSlices = 16

// slicesOf counts the slices that read v.
func slicesOf(v *ir.Value) int {
	n := 0
	for _, u := range v.Users() {
		if u.Is(SliceOp) {
			n++
		}
	}
	return n
}

// compose is r with transpose(transpose(v, p), q) = transpose(v, r):
// r[i] = p[q[i]]. p and q have one length.
func compose(p, q []int) []int {
	r := make([]int, len(q))
	for i, qi := range q {
		r[i] = p[qi]
	}
	return r
}

// broadcastAbsorbing is the dimensions of the broadcast of x that gives
// b = broadcast(transpose(x, p)): b's operand axis j is x's axis p[j], so
// x's axis i goes where b sends axis inverse(p)[i]. False when those are
// not increasing (the broadcast cannot take the transpose).
func broadcastAbsorbing(b *ir.Operation, p []int) ([]int, bool) {
	dims, err := opAttrs(b).ints(DimensionsAttr)
	if err != nil || len(dims) != len(p) {
		return nil, false
	}
	q := inverse(p)
	d := make([]int, len(p))
	for i := range d {
		d[i] = dims[q[i]]
	}
	return d, slices.IsSorted(d) && !hasDuplicates(d)
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
)

// source is what every parse of the program being reduced shares: the
// file's name (for diagnostics) and whether ops of unknown dialects parse
// (--allow-unregistered-dialect).
type source struct {
	file         string
	unregistered bool
}

// parse parses text into a fresh context.
func (s source) parse(text []byte) (*ir.Operation, error) {
	ctx := registry.NewContext()
	ctx.AllowUnregisteredDialects = s.unregistered
	return parser.ParseSourceString(ctx, text, parser.Config{Filename: s.file})
}

func print(module *ir.Operation) ([]byte, error) {
	var b bytes.Buffer
	if err := printer.Print(&b, module, printer.Options{}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// An edit is one way to make a program smaller, named by what it is about:
// an op's index among the program's reducible ops (walk order), a block's
// among the blocks that are not their region's entry, or a function's
// among its functions. Dead ops, unreachable blocks and unused arguments
// are removed after every edit.
type edit struct {
	kind editKind
	at   int
	sub  int    // clearRegion: the region; shrinkDim: the new size
	attr string // dropAttr: the attribute; dropResult: the result; shrinkDim: the size shrunk
}

type editKind int

const (
	// cutOp: the op's used results become new arguments of its function,
	// and the op goes, so what only fed it dies.
	cutOp editKind = iota
	// returnOp: the function returns the op's results instead of its own,
	// so what only came after the op dies.
	returnOp
	// constantOp: the op's results become zero constants (as its dialect
	// materialises them), the function's signature unchanged; a constant
	// of many elements becomes a zero splat (its attribute simplified).
	constantOp
	// dropAttr: the op loses a discardable attribute (one whose name has a
	// dialect prefix, MLIR's convention: ipu.stage, tiled.constraint, ...).
	dropAttr
	// eraseFunction: a function nothing refers to goes.
	eraseFunction
	// dropResult: a function returns one result fewer (attr holds its
	// index), so what only fed it dies.
	dropResult
	// clearRegion: an op's region loses all its blocks (an empty region,
	// where the op's verifier allows one).
	clearRegion
	// eraseBlock: a block that is not its region's entry goes, and every
	// branch to it loses that successor (and the operands it passed);
	// blocks no longer reachable go with it.
	eraseBlock
	// mergeBlock: a block whose one predecessor's branch goes only to it
	// joins that predecessor: the branch goes (what it passed becomes the
	// block's arguments' values) and the block's ops follow the
	// predecessor's.
	mergeBlock
	// bypassOp: the op's one result is replaced by its operand sub, of the
	// same type, and the op goes: a link of a chain taken out, which a
	// cut cannot do inside a region (what fed the op would die with it).
	bypassOp
	// hoistRegion: an op of one region of one block, without block
	// arguments or used results, is replaced by its region's ops (less a
	// known terminator): the nesting taken out.
	hoistRegion
	// shrinkDim: every tensor dimension of size attr becomes sub (1, or
	// half), in every type of the program: the types simplified, where
	// the ops' verifiers accept the new shapes.
	shrinkDim
)

func (e edit) String() string {
	switch e.kind {
	case cutOp:
		return fmt.Sprintf("cut op %d", e.at)
	case returnOp:
		return fmt.Sprintf("return op %d's results", e.at)
	case constantOp:
		return fmt.Sprintf("op %d's results as constants", e.at)
	case dropAttr:
		return fmt.Sprintf("drop op %d's %s", e.at, e.attr)
	case dropResult:
		return fmt.Sprintf("drop function %d's result %s", e.at, e.attr)
	case clearRegion:
		return fmt.Sprintf("clear op %d's region %d", e.at, e.sub)
	case eraseBlock:
		return fmt.Sprintf("erase block %d", e.at)
	case mergeBlock:
		return fmt.Sprintf("merge block %d into its predecessor", e.at)
	case shrinkDim:
		return fmt.Sprintf("dimensions of %s to %d", e.attr, e.sub)
	case bypassOp:
		return fmt.Sprintf("op %d's result as its operand %d", e.at, e.sub)
	case hoistRegion:
		return fmt.Sprintf("hoist op %d's region", e.at)
	}
	return fmt.Sprintf("erase function %d", e.at)
}

// program is one state of the reduction: its text and its size.
type program struct {
	text []byte
	ops  int   // reducible ops
	elts int64 // elements of every tensor the program's values hold
}

// measure is the program of module's text.
func measure(module *ir.Operation, text []byte) program {
	p := program{text: text, ops: len(reducible(module))}
	count := func(v *ir.Value) {
		if t, ok := v.Type().(*ir.RankedTensorType); ok {
			n := int64(1)
			for _, d := range t.Dims {
				n *= max(d, 1)
			}
			p.elts += n
		}
	}
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, r := range op.Regions() {
			for _, b := range r.Blocks() {
				for _, a := range b.Arguments() {
					count(a)
				}
			}
		}
		for _, r := range op.Results() {
			count(r)
		}
		return ir.WalkAdvance
	})
	return p
}

// compare orders programs by size: fewer ops, then fewer tensor elements,
// then shorter text. Every step of a reduction is strictly smaller, so it
// ends.
func compare(a, b program) int {
	if a.ops != b.ops {
		return a.ops - b.ops
	}
	if a.elts != b.elts {
		if a.elts < b.elts {
			return -1
		}
		return 1
	}
	return len(a.text) - len(b.text)
}

// reducible are the ops of module's functions that an edit may remove:
// every op in a function's body, at any depth, but the terminators, in
// walk order.
func reducible(module *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op == module {
			return ir.WalkAdvance
		}
		fn := enclosingFunction(op)
		if fn == nil || op == fn || isTerminator(op) {
			return ir.WalkAdvance
		}
		out = append(out, op)
		return ir.WalkAdvance
	})
	return out
}

// innerBlocks are the blocks of module's functions, at any depth, that are
// not their region's entry block, in walk order.
func innerBlocks(module *ir.Operation) []*ir.Block {
	var out []*ir.Block
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op == module || enclosingFunction(op) == nil {
			return ir.WalkAdvance
		}
		for _, r := range op.Regions() {
			for _, b := range r.Blocks()[min(1, r.NumBlocks()):] {
				out = append(out, b)
			}
		}
		return ir.WalkAdvance
	})
	return out
}

func isTerminator(op *ir.Operation) bool {
	b := op.Block()
	return b != nil && b.Terminator() == op
}

// enclosingFunction is the function-like op op is in (op itself when it
// is one), or nil.
func enclosingFunction(op *ir.Operation) *ir.Operation {
	for p := op; p != nil; p = p.ParentOp() {
		if _, ok := ir.Interface[ir.FunctionLike](p); ok {
			return p
		}
	}
	return nil
}

// functions are module's function-like ops, in order.
func functions(module *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	for _, op := range module.Region(0).Front().Ops() {
		if _, ok := ir.Interface[ir.FunctionLike](op); ok {
			out = append(out, op)
		}
	}
	return out
}

// edits are every edit of module.
func edits(module *ir.Operation) []edit {
	var out []edit
	for i, op := range reducible(module) {
		out = append(out, edit{kind: cutOp, at: i}, edit{kind: returnOp, at: i})
		if (!op.HasTrait(ir.TraitConstantLike) || holdsElements(op)) && allRankedTensors(op.Results()) {
			out = append(out, edit{kind: constantOp, at: i})
		}
		for _, a := range attrsOf(op) {
			if strings.Contains(a.Name, ".") {
				out = append(out, edit{kind: dropAttr, at: i, attr: a.Name})
			}
		}
		for k, in := range op.Operands() {
			if op.NumResults() == 1 && in.Type() == op.Result(0).Type() {
				out = append(out, edit{kind: bypassOp, at: i, sub: k})
			}
		}
		for r, region := range op.Regions() {
			if !region.Empty() {
				out = append(out, edit{kind: clearRegion, at: i, sub: r})
			}
		}
		if op.NumRegions() == 1 && op.Region(0).NumBlocks() == 1 {
			out = append(out, edit{kind: hoistRegion, at: i})
		}
	}
	for i := range innerBlocks(module) {
		out = append(out, edit{kind: eraseBlock, at: i}, edit{kind: mergeBlock, at: i})
	}
	fns := functions(module)
	for i, fn := range fns {
		if len(fns) > 1 {
			out = append(out, edit{kind: eraseFunction, at: i})
		}
		fl, _ := ir.Interface[ir.FunctionLike](fn)
		if n := len(fl.FunctionType(fn).Results); n > 1 {
			for r := range n {
				out = append(out, edit{kind: dropResult, at: i, attr: fmt.Sprint(r)})
			}
		}
	}
	for _, d := range dimensions(module) {
		out = append(out, edit{kind: shrinkDim, attr: fmt.Sprint(d), sub: 1})
		if d > 2 && d%2 == 0 {
			out = append(out, edit{kind: shrinkDim, attr: fmt.Sprint(d), sub: int(d / 2)})
		}
	}
	return out
}

// dimensions are the sizes above 1 of the dimensions of the tensors
// module's values hold without an encoding (a laid-out tensor's size is its
// layout's too, which a text edit cannot follow), smallest first.
func dimensions(module *ir.Operation) []int64 {
	seen := map[int64]bool{}
	add := func(v *ir.Value) {
		if t, ok := v.Type().(*ir.RankedTensorType); ok && t.Encoding == nil {
			for _, d := range t.Dims {
				if d > 1 {
					seen[d] = true
				}
			}
		}
	}
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, r := range op.Results() {
			add(r)
		}
		for _, r := range op.Regions() {
			for _, b := range r.Blocks() {
				for _, a := range b.Arguments() {
					add(a)
				}
			}
		}
		return ir.WalkAdvance
	})
	out := make([]int64, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// tensorDims matches the dimensions of a tensor type in the text ("4x8x"
// of tensor<4x8xf16>).
var tensorDims = regexp.MustCompile(`tensor<((?:[0-9]+x)+)`)

// withDimension rewrites every dimension of size from to to in text's
// tensor types.
func withDimension(text []byte, from string, to int) []byte {
	return tensorDims.ReplaceAllFunc(text, func(m []byte) []byte {
		dims := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(m), "tensor<"), "x"), "x")
		for i, d := range dims {
			if d == from {
				dims[i] = fmt.Sprint(to)
			}
		}
		return []byte("tensor<" + strings.Join(dims, "x") + "x")
	})
}

// holdsElements reports whether op has an attribute of many elements
// (a constant's value, not a splat), which a zero splat simplifies.
func holdsElements(op *ir.Operation) bool {
	for _, a := range attrsOf(op) {
		if d, ok := a.Value.(*ir.DenseElementsAttr); ok && !d.Splat {
			return true
		}
	}
	if d, ok := op.Attr("value").(*ir.DenseElementsAttr); ok && !d.Splat {
		return true
	}
	return false
}

// attrsOf is op's attributes (none: nil).
func attrsOf(op *ir.Operation) []ir.NamedAttr {
	if d := op.Attrs(); d != nil {
		return d.Entries
	}
	return nil
}

func allRankedTensors(vs []*ir.Value) bool {
	for _, v := range vs {
		if _, ok := v.Type().(*ir.RankedTensorType); !ok {
			return false
		}
	}
	return len(vs) > 0
}

// apply makes the edit on a fresh parse of p and returns the result, or
// false when the edit does not apply or leaves an invalid program (every
// candidate verifies before a test sees it).
func (s source) apply(p program, e edit) (program, bool) {
	text := p.text
	if e.kind == shrinkDim {
		text = withDimension(text, e.attr, e.sub)
	}
	module, err := s.parse(text)
	if err != nil {
		return program{}, false
	}
	if e.kind != shrinkDim && !applyTo(module, e) || ir.Verify(module) != nil {
		return program{}, false
	}
	if text, err = print(module); err != nil {
		return program{}, false
	}
	return measure(module, text), true
}

func applyTo(module *ir.Operation, e edit) bool {
	switch e.kind {
	case dropResult:
		fns := functions(module)
		if e.at >= len(fns) {
			return false
		}
		return dropFunctionResult(fns[e.at], e.attr)
	case eraseFunction:
		fns := functions(module)
		if e.at >= len(fns) || len(fns) < 2 {
			return false
		}
		if name, ok := ir.SymbolName(fns[e.at]); !ok || referenced(module, name) {
			return false
		}
		fns[e.at].Erase()
		return true
	case eraseBlock, mergeBlock:
		blocks := innerBlocks(module)
		if e.at >= len(blocks) {
			return false
		}
		fn := enclosingFunction(blocks[e.at].ParentOp())
		remove := removeBlock
		if e.kind == mergeBlock {
			remove = mergeIntoPredecessor
		}
		if !remove(blocks[e.at]) {
			return false
		}
		cleanUp(fn)
		return true
	}
	ops := reducible(module)
	if e.at >= len(ops) {
		return false
	}
	op := ops[e.at]
	fn := enclosingFunction(op)
	switch e.kind {
	case cutOp:
		cut(fn, op)
	case returnOp:
		fl, _ := ir.Interface[ir.FunctionLike](fn)
		if body := fl.FunctionBody(fn); op.Block() != body.Front() || body.NumBlocks() != 1 || !returnResults(fn, op) {
			return false // the function's one return must see the op
		}
	case constantOp:
		if !asConstants(op) {
			return false
		}
	case dropAttr:
		if op.Attr(e.attr) == nil {
			return false
		}
		op.SetAttr(op.Context(), e.attr, nil)
	case bypassOp:
		if op.NumResults() != 1 || e.sub >= op.NumOperands() || op.Operand(e.sub).Type() != op.Result(0).Type() {
			return false
		}
		op.Result(0).ReplaceAllUsesWith(op.Operand(e.sub))
		op.DropAllReferences()
		op.Erase()
	case hoistRegion:
		if op.NumRegions() != 1 || op.Region(0).NumBlocks() != 1 || op.Region(0).Front().NumArguments() != 0 || !op.UseEmpty() {
			return false
		}
		for _, inner := range op.Region(0).Front().Ops() {
			if !isTerminator(inner) {
				inner.MoveBefore(op)
			}
		}
		op.DropAllReferences()
		op.Erase()
	case clearRegion:
		if e.sub >= op.NumRegions() || op.Region(e.sub).Empty() {
			return false
		}
		r := op.Region(e.sub)
		for _, b := range slices.Backward(r.Blocks()) {
			if !removeBlock(b) {
				return false
			}
		}
	}
	cleanUp(fn)
	return true
}

// mergeIntoPredecessor joins b to its one predecessor, whose last op
// branches only to b: that branch goes, b's arguments take the values it
// passed (where its declaration says which; else b must have none), and
// b's ops move to the predecessor's end.
func mergeIntoPredecessor(b *ir.Block) bool {
	preds := b.Predecessors()
	if len(preds) != 1 || preds[0] == b {
		return false
	}
	p := preds[0]
	br := p.Last()
	if br == nil || br.NumSuccessors() != 1 {
		return false
	}
	var passed []*ir.Value
	if start, n, ok := br.SuccessorOperands(0); ok {
		passed = br.Operands()[start : start+n]
	}
	if len(passed) != b.NumArguments() {
		return false
	}
	for i, a := range b.Arguments() {
		a.ReplaceAllUsesWith(passed[i])
	}
	br.DropAllReferences()
	br.Erase()
	for _, op := range b.Ops() {
		op.Remove()
		p.Append(op)
	}
	b.Parent().RemoveBlock(b)
	return true
}

// removeBlock erases b and its ops, and drops it from every branch to it
// with the operands the branch passed it (where the branch's declaration
// says which). It refuses a block whose values are used outside it.
func removeBlock(b *ir.Block) bool {
	if passes.UsedFromOutside([]*ir.Block{b}) {
		return false
	}
	r := b.Parent()
	for _, other := range r.Blocks() {
		// The last op, not Terminator(): an unknown op may branch.
		t := other.Last()
		if other == b || t == nil {
			continue
		}
		for i := t.NumSuccessors() - 1; i >= 0; i-- {
			if t.Successor(i) != b {
				continue
			}
			if start, n, ok := t.SuccessorOperands(i); ok && n > 0 {
				t.SetOperands(slices.Delete(t.Operands(), start, start+n))
			}
			t.EraseSuccessor(i)
		}
	}
	for _, op := range b.Ops() {
		op.DropAllReferences()
	}
	for _, op := range slices.Backward(b.Ops()) {
		op.Erase()
	}
	r.RemoveBlock(b)
	return true
}

// referenced reports whether module's text refers to the symbol @name
// anywhere but its definition.
func referenced(module *ir.Operation, name string) bool {
	found := false
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, a := range attrsOf(op) {
			if a.Name == ir.SymbolAttrName {
				continue
			}
			if strings.Contains(ir.AttrString(a.Value), "@"+name) {
				found = true
				return ir.WalkInterrupt
			}
		}
		return ir.WalkAdvance
	})
	return found
}

// asConstants replaces op's results with zero constants of their types,
// as op's dialect materialises constants.
func asConstants(op *ir.Operation) bool {
	ctx := op.Context()
	dialect, _, _ := strings.Cut(op.Name(), ".")
	d := ctx.Dialect(dialect)
	if d == nil || d.MaterializeConstant == nil {
		return false
	}
	b := ir.NewBuilder(ctx)
	b.SetInsertionPoint(op)
	for _, r := range op.Results() {
		t := r.Type().(*ir.RankedTensorType)
		size := ir.ElementByteSize(t.ElementType())
		if size <= 0 {
			return false
		}
		c := d.MaterializeConstant(b, ctx.Dense(t, make([]byte, size)), t, op.Loc())
		if c == nil {
			return false
		}
		r.ReplaceAllUsesWith(c.Result(0))
	}
	op.Erase()
	return true
}

// cut replaces op's results, where used, with new arguments of fn, and
// erases op.
func cut(fn, op *ir.Operation) {
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	block := fl.FunctionBody(fn).Front()
	ft := fl.FunctionType(fn)
	inputs := slices.Clone(ft.Inputs)
	for _, r := range op.Results() {
		if !r.HasUses() {
			continue
		}
		arg := block.AddArgument(r.Type(), op.Loc())
		inputs = append(inputs, r.Type())
		r.ReplaceAllUsesWith(arg)
	}
	fl.SetFunctionType(fn, fn.Context().Function(inputs, ft.Results))
	growArgAttrs(fn, len(inputs))
	op.Erase()
}

// returnResults makes fn return op's results instead of what it returned.
func returnResults(fn, op *ir.Operation) bool {
	if op.NumResults() == 0 {
		return false
	}
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	ret := fl.FunctionBody(fn).Front().Terminator()
	if ret == nil || ret.NumRegions() != 0 {
		return false
	}
	var types []ir.Type
	for _, r := range op.Results() {
		types = append(types, r.Type())
	}
	ret.SetOperands(slices.Clone(op.Results()))
	ft := fl.FunctionType(fn)
	fl.SetFunctionType(fn, fn.Context().Function(ft.Inputs, types))
	fn.SetAttr(fn.Context(), ir.ResAttrsName, nil)
	return true
}

// dropFunctionResult makes fn return all but its result which (an index,
// as text).
func dropFunctionResult(fn *ir.Operation, which string) bool {
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	body := fl.FunctionBody(fn)
	if len(body.Blocks()) != 1 {
		return false
	}
	ret := body.Front().Terminator()
	ft := fl.FunctionType(fn)
	i := 0
	if _, err := fmt.Sscan(which, &i); err != nil || ret == nil || i >= len(ft.Results) || ret.NumOperands() != len(ft.Results) {
		return false
	}
	ret.SetOperands(slices.Delete(slices.Clone(ret.Operands()), i, i+1))
	fl.SetFunctionType(fn, fn.Context().Function(ft.Inputs, slices.Delete(slices.Clone(ft.Results), i, i+1)))
	fn.SetAttr(fn.Context(), ir.ResAttrsName, nil)
	cleanUp(fn)
	return true
}

// cleanUp erases fn's dead ops until none is left, its blocks no branch
// reaches any more, then its unused arguments. A dead op is a registered
// one whose results are unused (ops of our dialects have no other
// effects), at any depth; an op of an unknown dialect may be there for an
// effect, so only an edit of its own removes it.
func cleanUp(fn *ir.Operation) {
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	for changed := true; changed; {
		changed = passes.SimplifyRegions(ir.NewRewriter(fn.Context(), nil), fn.Regions(), passes.RegionSimplifyNormal)
		for _, r := range fn.Regions() {
			changed = eraseDead(r) || changed
		}
	}
	block := fl.FunctionBody(fn).Front()
	ft := fl.FunctionType(fn)
	inputs := slices.Clone(ft.Inputs)
	attrs, _ := fn.Attr(ir.ArgAttrsName).(*ir.ArrayAttr)
	var keep []ir.Attribute
	for i := block.NumArguments() - 1; i >= 0; i-- {
		if block.Argument(i).HasUses() {
			continue
		}
		block.EraseArgument(i)
		inputs = slices.Delete(inputs, i, i+1)
		if attrs != nil && i < len(attrs.Elems) {
			keep = slices.Delete(slices.Clone(attrsOr(keep, attrs)), i, i+1)
		}
	}
	fl.SetFunctionType(fn, fn.Context().Function(inputs, ft.Results))
	if attrs != nil && keep != nil {
		fn.SetAttr(fn.Context(), ir.ArgAttrsName, fn.Context().Array(keep...))
	}
}

// eraseDead erases the dead registered ops of r and its nested regions,
// each block's last op first, so that a chain of dead ops goes in one
// sweep.
func eraseDead(r *ir.Region) bool {
	changed := false
	for _, b := range r.Blocks() {
		for op := b.Last(); op != nil; {
			prev := op.Prev()
			for _, nested := range op.Regions() {
				changed = eraseDead(nested) || changed
			}
			if op.IsRegistered() && !isTerminator(op) && op.UseEmpty() && !ir.IsSymbolOp(op) {
				op.DropAllReferences()
				op.Erase()
				changed = true
			}
			op = prev
		}
	}
	return changed
}

func attrsOr(keep []ir.Attribute, attrs *ir.ArrayAttr) []ir.Attribute {
	if keep != nil {
		return keep
	}
	return attrs.Elems
}

// growArgAttrs keeps fn's per-argument attributes as long as its n
// arguments.
func growArgAttrs(fn *ir.Operation, n int) {
	attrs, ok := fn.Attr(ir.ArgAttrsName).(*ir.ArrayAttr)
	if !ok {
		return
	}
	elems := slices.Clone(attrs.Elems)
	for len(elems) < n {
		elems = append(elems, fn.Context().Dict(nil))
	}
	fn.SetAttr(fn.Context(), ir.ArgAttrsName, fn.Context().Array(elems...))
}

// exhaustiveOps is the size below which a round tries every edit; above
// it, a round tries cuts and returns at sixteenths of the program (the
// halving of delta debugging), so that each round of a large program costs
// a few dozen parses, not one per op, until it is small.
const exhaustiveOps = 400

// sample is the edits a round tries on a program of n ops.
func sample(all []edit, n int) []edit {
	if n <= exhaustiveOps {
		return all
	}
	at := map[int]bool{}
	for i := 1; i < 16; i++ {
		at[n*i/16] = true
	}
	var out []edit
	for _, e := range all {
		if (e.kind == cutOp || e.kind == returnOp) && at[e.at] || e.kind == dropResult || e.kind == eraseFunction {
			out = append(out, e)
		}
	}
	return out
}

// reduce shrinks start while test says it stays interesting: each round
// makes every edit, keeps those that verify and shrink the program,
// orders them smallest result first (then by edit, so the order is
// fixed), and tests them `workers` at a time; the first interesting one in
// that order is taken, and the next round starts from it. It stops when no
// edit is interesting. The result is deterministic: it does not depend on
// which test finishes first.
func reduce(ctx context.Context, src source, start program, test func(context.Context, []byte) (bool, error), workers int,
	progress func(round int, p program, tested int)) (program, int, error) {
	cur := start
	tested := 0
	for round := 1; ; round++ {
		type candidate struct {
			e edit
			p program
		}
		module, err := src.parse(cur.text)
		if err != nil {
			return cur, tested, err
		}
		var cands []candidate
		for _, e := range sample(edits(module), cur.ops) {
			if p, ok := src.apply(cur, e); ok && compare(p, cur) < 0 {
				cands = append(cands, candidate{e, p})
			}
		}
		slices.SortStableFunc(cands, func(a, b candidate) int { return compare(a.p, b.p) })
		found := -1
		for at := 0; at < len(cands) && found < 0; at += workers {
			batch := cands[at:min(at+workers, len(cands))]
			results := make([]bool, len(batch))
			errs := make([]error, len(batch))
			var wg sync.WaitGroup
			for i := range batch {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = test(ctx, batch[i].p.text)
				}()
			}
			wg.Wait()
			tested += len(batch)
			for i := range batch {
				if errs[i] != nil {
					return cur, tested, errs[i]
				}
				if results[i] && found < 0 {
					found = at + i
				}
			}
			if ctx.Err() != nil {
				return cur, tested, ctx.Err()
			}
		}
		if found < 0 {
			return cur, tested, nil
		}
		cur = cands[found].p
		if progress != nil {
			progress(round, cur, tested)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
)

// An edit is one way to make a program smaller, named by what it is about
// (an op's index among the program's reducible ops, in walk order, or a
// function's among its functions). Dead ops and unused arguments are
// removed after every edit.
type edit struct {
	kind editKind
	at   int
	attr string // dropAttr: the attribute
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
	// materialises them), the function's signature unchanged.
	constantOp
	// dropAttr: the op loses a discardable attribute (one whose name has a
	// dialect prefix, MLIR's convention: ipu.stage, tiled.constraint, ...).
	dropAttr
	// eraseFunction: a function nothing refers to goes.
	eraseFunction
	// dropResult: a function returns one result fewer (attr holds its
	// index), so what only fed it dies.
	dropResult
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
	}
	if e.kind == dropResult {
		return fmt.Sprintf("drop function %d's result %s", e.at, e.attr)
	}
	return fmt.Sprintf("erase function %d", e.at)
}

// program is one state of the reduction: its text and its size.
type program struct {
	text []byte
	ops  int // reducible ops
}

// parse parses text into a fresh context.
func parse(file string, text []byte) (*ir.Operation, error) {
	ctx := registry.NewContext()
	return parser.ParseSourceString(ctx, text, parser.Config{Filename: file})
}

func print(module *ir.Operation) ([]byte, error) {
	var b bytes.Buffer
	if err := printer.Print(&b, module, printer.Options{}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// reducible are the ops of module's functions that an edit may remove:
// every op in a function body but its terminator, in walk order.
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
		if !op.HasTrait(ir.TraitConstantLike) && allRankedTensors(op.Results()) {
			out = append(out, edit{kind: constantOp, at: i})
		}
		for _, a := range attrsOf(op) {
			if strings.Contains(a.Name, ".") {
				out = append(out, edit{kind: dropAttr, at: i, attr: a.Name})
			}
		}
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
	return out
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
func apply(file string, p program, e edit) (program, bool) {
	module, err := parse(file, p.text)
	if err != nil {
		return program{}, false
	}
	if !applyTo(module, e) || ir.Verify(module) != nil {
		return program{}, false
	}
	text, err := print(module)
	if err != nil {
		return program{}, false
	}
	return program{text: text, ops: len(reducible(module))}, true
}

func applyTo(module *ir.Operation, e edit) bool {
	if e.kind == dropResult {
		fns := functions(module)
		if e.at >= len(fns) {
			return false
		}
		return dropFunctionResult(fns[e.at], e.attr)
	}
	if e.kind == eraseFunction {
		fns := functions(module)
		if e.at >= len(fns) || len(fns) < 2 {
			return false
		}
		if name, ok := ir.SymbolName(fns[e.at]); !ok || referenced(module, name) {
			return false
		}
		fns[e.at].Erase()
		return true
	}
	ops := reducible(module)
	if e.at >= len(ops) {
		return false
	}
	op := ops[e.at]
	fn := enclosingFunction(op)
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	body := fl.FunctionBody(fn)
	if op.Block() != body.Front() || len(body.Blocks()) != 1 {
		return false // a nested op, or a function of several blocks
	}
	switch e.kind {
	case cutOp:
		cut(fn, op)
	case returnOp:
		if !returnResults(fn, op) {
			return false
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
	}
	cleanUp(fn)
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

// cleanUp erases fn's dead ops (no result used; ops here have no other
// effects) until none is left, then its unused arguments.
func cleanUp(fn *ir.Operation) {
	fl, _ := ir.Interface[ir.FunctionLike](fn)
	block := fl.FunctionBody(fn).Front()
	for changed := true; changed; {
		changed = false
		for _, op := range slices.Backward(block.Ops()) {
			if isTerminator(op) {
				continue
			}
			dead := true
			for _, r := range op.Results() {
				dead = dead && !r.HasUses()
			}
			if dead {
				op.Erase()
				changed = true
			}
		}
	}
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
func reduce(ctx context.Context, file string, start program, test func(context.Context, []byte) (bool, error), workers int,
	progress func(round int, p program, tested int)) (program, int, error) {
	cur := start
	tested := 0
	for round := 1; ; round++ {
		type candidate struct {
			e edit
			p program
		}
		module, err := parse(file, cur.text)
		if err != nil {
			return cur, tested, err
		}
		var cands []candidate
		for _, e := range sample(edits(module), cur.ops) {
			if p, ok := apply(file, cur, e); ok && (p.ops < cur.ops || len(p.text) < len(cur.text)) {
				cands = append(cands, candidate{e, p})
			}
		}
		slices.SortStableFunc(cands, func(a, b candidate) int {
			if a.p.ops != b.p.ops {
				return a.p.ops - b.p.ops
			}
			return len(a.p.text) - len(b.p.text)
		})
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

package ir

import (
	"fmt"
	"strings"
	"testing"
)

// verifyFixture builds IR for verifier tests: a registered "v.fn" op that
// is isolated from above with one region needing terminators, a registered
// terminator "v.ret", a registered non-terminator "v.call", and
// unregistered ops for everything else.
type verifyFixture struct {
	ctx  *Context
	b    *Builder
	line int
}

func newVerifyFixture(t *testing.T) *verifyFixture {
	t.Helper()
	c := NewContext()
	c.AllowUnregisteredDialects = true
	err := c.RegisterDialect(&Dialect{Name: "v", Ops: []*OpDef{
		{Name: "v.fn", Regions: []RegionDef{{Name: "body"}}, Traits: TraitIsolatedFromAbove},
		{Name: "v.ret", Traits: TraitTerminator},
		{Name: "v.call"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &verifyFixture{ctx: c, b: NewBuilder(c)}
}

func (f *verifyFixture) loc() Location {
	f.line++
	return f.ctx.FileLineCol("v.mlir", f.line, 1)
}

// op appends an op to blk.
func (f *verifyFixture) op(blk *Block, name string, operands []*Value, results []Type, succs ...*Block) *Operation {
	f.b.SetInsertionPointToEnd(blk)
	return f.b.Create(&OperationState{Name: name, Operands: operands, ResultTypes: results, Successors: succs, Loc: f.loc()})
}

// withRegion appends an op with one region of n blocks to blk.
func (f *verifyFixture) withRegion(blk *Block, name string, n int) (*Operation, []*Block) {
	f.b.SetInsertionPointToEnd(blk)
	op := f.b.Create(&OperationState{Name: name, NumRegions: 1, Loc: f.loc()})
	var blocks []*Block
	for i := 0; i < n; i++ {
		blocks = append(blocks, f.b.CreateBlock(op.Region(0), nil, nil))
	}
	return op, blocks
}

func (f *verifyFixture) module() (*Operation, *Block) {
	m := NewModule(f.ctx, f.loc())
	return m, ModuleBody(m)
}

func wantDiag(t *testing.T, d *Diagnostic, at *Operation, msg string, withOp bool) {
	t.Helper()
	if d == nil {
		t.Fatalf("verified; want %q", msg)
	}
	if d.Message != msg || d.Loc != at.Loc() {
		t.Errorf("got %q at %s; want %q at %s", d.Message, AttrString(d.Loc), msg, AttrString(at.Loc()))
	}
	if (d.Op != nil) != withOp {
		t.Errorf("%q: op set %v, want %v (mlir-opt's see-current-operation note)", msg, d.Op != nil, withOp)
	}
}

// An empty block that needs a terminator is reported at the region's op,
// without an op prefix or note; so is an entry block with predecessors,
// which is found before the blocks are looked at.
func TestVerifyBareLocationErrors(t *testing.T) {
	f := newVerifyFixture(t)
	_, body := f.module()
	fn, blocks := f.withRegion(body, "v.fn", 2)
	f.op(blocks[1], "v.ret", nil, nil)
	wantDiag(t, Verify(fn), fn, "empty block: expect at least a terminator", false)

	x, xb := f.withRegion(body, "x.op", 2) // unregistered, but two blocks
	f.op(xb[0], "x.br", nil, nil, xb[1])
	wantDiag(t, Verify(x), x, "empty block: expect at least a terminator", false)

	g, gb := f.withRegion(body, "v.fn", 3)
	f.op(gb[0], "x.br", nil, nil, gb[2])
	f.op(gb[1], "x.br", nil, nil, gb[0])
	wantDiag(t, Verify(g), g, "entry block of region may not have predecessors", false)
}

func TestVerifyBlockEnds(t *testing.T) {
	f := newVerifyFixture(t)
	_, body := f.module()
	fn, blocks := f.withRegion(body, "v.fn", 2)
	br := f.op(blocks[0], "x.br", nil, nil, blocks[1])
	f.op(blocks[0], "v.ret", nil, nil)
	f.op(blocks[1], "v.ret", nil, nil)
	wantDiag(t, Verify(fn), br, "operation with block successors must terminate its parent block", true)

	fn2, b2 := f.withRegion(body, "v.fn", 1)
	call := f.op(b2[0], "v.call", nil, nil)
	d := Verify(fn2)
	wantDiag(t, d, call, "block with no terminator, has "+OpForDiagnostic(call), true)
	if !strings.Contains(d.Message, "v.call") {
		t.Errorf("the message does not name the op: %s", d.Message)
	}
}

// Uses in unreachable blocks are not checked, but regions nested in them
// are, where a use counts at the op holding its region.
func TestVerifyDominanceInUnreachableBlocks(t *testing.T) {
	f := newVerifyFixture(t)
	_, body := f.module()
	i32 := f.ctx.I(32)

	fn, blocks := f.withRegion(body, "v.fn", 2)
	f.op(blocks[0], "v.ret", nil, nil)
	use := f.op(blocks[1], "x.use", nil, nil)
	def := f.op(blocks[1], "x.def", nil, []Type{i32})
	use.SetOperands([]*Value{def.Result(0)})
	f.op(blocks[1], "x.br", nil, nil, blocks[1])
	if d := Verify(fn); d != nil {
		t.Fatalf("a use in an unreachable block was checked: %v", d)
	}

	fn2, b2 := f.withRegion(body, "v.fn", 2)
	f.op(b2[0], "v.ret", nil, nil)
	_, inner := f.withRegion(b2[1], "x.region", 2)
	nested := f.op(inner[0], "x.use", nil, nil)
	f.op(inner[0], "x.br", nil, nil, inner[1])
	f.op(inner[1], "x.end", nil, nil)
	later := f.op(b2[1], "x.def", nil, []Type{i32})
	f.op(b2[1], "v.ret", nil, nil)
	nested.SetOperands([]*Value{later.Result(0)})
	d := Verify(fn2)
	wantDiag(t, d, nested, "operand #0 does not dominate this use", true)
	if len(d.Notes) != 1 || d.Notes[0].Message != "operand defined here (op in a parent region)" || d.Notes[0].Loc != later.Loc() {
		t.Errorf("notes: %v", d.Notes)
	}
}

// An op isolated from above is verified after its siblings: of a broken
// function and a broken op after it, the op's fault is reported.
func TestVerifyIsolatedOpsAfterSiblings(t *testing.T) {
	f := newVerifyFixture(t)
	m, body := f.module()
	_, gb := f.withRegion(body, "v.fn", 1) // entry block branching to itself
	f.op(gb[0], "x.br", nil, nil, gb[0])
	x, xb := f.withRegion(body, "x.op", 2)
	f.op(xb[0], "x.br", nil, nil, xb[1])
	wantDiag(t, Verify(m), x, "empty block: expect at least a terminator", false)
}

// Required attributes are checked in name order (ODS sorts them), and a
// region declared with a block count must have exactly that many.
func TestVerifyDeclaredOrderAndRegionSize(t *testing.T) {
	c := NewContext()
	c.AllowUnregisteredDialects = true
	err := c.RegisterDialect(&Dialect{Name: "w", Ops: []*OpDef{
		{Name: "w.op", Attributes: []AttrDef{{Name: "zeta", Kind: StringAttrKind}, {Name: "alpha", Kind: StringAttrKind}}},
		{Name: "w.one", Regions: []RegionDef{{Name: "body", Blocks: 1}}, Traits: TraitNoTerminator},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(c)
	m := NewModule(c, c.UnknownLoc())
	b.SetInsertionPointToEnd(ModuleBody(m))
	op := b.Create(&OperationState{Name: "w.op", Loc: c.FileLineCol("w", 1, 1)})
	wantDiag(t, Verify(op), op, "'w.op' op requires attribute 'alpha'", true)
	one := b.Create(&OperationState{Name: "w.one", NumRegions: 1, Loc: c.FileLineCol("w", 2, 1)})
	wantDiag(t, Verify(one), one, "'w.one' op region #0 ('body') failed to verify constraint: region with 1 blocks", true)
	b.CreateBlock(one.Region(0), nil, nil)
	if d := Verify(one); d != nil {
		t.Errorf("one block: %v", d)
	}
}

// An operand whose defining op is not in the IR (built at no insertion
// point) is an error, not a value that prints as <<UNKNOWN SSA VALUE>>.
func TestVerifyRejectsOperandsOfDetachedOps(t *testing.T) {
	ctx := NewContext()
	ctx.AllowUnregisteredDialects = true
	m := NewModule(ctx, ctx.FileLineCol("t.ipuir", 1, 1))
	detached := NewOperation(ctx, &OperationState{Name: "x.def", ResultTypes: []Type{ctx.I(32)}})
	user := NewOperation(ctx, &OperationState{Name: "x.use", Operands: []*Value{detached.Result(0)},
		Loc: ctx.FileLineCol("t.ipuir", 2, 3)})
	ModuleBody(m).Append(user)
	d := Verify(m)
	if d == nil || d.Message != "'x.use' op operand #0 is the result of 'x.def', which is not in the IR" {
		t.Fatalf("got %v", d)
	}
}

// Rendering a diagnostic finds its source line through an index of line
// starts built once per buffer: many diagnostics near the end of a large
// file used to rescan (and copy) the whole buffer each, quadratically.
func TestSourceLinesOfALargeFile(t *testing.T) {
	var b strings.Builder
	const lines = 300000
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	b.WriteString("last")
	sm := NewSourceMgr()
	sm.Add("big.ipuir", []byte(b.String()))
	ctx := NewContext()
	for i := 0; i < 2000; i++ {
		out := sm.Render(Errorf(ctx.FileLineCol("big.ipuir", lines-i%7, 1), "boom"))
		want := fmt.Sprintf("line %d\n", lines-i%7)
		if !strings.Contains(out, "\n"+want) {
			t.Fatalf("rendered %q", out)
		}
	}
	if l, ok := sm.Line("big.ipuir", lines+1); !ok || l != "last" {
		t.Errorf("last line without newline: %q %v", l, ok)
	}
	if _, ok := sm.Line("big.ipuir", lines+2); ok {
		t.Error("a line past the end exists")
	}
}

// Functions are verified at once on the machine's cores (unless the
// context disables it), and the failure reported is still the first in op
// order, whichever finishes first.
func TestVerifyIsolatedInParallelReportsFirst(t *testing.T) {
	f := newVerifyFixture(t)
	m, body := f.module()
	var bad []*Operation
	for i := range 64 {
		fn, blocks := f.withRegion(body, "v.fn", 1)
		for range 200 {
			f.op(blocks[0], "v.call", nil, nil)
		}
		if i == 17 || i == 40 {
			// A terminator in the middle of the block.
			bad = append(bad, f.op(blocks[0], "v.ret", nil, nil))
			f.op(blocks[0], "v.call", nil, nil)
		}
		f.op(blocks[0], "v.ret", nil, nil)
		_ = fn
	}
	for _, sequential := range []bool{false, true} {
		f.ctx.DisableMultithreading = sequential
		for range 20 {
			wantDiag(t, Verify(m), bad[0], "'v.ret' op must be the last operation in the parent block", true)
		}
	}
}

package ir

import "testing"

// Ops made in an arena behave as heap ones: their operand and result
// lists are their own (appending to one never writes over a neighbour's),
// uses are linked, and operands can be replaced.
func TestArenaOps(t *testing.T) {
	ctx := NewContext()
	ctx.AllowUnregisteredDialects = true
	var arena Arena
	i32 := ctx.I(32)
	a := NewOperationIn(&arena, ctx, &OperationState{Name: "t.a", ResultTypes: []Type{i32, i32}})
	b := NewOperationIn(&arena, ctx, &OperationState{Name: "t.b", Operands: a.Results(), ResultTypes: []Type{i32}})
	c := NewOperationIn(&arena, ctx, &OperationState{Name: "t.c", Operands: []*Value{b.Result(0), a.Result(1)}})
	if got := append(b.Operands(), c.Operand(0)); len(got) != 3 || c.Operand(0) != b.Result(0) || c.Operand(1) != a.Result(1) {
		t.Fatal("appending to one op's operands changed its neighbour's")
	}
	if rs := append(a.Results(), b.Result(0)); len(rs) != 3 || b.Operand(1) != a.Result(1) {
		t.Fatal("appending to one op's results changed its neighbour's")
	}
	if n := a.Result(1).NumUses(); n != 2 {
		t.Fatalf("a#1 has %d uses, want 2", n)
	}
	c.SetOperands([]*Value{a.Result(0)})
	if a.Result(1).NumUses() != 1 || b.Result(0).NumUses() != 0 || a.Result(0).NumUses() != 2 {
		t.Fatal("SetOperands did not relink the uses")
	}
	blk := NewBlock(nil, nil)
	arg := blk.AddArgumentIn(&arena, i32, nil)
	if arg.Type() != i32 || blk.Argument(0) != arg || arg.OwnerBlock() != blk {
		t.Fatal("block argument from the arena")
	}
	// Many ops fill several blocks of the arena.
	for range 3 * arenaBlock {
		NewOperationIn(&arena, ctx, &OperationState{Name: "t.d", Operands: []*Value{arg}, ResultTypes: []Type{i32}})
	}
	if arg.NumUses() != 3*arenaBlock {
		t.Fatalf("%d uses", arg.NumUses())
	}
}

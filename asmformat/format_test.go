package asmformat_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/printer"
)

// formatCase builds one fmt op (its operands come from "test.src" ops
// %0..%n) and says how its custom form prints.
type formatCase struct {
	name  string
	build func(c *ir.Context, src []*ir.Value, succ []*ir.Block) *ir.OperationState
	want  string // the op as printed, without its result names
}

func formatCases() []formatCase {
	attrs := func(kv ...any) []ir.NamedAttr {
		var out []ir.NamedAttr
		for i := 0; i < len(kv); i += 2 {
			out = append(out, ir.NamedAttr{Name: kv[i].(string), Value: kv[i+1].(ir.Attribute)})
		}
		return out
	}
	return []formatCase{
		{"binary", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.binary", Operands: s[:2], ResultTypes: []ir.Type{c.I(32)}}
		}, "fmt.binary %0, %1 : i32"},
		{"binary_attrs", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.binary", Operands: s[:2], ResultTypes: []ir.Type{c.I(32)},
				Attrs: attrs("fmt.k", c.IntegerAttr(c.I(32), 3))}
		}, "fmt.binary %0, %1 {fmt.k = 3 : i32} : i32"},
		{"call", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.call", Operands: s[:2], ResultTypes: []ir.Type{c.I(32), c.F32()},
				Attrs: attrs("callee", c.SymbolRef("f"))}
		}, "fmt.call @f(%0, %1) : (i32, i32) -> (i32, f32)"},
		{"call_empty", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.call", Attrs: attrs("callee", c.SymbolRef("g"))}
		}, "fmt.call @g() : () -> ()"},
		{"ret", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.ret", Operands: s[:2]}
		}, "fmt.ret %0, %1 : i32, i32"},
		{"ret_empty", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.ret"}
		}, "fmt.ret"},
		{"flag", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.flag", Attrs: attrs("fast", c.Unit())}
		}, "fmt.flag fast"},
		{"flag_absent", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.flag", Attrs: attrs("fmt.x", c.Unit())}
		}, "fmt.flag {fmt.x}"},
		{"region", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			r := &ir.Region{}
			r.AppendBlock(ir.NewBlock(nil, nil))
			return &ir.OperationState{Name: "fmt.region", Regions: []*ir.Region{r}, Attrs: attrs("fmt.x", c.Unit())}
		}, "fmt.region attributes {fmt.x} {\n}"},
		{"opt_present", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.opt", Operands: s[:1], ResultTypes: []ir.Type{c.F32()}}
		}, "fmt.opt %0 : i32 -> f32"},
		{"opt_else", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.opt", ResultTypes: []ir.Type{c.F32()}}
		}, "fmt.opt none -> f32"},
		{"custom", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.custom", Operands: s[:1]}
		}, "fmt.custom <%0 as i32>"},
		{"infer", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.infer", Operands: s[:1], ResultTypes: []ir.Type{c.Tensor([]int64{2}, c.I(32))}}
		}, "fmt.infer %0 : i32"},
		{"all", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			rs := []*ir.Region{{}, {}}
			for _, r := range rs {
				r.AppendBlock(ir.NewBlock(nil, nil))
			}
			return &ir.OperationState{Name: "fmt.all", Operands: s[:3], ResultTypes: []ir.Type{c.F32()}, Regions: rs}
		}, "fmt.all %0, %1, %2[{\n}, {\n}] : i32, i32, i32 -> f32"},
		{"segments", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.segments", Operands: s[:3],
				Attrs: attrs("operandSegmentSizes", c.DenseIntArray(c.I(32), []int64{1, 2}))}
		}, "fmt.segments %0 and %1, %2 : i32 and i32, i32"},
		{"symbol", func(c *ir.Context, s []*ir.Value, _ []*ir.Block) *ir.OperationState {
			return &ir.OperationState{Name: "fmt.symbol", Attrs: attrs(ir.SymbolAttrName, c.String("s"), "value", c.IntegerAttr(c.I(64), 7))}
		}, "fmt.symbol @s = 7 : i64"},
	}
}

func newFmtContext(t *testing.T) *ir.Context {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	d := fmtDialect()
	if err := asmformat.CheckDialect(d); err != nil {
		t.Fatal(err)
	}
	ctx.MustRegisterDialect(d)
	return ctx
}

// buildCase puts three i32 sources and the case's op in a module.
func buildCase(ctx *ir.Context, c formatCase) (*ir.Operation, []*ir.Value) {
	m := ir.NewModule(ctx, ctx.UnknownLoc())
	b := ir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(ir.ModuleBody(m))
	var src []*ir.Value
	for i := 0; i < 3; i++ {
		src = append(src, b.Create(&ir.OperationState{Name: "test.src", ResultTypes: []ir.Type{ctx.I(32)}}).Result(0))
	}
	op := b.Create(c.build(ctx, src, nil))
	return op, src
}

// opText prints op alone and drops its result names.
func opText(op *ir.Operation) string {
	s := printer.OpString(op, printer.Options{})
	if op.NumResults() > 0 {
		_, s, _ = strings.Cut(s, " = ")
	}
	return s
}

func TestFormatPrints(t *testing.T) {
	ctx := newFmtContext(t)
	for _, c := range formatCases() {
		op, _ := buildCase(ctx, c)
		if d := ir.Verify(op.ParentOp()); d != nil {
			t.Fatalf("%s: %v", c.name, d)
		}
		if got := opText(op); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestFormatRoundTrips parses each printed form back with the same
// format and requires the op to print the same.
func TestFormatRoundTrips(t *testing.T) {
	ctx := newFmtContext(t)
	for _, c := range formatCases() {
		op, src := buildCase(ctx, c)
		text := opText(op)
		fp := &fakeParser{ctx: ctx, toks: tokenize(strings.TrimPrefix(text, op.Name())),
			values: map[string]*ir.Value{"%0": src[0], "%1": src[1], "%2": src[2]}}
		st := &ir.OperationState{Name: op.Name(), Loc: ctx.UnknownLoc()}
		if err := asmformat.Parse(op.Def(), fp, st); err != nil {
			t.Errorf("%s: parsing %q: %v", c.name, text, err)
			continue
		}
		if fp.pos != len(fp.toks) {
			t.Errorf("%s: tokens left after parsing: %v", c.name, fp.toks[fp.pos:])
			continue
		}
		again := ir.NewOperation(ctx, st)
		op.Block().InsertBefore(again, op)
		op.Erase() // symbols must stay unique for the module to verify
		if got := opText(again); got != text {
			t.Errorf("%s: round trip prints\n%q\nnot\n%q", c.name, got, text)
		}
	}
}

func TestCheckRejectsBadFormats(t *testing.T) {
	any := ir.AnyType
	op := func(format string) *ir.OpDef {
		return &ir.OpDef{Name: "bad.op", AssemblyFormat: format,
			Operands:   []ir.ValueDef{{Name: "a", Type: any}, {Name: "v", Type: any, Kind: ir.Variadic}},
			Results:    []ir.ValueDef{{Name: "r", Type: any}},
			Attributes: []ir.AttrDef{{Name: "opt", Kind: ir.AnyAttr, Optional: true}},
		}
	}
	cases := []struct{ format, want string }{
		{"$a $v attr-dict `:` type($a) type($v) type($r) $nope", "1:48: '$nope' is not an operand"},
		{"$a $v `:` type($a) type($v) type($r)", "'attr-dict' directive not found"},
		{"$a attr-dict `:` type($a) type($v) type($r)", "operand #1, named 'v', is not bound"},
		{"$a $v attr-dict `:` type($a) type($r)", "type of operand #1, named 'v', is neither printed nor inferable"},
		{"$a $v attr-dict `:` type($a) type($v)", "type of result #0, named 'r', is neither printed nor inferable"},
		{"$a $a $v attr-dict `:` type($a) type($v) type($r)", "'$a' is bound twice"},
		{"$a $v $opt attr-dict `:` type($a) type($v) type($r)", "optional attribute '$opt' must be inside an optional group"},
		{"$a ($v)? attr-dict `:` type($a) type($v) type($r)", "needs a '^' anchor"},
		{"$a ($v^ $a)? attr-dict `:` type($a) type($v) type($r)", "'$a' is bound twice"},
		{"(`x` $a^)? $v attr-dict `:` type($a) type($v) type($r)", "anchor must be an optional or variadic"},
		{"$a $v attr-dict `:` type($a) type($v) type($r) `%`", "neither a keyword nor punctuation"},
		{"$a $v attr-dict `:` type($a) type($v) type($r) custom<Nope>($opt)", "custom directive 'Nope' is not registered"},
		{"$a $v attr-dict `:` type($a) type($v) type($r) (", "1:49: unexpected"},
		{"$a $r $v attr-dict `:` type($a) type($v) type($r)", "result '$r' can only be used inside type(...)"},
	}
	for _, c := range cases {
		err := asmformat.Check(op(c.format))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("format %q: got %v, want an error containing %q", c.format, err, c.want)
		}
	}
	if err := asmformat.Check(op("$a $v attr-dict `:` type($a) type($v) type($r)")); err != nil {
		t.Errorf("a good format fails: %v", err)
	}
}

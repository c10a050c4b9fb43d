package printer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// The tst dialect exercises custom forms: a hand-written printer with a
// default dialect, declarative formats, and named results.
func testDialect() *ir.Dialect {
	return &ir.Dialect{Name: "tst", Ops: []*ir.OpDef{
		{
			Name:           "tst.scope",
			Regions:        []ir.RegionDef{{Name: "body"}},
			Traits:         ir.TraitNoTerminator | ir.TraitSingleBlock | ir.TraitGraphRegion,
			DefaultDialect: "tst",
			Parse:          parseScope,
			Print:          printScope,
		},
		{
			Name:           "tst.add",
			Operands:       []ir.ValueDef{{Name: "lhs", Type: ir.AnyType}, {Name: "rhs", Type: ir.AnyType}},
			Results:        []ir.ValueDef{{Name: "res", Type: ir.AnyType}},
			Traits:         ir.TraitSameOperandsAndResultType | ir.TraitPure,
			AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($res)",
		},
		{
			Name:           "tst.named",
			Results:        []ir.ValueDef{{Name: "first", Type: ir.AnyType}, {Name: "rest", Type: ir.AnyType, Kind: ir.Variadic}},
			AsmResultNames: func(op *ir.Operation) []string { return []string{"first", "rest"} },
			AssemblyFormat: "attr-dict `:` type(results)",
		},
	}}
}

func printScope(p ir.OpAsmPrinter, op *ir.Operation) {
	p.PrintOptionalAttrDictWithKeyword(op.AllAttrs())
	p.WriteString(" ")
	p.PrintRegion(op.Region(0), false, false)
}

func parseScope(p ir.OpAsmParser, st *ir.OperationState) error {
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	r := &ir.Region{}
	st.Regions = append(st.Regions, r)
	return p.ParseRegion(r, nil)
}

func buildCustom(x *irBuilder) *ir.Operation {
	x.ctx.MustRegisterDialect(testDialect())
	m := x.module()
	c := x.ctx
	i32 := c.I(32)
	v := x.op("test.value", nil, typs(i32))
	x.op("tst.add", vals(v.Result(0), v.Result(0)), typs(i32))
	scope := x.b.Create(&ir.OperationState{Name: "tst.scope", NumRegions: 1, Loc: x.loc(),
		Attrs: []ir.NamedAttr{attr("tst.note", c.String("n"))}})
	save := *x.b
	x.b.CreateBlock(scope.Region(0), nil, nil)
	a := x.op("tst.add", vals(v.Result(0), v.Result(0)), typs(i32))
	x.op(ir.UnrealizedCast, vals(a.Result(0)), typs(c.I(64)))
	n := x.op("tst.named", nil, typs(i32, i32, i32))
	x.op("tst.named", nil, typs(i32))
	x.op("test.use", vals(n.Result(0), n.Result(1), n.Result(2)), nil)
	inner := x.b.Create(&ir.OperationState{Name: "tst.scope", NumRegions: 1, Loc: x.loc()})
	x.b.CreateBlock(inner.Region(0), nil, nil)
	x.op("tst.add", vals(a.Result(0), a.Result(0)), typs(i32), attr("tst.flag", c.Unit()))
	*x.b = save
	x.op(ir.UnrealizedCast, vals(v.Result(0)), typs(c.F32()))
	return m
}

// layoutType is a dialect type that asks for an alias, as dialects may.
type layoutType struct {
	rows  int
	inner ir.Attribute // printed inside the type, possibly through an alias
}

func (t *layoutType) Print(p *ir.AsmPrinter) {
	p.WriteString(fmt.Sprintf("!tst.layout<%d", t.rows))
	if t.inner != nil {
		p.WriteString(", ")
		p.PrintAttr(t.inner)
	}
	p.WriteString(">")
}

func (t *layoutType) AliasName() (string, bool) { return "layout", true }

// tileAttr asks for an alias ending in a digit, which MLIR suffixes with _.
type tileAttr struct{ n int }

func (a *tileAttr) Print(p *ir.AsmPrinter)    { p.WriteString(fmt.Sprintf("#tst.tile<%d>", a.n)) }
func (a *tileAttr) AliasName() (string, bool) { return "tile0", true }

func buildDialectAlias(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	mp := c.AffineMapAttr(&ir.AffineMap{NumDims: 1, Results: []*ir.AffineExpr{ir.Dim(0)}})
	plain := ir.UniqueType(c, &layoutType{rows: 4})
	nested := ir.UniqueType(c, &layoutType{rows: 8, inner: mp})
	tile := ir.UniqueAttr(c, &tileAttr{n: 2})
	x.op("test.use", nil, typs(nested, plain, plain), attr("t", tile), attr("u", ir.UniqueAttr(c, &tileAttr{n: 3})))
	return m
}

func buildInvalid(x *irBuilder) *ir.Operation {
	x.ctx.MustRegisterDialect(testDialect())
	m := x.module()
	c := x.ctx
	v := x.op("test.value", nil, typs(c.I(32)))
	// tst.add needs one type for operands and result; its custom printer
	// could mislead, so the whole module prints in the generic form.
	x.op("tst.add", vals(v.Result(0), v.Result(0)), typs(c.I(64)))
	return m
}

// An op that suggests a name of an entry argument's form (argN) gets it
// made unique against the arguments, as MLIR's setValueName does; the
// names of arguments themselves are unchanged.
func TestArgLikeSuggestedName(t *testing.T) {
	x := newBuilder()
	x.ctx.MustRegisterDialect(&ir.Dialect{Name: "tsa", Ops: []*ir.OpDef{{
		Name:           "tsa.named",
		Results:        []ir.ValueDef{{Name: "res", Type: ir.AnyType}},
		AsmResultNames: func(op *ir.Operation) []string { return []string{"arg0"} },
		AssemblyFormat: "attr-dict `:` type($res)",
	}}})
	m := x.module()
	i32 := x.ctx.I(32)
	holder := x.b.Create(&ir.OperationState{Name: "test.holder", NumRegions: 1, Loc: x.loc()})
	blk := x.b.CreateBlock(holder.Region(0), typs(i32), nil)
	n := x.op("tsa.named", nil, typs(i32))
	x.op("test.use", vals(blk.Argument(0), n.Result(0)), nil)
	got := printString(t, m, Options{})
	if !strings.Contains(got, `"test.use"(%arg0, %arg0_0)`) {
		t.Errorf("names:\n%s", got)
	}
}

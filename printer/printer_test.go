package printer

import (
	"flag"
	"math"
	"math/big"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/ipuir/ipuir/ir"
)

var _ = flag.Bool("update-golden-note", false, "goldie's -update flag regenerates printer/testdata")

// printCase is IR built through ir's API and the options to print it with.
type printCase struct {
	name  string
	opts  Options
	build func(x *irBuilder) *ir.Operation
	// mlirOpt: the case prints as mlir-opt-19 prints it (its custom forms
	// are all ones mlir-opt knows, and its aliases builtin ones).
	mlirOpt bool
}

var printCases = []printCase{
	{name: "empty_module", mlirOpt: true, build: func(x *irBuilder) *ir.Operation { return x.module() }},
	{name: "empty_module_generic", opts: Options{Generic: true}, mlirOpt: true, build: func(x *irBuilder) *ir.Operation { return x.module() }},
	{name: "builtin_types", mlirOpt: true, build: buildTypes},
	{name: "builtin_attrs", mlirOpt: true, build: buildAttrs},
	{name: "builtin_attrs_generic", opts: Options{Generic: true}, mlirOpt: true, build: buildAttrs},
	{name: "regions_and_blocks", mlirOpt: true, build: buildRegions},
	{name: "regions_and_blocks_generic", opts: Options{Generic: true}, mlirOpt: true, build: buildRegions},
	{name: "regions_and_blocks_unique_ids", opts: Options{UniqueSSAIDs: true}, mlirOpt: true, build: buildRegions},
	{name: "aliases", mlirOpt: true, build: buildAliases},
	{name: "aliases_generic", opts: Options{Generic: true}, mlirOpt: true, build: buildAliases},
	{name: "aliases_local_scope", opts: Options{LocalScope: true}, mlirOpt: true, build: buildAliases},
	{name: "debuginfo", opts: Options{DebugInfo: true}, mlirOpt: true, build: buildLocations},
	{name: "debuginfo_generic", opts: Options{DebugInfo: true, Generic: true}, mlirOpt: true, build: buildLocations},
	{name: "debuginfo_pretty", mlirOpt: true, opts: Options{PrettyDebugInfo: true}, build: buildLocations},
	{name: "no_debuginfo", mlirOpt: true, build: buildLocations},
	{name: "resources", mlirOpt: true, build: buildResources},
	{name: "elide_elements", mlirOpt: true, opts: Options{ElideElementsAttrsIfLarger: 2}, build: buildElided},
	{name: "skip_regions", mlirOpt: true, opts: Options{SkipRegions: true}, build: buildRegions},
	{name: "custom_forms", build: buildCustom},
	{name: "custom_forms_generic", mlirOpt: true, opts: Options{Generic: true}, build: buildCustom},
	{name: "dialect_alias", build: buildDialectAlias},
	{name: "invalid_prints_generic", build: buildInvalid},
}

func TestPrintGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"))
	for _, c := range printCases {
		t.Run(c.name, func(t *testing.T) {
			out := printString(t, c.build(newBuilder()), c.opts)
			g.Assert(t, c.name, []byte(out))
		})
	}
}

// TestPrintMatchesMLIROpt prints each case in the generic form with
// locations, has mlir-opt-19 read that and print it with the case's
// flags, and requires our printing with the same options to be identical.
func TestPrintMatchesMLIROpt(t *testing.T) {
	for _, c := range printCases {
		if !c.mlirOpt {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			op := c.build(newBuilder())
			input := printString(t, op, Options{Generic: true, DebugInfo: true})
			want := mlirOptReprint(t, input, c.opts)
			if got := printString(t, op, c.opts); got != want {
				t.Errorf("mlir-opt-19 prints differently.\nours:\n%s\nmlir-opt-19:\n%s", got, want)
			}
		})
	}
}

func buildTypes(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	i64 := c.I(64)
	var floats []ir.Type
	for _, name := range []string{"f16", "bf16", "f32", "f64", "f80", "f128", "tf32", "f8E5M2", "f8E4M3",
		"f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E4M3B11FNUZ"} {
		k, _ := ir.FloatKindByName(name)
		floats = append(floats, c.Float(k))
	}
	x.op("test.floats", nil, floats)
	x.op("test.ints", nil, typs(c.I(1), c.I(0), c.IntegerType(8, ir.Signed), c.IntegerType(16, ir.Unsigned),
		c.I(128), c.I(ir.MaxIntegerWidth), c.Index(), c.None()))
	x.op("test.composite", nil, typs(
		c.Complex(c.F32()),
		c.Tuple(),
		c.Tuple(c.I(32), c.Tuple(c.F16())),
		c.Function(nil, nil),
		c.Function(typs(c.I(32)), typs(c.Function(typs(c.I(1)), nil))),
		c.Opaque("d", `foo<"x">`),
		c.Opaque("d", "1bar"),
	))
	x.op("test.shaped", nil, typs(
		c.Tensor([]int64{4, ir.Dynamic, 8}, c.F32()),
		c.Tensor(nil, c.I(1)),
		c.TensorWithEncoding([]int64{2}, c.F16(), c.String("enc")),
		c.UnrankedTensor(c.Complex(c.F64())),
		c.MemRef([]int64{4, 8}, c.F32(), nil, nil),
		c.MemRef([]int64{4}, c.F32(), c.StridedLayout(ir.Dynamic, []int64{1}), c.IntegerAttr(i64, 3)),
		c.MemRef([]int64{ir.Dynamic}, c.I(8), nil, c.String("shared")),
		c.UnrankedMemRef(c.F16(), c.IntegerAttr(c.I(32), 1)),
		c.Vector([]int64{4}, nil, c.F32()),
		c.Vector(nil, nil, c.I(8)),
		c.Vector([]int64{2, 8}, []bool{false, true}, c.BF16()),
	))
	return m
}

func buildAttrs(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	i8, i32, i64, f32, f64 := c.I(8), c.I(32), c.I(64), c.F32(), c.F64()
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	x.op("test.scalars", nil, nil,
		attr("unit", c.Unit()),
		attr("true", c.Bool(true)),
		attr("false", c.Bool(false)),
		attr("i8", c.IntegerAttr(i8, 255)),
		attr("si8", c.IntegerAttr(c.IntegerType(8, ir.Signed), -1)),
		attr("ui8", c.IntegerAttr(c.IntegerType(8, ir.Unsigned), 255)),
		attr("i64", c.IntegerAttr(i64, -3)),
		attr("index", c.IntegerAttr(c.Index(), 5)),
		attr("i128", c.IntegerAttrBig(c.I(128), big1)),
		attr("f32", c.FloatAttr(f32, 0.1)),
		attr("f64", c.FloatAttr(f64, 3.14159265358979)),
		attr("f16", c.FloatAttr(c.F16(), 100.5)),
		attr("bf16", c.FloatAttr(c.BF16(), 0.3)),
		attr("f64int", c.FloatAttr(f64, 16777217)),
		attr("inf", c.FloatAttr(f32, math.Inf(1))),
		attr("nan", c.FloatAttr(f64, math.NaN())),
		attr("negzero", c.FloatAttr(f32, math.Copysign(0, -1))),
		attr("str", c.String("a\n\"b\\\tc")),
		attr("typed_str", c.TypedString("s", i32)),
		attr("key with space", c.String("k")),
	)
	x.op("test.composites", nil, nil,
		attr("array", c.Array(c.IntegerAttr(i64, 1), c.FloatAttr(f64, 2), c.IntegerAttr(i32, 3), c.String("s"), c.Unit())),
		attr("empty_array", c.Array()),
		attr("dict", c.Dict([]ir.NamedAttr{attr("b", c.IntegerAttr(i64, 1)), attr("a", c.Unit())})),
		attr("empty_dict", c.EmptyDict()),
		attr("type", c.TypeAttr(c.Function(typs(i32), typs(f32)))),
		attr("sym", c.SymbolRef("root", "a", "b c")),
		attr("quoted_sym", c.SymbolRef(`x"y`)),
		attr("strided", c.StridedLayout(0, []int64{ir.Dynamic, 1})),
		attr("strided_offset", c.StridedLayout(ir.Dynamic, []int64{4, 1})),
		attr("opaque", c.OpaqueAttr("d", "bar<x y>")),
		attr("opaque_odd", c.OpaqueAttr("d", `"?"`)),
	)
	tensor := func(elem ir.Type, shape ...int64) ir.ShapedType { return c.Tensor(shape, elem) }
	hundredOne := make([]int64, 101)
	for i := range hundredOne {
		hundredOne[i] = int64(i)
	}
	x.op("test.elements", nil, nil,
		attr("splat", c.DenseFloats(tensor(f32, 2, 3), []float64{1.5})),
		attr("nested", c.DenseInts(tensor(i32, 2, 2), []int64{1, 2, 3, 4})),
		attr("folds_to_splat", c.DenseInts(tensor(i8, 2), []int64{-1, 255})),
		attr("bools", c.DenseInts(tensor(c.I(1), 3), []int64{1, 0, 1})),
		attr("scalar", c.DenseInts(tensor(c.Index()), []int64{7})),
		attr("empty", c.DenseInts(tensor(i32, 0), nil)),
		attr("empty2", c.DenseInts(tensor(i32, 2, 0), nil)),
		attr("hex", c.DenseInts(tensor(i32, 101), hundredOne)),
		attr("vector", c.DenseFloats(c.Vector([]int64{2}, nil, f64), []float64{1, 2.5})),
		attr("complex", c.Dense(tensor(c.Complex(i32), 2), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})),
		attr("strings", c.DenseStrings(tensor(c.Opaque("d", "s"), 2), []string{"a", "b"})),
		attr("string_splat", c.DenseStrings(tensor(c.Opaque("d", "s"), 2), []string{"x"})),
		attr("sparse", c.Sparse(tensor(i32, 2, 2), c.DenseInts(tensor(i64, 1, 2), []int64{0, 1}), c.DenseInts(tensor(i32, 1), []int64{5}))),
		attr("sparse_empty", c.Sparse(tensor(i32, 2), c.DenseInts(tensor(i64, 0, 1), nil), c.DenseInts(tensor(i32, 0), nil))),
	)
	x.op("test.arrays", nil, nil,
		attr("i1", c.DenseIntArray(c.I(1), []int64{1, 0})),
		attr("i8", c.DenseIntArray(i8, []int64{-1, 2})),
		attr("i16", c.DenseIntArray(c.I(16), []int64{3})),
		attr("i32", c.DenseIntArray(i32, nil)),
		attr("i64", c.DenseI64Array(1, 2, 3)),
		attr("f32", c.DenseFloatArray(f32, []float64{1, 2.5})),
		attr("f64", c.DenseFloatArray(f64, []float64{0.1})),
	)
	return m
}

func buildRegions(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	i32, f32 := c.I(32), c.F32()
	pair := x.op("test.pair", nil, typs(i32, f32, i32))
	outer := x.b.Create(&ir.OperationState{Name: "test.cfg", Operands: vals(pair.Result(2)), ResultTypes: typs(i32),
		NumRegions: 2, Loc: x.loc()})
	save := *x.b
	// Region 0: entry with arguments, a diamond of blocks, a block with
	// no predecessors and one with two branches from the same block.
	r := outer.Region(0)
	entry := x.b.CreateBlock(r, typs(i32, f32), nil)
	bb1 := ir.NewBlock(typs(i32), nil)
	bb2 := ir.NewBlock(nil, nil)
	bb3 := ir.NewBlock(typs(i32), nil)
	dead := ir.NewBlock(nil, nil)
	for _, b := range []*ir.Block{bb1, bb2, bb3, dead} {
		r.AppendBlock(b)
	}
	v := x.op("test.use", vals(entry.Argument(0), pair.Result(1)), typs(i32))
	x.b.Create(&ir.OperationState{Name: "test.cond_br", Operands: vals(v.Result(0), entry.Argument(0)),
		Successors: []*ir.Block{bb1, bb2}, Loc: x.loc()})
	x.b.SetInsertionPointToEnd(bb1)
	x.b.Create(&ir.OperationState{Name: "test.br", Operands: vals(bb1.Argument(0)), Successors: []*ir.Block{bb3}, Loc: x.loc()})
	x.b.SetInsertionPointToEnd(bb2)
	w := x.op("test.value", nil, typs(i32))
	x.b.Create(&ir.OperationState{Name: "test.switch", Operands: vals(w.Result(0)), Successors: []*ir.Block{bb3, bb3}, Loc: x.loc()})
	x.b.SetInsertionPointToEnd(bb3)
	x.op("test.return", vals(bb3.Argument(0)), nil)
	x.b.SetInsertionPointToEnd(dead)
	x.b.Create(&ir.OperationState{Name: "test.br", Successors: []*ir.Block{bb3}, Operands: vals(pair.Result(0)), Loc: x.loc()})
	// Region 1: one empty block; then a region with no block at all.
	outer.Region(1).AppendBlock(ir.NewBlock(nil, nil))
	*x.b = save
	x.b.Create(&ir.OperationState{Name: "test.noblocks", NumRegions: 1, Loc: x.loc()})
	// Graph region of an unregistered op: nested numbering and sibling
	// regions restarting their counters.
	g := x.b.Create(&ir.OperationState{Name: "test.graph", NumRegions: 2, ResultTypes: typs(i32), Loc: x.loc()})
	for _, gr := range g.Regions() {
		x.b.CreateBlock(gr, typs(f32), nil)
		inner := x.op("test.inner", nil, typs(i32, i32))
		x.op("test.sink", vals(inner.Result(1), pair.Result(0), outer.Result(0)), nil)
	}
	*x.b = save
	x.op("test.after", vals(g.Result(0)), typs(i32))
	return m
}

func buildAliases(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	i32 := c.I(32)
	m1 := c.AffineMapAttr(&ir.AffineMap{NumDims: 2, Results: []*ir.AffineExpr{ir.Dim(1), ir.Dim(0)}})
	m2 := c.AffineMapAttr(&ir.AffineMap{NumDims: 1, NumSymbols: 1, Results: []*ir.AffineExpr{ir.Add(ir.Dim(0), ir.Sym(0))}})
	set := c.IntegerSetAttr(&ir.IntegerSet{NumDims: 1, Constraints: []ir.AffineConstraint{{Expr: ir.Dim(0)}}})
	var many []ir.Type
	for i := 0; i < 17; i++ {
		many = append(many, i32)
	}
	bigTuple := c.Tuple(many...)
	layout := c.MemRef([]int64{4, 4}, c.F32(), m1, nil)
	// Regions are visited before the op's own attributes, so the nested
	// map gets the first name.
	op := x.b.Create(&ir.OperationState{Name: "test.outer", Attrs: []ir.NamedAttr{attr("map", m2), attr("set", set)},
		NumRegions: 1, Loc: x.loc()})
	save := *x.b
	x.b.CreateBlock(op.Region(0), nil, nil)
	x.op("test.inner", nil, typs(layout), attr("m", m1))
	*x.b = save
	x.op("test.tuple", nil, typs(bigTuple, bigTuple), attr("maps", c.Array(m2, m1)))
	x.op("test.props", nil, nil) // properties of an unregistered op are not visited
	x.b.InsertionBlock().Last().SetProps(c.Dict([]ir.NamedAttr{attr("p", c.AffineMapAttr(&ir.AffineMap{NumDims: 1,
		Results: []*ir.AffineExpr{ir.Mul(ir.Dim(0), ir.Const(2))}}))}))
	return m
}

func buildLocations(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	i32 := c.I(32)
	file := func(l, col int) ir.Location { return c.FileLineCol("t.mlir", l, col) }
	a := x.op("test.a", nil, typs(i32))
	a.SetLoc(c.CallSiteLoc(c.NameLoc("foo", nil), file(5, 6)))
	b := x.op("test.b", vals(a.Result(0)), typs(i32))
	b.SetLoc(c.FusedLoc([]ir.Location{c.NameLoc("x", nil), c.NameLoc("y", file(7, 1))}, c.String("meta")))
	u := x.op("test.c", vals(b.Result(0)), nil)
	u.SetLoc(c.UnknownLoc())
	r := x.b.Create(&ir.OperationState{Name: "test.region", NumRegions: 1, Loc: file(9, 3)})
	save := *x.b
	blk := x.b.CreateBlock(r.Region(0), typs(i32, i32), []ir.Location{c.NameLoc("arg", file(9, 20)), file(1, 1)})
	x.op("test.use", vals(blk.Argument(0)), nil).SetLoc(file(10, 5))
	*x.b = save
	x.op("test.quoted", nil, nil).SetLoc(c.FileLineCol(`dir/a"b.mlir`, 3, 4))
	return m
}

func buildResources(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	c.SetResource(ir.Resource{Dialect: "builtin", Key: "blob2", Value: `"0x04000000aabbccdd"`})
	c.SetResource(ir.Resource{Dialect: "builtin", Key: "blob1", Value: `"0x0400000001000000"`})
	c.SetResource(ir.Resource{Dialect: "builtin", Key: "unused", Value: `"0x0400000002000000"`})
	t := c.Tensor([]int64{1}, c.I(32))
	x.op("test.use", nil, nil, attr("a", c.DenseResource(t, "blob2")), attr("b", c.DenseResource(t, "blob1")))
	return m
}

func buildElided(x *irBuilder) *ir.Operation {
	m := x.module()
	c := x.ctx
	t := c.Tensor([]int64{3}, c.I(32))
	x.op("test.use", nil, nil,
		attr("large", c.DenseInts(t, []int64{1, 2, 3})),
		attr("splat", c.DenseInts(t, []int64{7})),
		attr("small", c.DenseInts(c.Tensor([]int64{2}, c.I(32)), []int64{1, 2})),
		attr("in_array", c.Array(c.DenseInts(t, []int64{1, 2, 3}))))
	return m
}

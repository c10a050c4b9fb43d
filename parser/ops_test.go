package parser_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
)

func parseOK(t *testing.T, ctx *ir.Context, src string, cfg parser.Config) *ir.Operation {
	t.Helper()
	if cfg.Filename == "" {
		cfg.Filename = "t.mlir"
	}
	m, err := parser.ParseSourceString(ctx, []byte(src), cfg)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m
}

// ops returns the ops of the module body, in order.
func ops(m *ir.Operation) []*ir.Operation { return ir.ModuleBody(m).Ops() }

func locString(l ir.Location) string { return ir.AttrString(l) }

func TestOpLocations(t *testing.T) {
	ctx := newTestContext(t, true)
	src := "%r = \"x.a\"() : () -> i32\n" +
		"  \"x.b\"(%r) ({\n" +
		"  ^bb0(%arg: f32, %second: i32 loc(\"given\":7:8)):\n" +
		"    \"x.c\"() : () -> () loc(#later)\n" +
		"  }) : (i32) -> () loc(fused[\"a\":1:2, \"b\"])\n" +
		"#later = loc(\"later.py\":3:4)\n"
	m := parseOK(t, ctx, src, parser.Config{Filename: "f.mlir", LineOffset: 10})
	if got := locString(m.Loc()); got != `loc("f.mlir":0:0)` {
		t.Errorf("implicit module at %s", got)
	}
	os := ops(m)
	if got := locString(os[0].Loc()); got != `loc("f.mlir":11:6)` {
		t.Errorf("op without loc at %s, want the op name token", got)
	}
	if got := locString(os[1].Loc()); got != `loc(fused["a":1:2, "b"])` {
		t.Errorf("op with loc: %s", got)
	}
	blk := os[1].Region(0).Front()
	if got := locString(blk.Argument(0).Loc()); got != `loc("f.mlir":13:8)` {
		t.Errorf("block argument at %s, want its %%name token", got)
	}
	if got := locString(blk.Argument(1).Loc()); got != `loc("given":7:8)` {
		t.Errorf("block argument with loc: %s", got)
	}
	if got := locString(blk.First().Loc()); got != `loc("later.py":3:4)` {
		t.Errorf("location alias defined later: %s", got)
	}
}

func TestColumnsAreBytes(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, "\"x.a\"() {s = \"é\"} : () -> ()\t\"x.b\"() : () -> ()\n", parser.Config{})
	if got := locString(ops(m)[1].Loc()); got != `loc("t.mlir":1:31)` {
		t.Errorf("second op at %s", got)
	}
}

func TestResultsAndUses(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `%a, %b:2 = "x.d"() : () -> (i32, i64, f32)
"x.u"(%b#1, %a, %b) : (f32, i32, i64) -> ()
`, parser.Config{})
	def, use := ops(m)[0], ops(m)[1]
	for i, want := range []*ir.Value{def.Result(2), def.Result(0), def.Result(1)} {
		if use.Operand(i) != want {
			t.Errorf("operand %d is not result %d", i, want.Index())
		}
	}
}

func TestForwardReferences(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `"x.graph"() ({
  "x.use"(%v, %w#1) : (i32, f32) -> ()
  %v = "x.def"() : () -> i32
  %w:2 = "x.def2"() : () -> (i8, f32)
}) : () -> ()
`, parser.Config{})
	body := ops(m)[0].Region(0).Front().Ops()
	if body[0].Operand(0) != body[1].Result(0) || body[0].Operand(1) != body[2].Result(1) {
		t.Errorf("forward references not resolved to their definitions")
	}
	if d := ir.Verify(m); d != nil {
		t.Errorf("verify: %v", d)
	}
}

func TestRegionsAndBlocks(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `"x.a"() ({}, {^bb0:}, {
^bb0(%x: i32):
  "x.br"(%x)[^next] : (i32) -> ()
^next:
  "x.br"()[^next] : () -> ()
}) : () -> ()
`, parser.Config{})
	op := ops(m)[0]
	if op.NumRegions() != 3 || !op.Region(0).Empty() || op.Region(1).NumBlocks() != 1 || !op.Region(1).Front().Empty() {
		t.Errorf("({}) and ({^bb0:}) not kept apart")
	}
	r := op.Region(2)
	if r.NumBlocks() != 2 {
		t.Fatalf("%d blocks", r.NumBlocks())
	}
	b0, b1 := r.Blocks()[0], r.Blocks()[1]
	if b0.Last().Successor(0) != b1 || b1.Last().Successor(0) != b1 {
		t.Errorf("successors do not point at the labelled blocks")
	}
	if b0.Last().Operand(0) != b0.Argument(0) {
		t.Errorf("successor operand is not the block argument")
	}
}

func TestInherentAttributesBecomeProperties(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `"builtin.module"() ({^bb0:}) {sym_name = "m", x.y = 1} : () -> ()
`, parser.Config{})
	if m.Name() != ir.ModuleOpName {
		t.Fatalf("single module not used as the result: %s", m.Name())
	}
	if name, ok := ir.SymbolName(m); !ok || name != "m" || m.Attrs().Get("sym_name") != nil {
		t.Errorf("sym_name not moved to properties: props %v attrs %v", m.Props(), m.Attrs())
	}
	if m.Attrs().Get("x.y") == nil {
		t.Errorf("discardable attribute lost")
	}
}

func TestImplicitModuleWrapsSeveralOps(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, "module {}\n\"x.a\"() : () -> ()\n", parser.Config{})
	if len(ops(m)) != 2 || ops(m)[0].Name() != ir.ModuleOpName {
		t.Errorf("expected an implicit module around two ops")
	}
	m = parseOK(t, ctx, "// nothing\n", parser.Config{})
	if m.Name() != ir.ModuleOpName || len(ops(m)) != 0 {
		t.Errorf("empty file is not an empty module")
	}
}

func TestCustomOpsAndDefaultDialect(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `module @outer {
  func.func @f(%a: i32 loc("arg":1:1), %b: i32) -> i32 {
    %c = builtin.unrealized_conversion_cast %a : i32 to i32
    return %c : i32
  } loc(#fl)
}
#fl = loc("fn":2:3)
`, parser.Config{})
	if name, _ := ir.SymbolName(m); name != "outer" {
		t.Errorf("module name %q", name)
	}
	fn := ir.ModuleBody(m).First()
	if fn.Name() != "func.func" || locString(fn.Loc()) != `loc("fn":2:3)` {
		t.Errorf("func.func: %s at %s", fn.Name(), locString(fn.Loc()))
	}
	entry := fn.Region(0).Front()
	if entry.NumArguments() != 2 || locString(entry.Argument(0).Loc()) != `loc("arg":1:1)` ||
		locString(entry.Argument(1).Loc()) != `loc("t.mlir":2:40)` {
		t.Errorf("entry arguments: %d, %s, %s", entry.NumArguments(), locString(entry.Argument(0).Loc()), locString(entry.Argument(1).Loc()))
	}
	ret := entry.Last()
	if ret.Name() != "func.return" {
		t.Errorf("`return` inside func.func parsed as %s", ret.Name())
	}
	if ret.Operand(0) != entry.First().Result(0) || entry.First().Operand(0) != entry.Argument(0) {
		t.Errorf("custom op operands not resolved")
	}
	if d := ir.Verify(m); d != nil {
		t.Errorf("verify: %v", d)
	}
}

func TestAliasesAndResources(t *testing.T) {
	ctx := newTestContext(t, true)
	m := parseOK(t, ctx, `!t = tensor<4xf32>
#a = {k = [1, 2]}
"x.a"() {d = #a, r = dense_resource<blob> : !t} : () -> !t
{-# dialect_resources: { builtin: { blob: "0x0400000001000000" } } #-}
`, parser.Config{})
	op := ops(m)[0]
	tt, _ := parser.ParseType(ctx, "tensor<4xf32>")
	if op.Result(0).Type() != tt {
		t.Errorf("type alias not the uniqued type")
	}
	if d, ok := op.Attr("d").(*ir.DictAttr); !ok || d.Get("k") == nil {
		t.Errorf("attribute alias: %v", op.Attr("d"))
	}
	r, ok := ctx.LookupResource("builtin", "blob")
	if !ok || r.Value != `"0x0400000001000000"` {
		t.Errorf("resource %+v, %v", r, ok)
	}
}

func TestSourceMgrRendersChunkLines(t *testing.T) {
	ctx := newTestContext(t, true)
	sm := ir.NewSourceMgr()
	_, err := parser.ParseSourceString(ctx, []byte("\"x.a\"() : () -> ()\n\"x.b\"(%u) : (i32) -> ()\n"),
		parser.Config{Filename: "big.mlir", SourceMgr: sm, LineOffset: 40})
	d, ok := err.(*ir.Diagnostic)
	if !ok {
		t.Fatalf("want a diagnostic, got %v", err)
	}
	want := "big.mlir:42:7: error: use of undeclared SSA value name\n\"x.b\"(%u) : (i32) -> ()\n      ^\n"
	if got := sm.Render(d); got != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
}

// The text cache must change nothing: every input parses to the same IR
// with and without it.
func TestCacheChangesNothing(t *testing.T) {
	inputs := []string{
		`"a.b"() {c = #foo.bar, b = #foo.bar<a<b>>, d = #foo.bar} : () -> ()`,
		`"a.b"() {x = @a, y = @a::@b, z = @a : : @c} : () -> ()`,
		`"a.b"() {x = 1, y = 1 : i32, z = 1 : i32} : () -> (i32, i32)`,
		`!t = i32
"a.b"() : () -> (!t, !t, i32)`,
		`"a.b"() : () -> (tensor<4xf32>, tensor<4 x f32>, tensor<4xf32>, tensor<4xf32,"e">)`,
		`"a.b"() {a = dense<1> : tensor<2xi32>, b = dense<1> : tensor<2xi32>, c = [dense<1> : tensor<2xi32>]} : () -> ()`,
		`"a.b"() {a = 0x10 : i32, b = 0x10, c = 0x10 : f32} : () -> ()`,
		`"a.b"() {a = {x = 1}, b = {x = 1}} : () -> ()`,
	}
	for _, c := range validInputs {
		inputs = append(inputs, c.src)
	}
	for _, src := range inputs {
		a := printGeneric(t, src, parser.ParseSourceString)
		b := printGeneric(t, src, parser.ParseSourceStringNoCache)
		if a != b {
			t.Errorf("cache changes the result of\n%s\nwith:\n%s\nwithout:\n%s", src, a, b)
		}
	}
}

type parseFunc func(*ir.Context, []byte, parser.Config) (*ir.Operation, error)

func printGeneric(t *testing.T, src string, parse parseFunc) string {
	t.Helper()
	ctx := newTestContext(t, true)
	m, err := parse(ctx, []byte(src), parser.Config{Filename: "t.mlir"})
	if err != nil {
		return "error: " + err.Error()
	}
	var b bytes.Buffer
	if err := printer.Print(&b, m, printer.Options{Generic: true, DebugInfo: true}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Printing what we parsed and parsing it again gives the same IR, in the
// generic form and in the custom form, with locations.
func TestRoundTrip(t *testing.T) {
	var inputs []string
	for _, c := range validInputs {
		inputs = append(inputs, c.src)
	}
	inputs = append(inputs, strings.Repeat(`"x.a"() ({
^bb0(%a: i32 loc("x":1:2)):
  %0:2 = "x.b"(%a) <{p = [1, "s"]}> {f = 2.5 : f16} : (i32) -> (i32, tensor<2x?xf32>) loc(fused<"m">["y":3:4, "z"])
  "x.c"(%0#1)[^bb1] : (tensor<2x?xf32>) -> ()
^bb1:
  "x.d"() : () -> () loc(callsite("a" at "b":5:6))
}) : () -> ()
`, 2))
	for _, src := range inputs {
		for _, opts := range []printer.Options{{Generic: true, DebugInfo: true}, {DebugInfo: true}} {
			once := reprint(t, src, opts)
			twice := reprint(t, once, opts)
			if once != twice {
				t.Errorf("round trip (generic=%v) differs\n--- first\n%s--- second\n%s", opts.Generic, once, twice)
			}
		}
	}
}

func reprint(t *testing.T, src string, opts printer.Options) string {
	t.Helper()
	ctx := newTestContext(t, true)
	m, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "t.mlir"})
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	var b bytes.Buffer
	if err := printer.Print(&b, m, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A cache whose items rarely repeat closes for a while and opens again:
// a file of distinct function types keeps few of them, a file that then
// repeats one type keeps that one, and either parses as it does without
// the cache.
func TestCacheGate(t *testing.T) {
	var b strings.Builder
	b.WriteString("\"builtin.module\"() ({\n")
	distinct := 3 * parser.GateWindow
	for i := 0; i < distinct; i++ {
		fmt.Fprintf(&b, "  %%a%d = \"x.op\"() {v = %d : i64} : () -> tensor<%dxf32>\n", i, i, i+1)
	}
	// After the pause, one spelling repeated: the gate, open again, sees
	// it hit and stays open.
	for i := 0; i < parser.GatePause+2*parser.GateWindow; i++ {
		b.WriteString("  \"x.op\"() {w = 1 : i64} : () -> ()\n")
	}
	b.WriteString("}) : () -> ()\n")
	src := b.String()
	_, funcs, attrs, dicts, err := parser.CacheSizes(newTestContext(t, true), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	// The first window of distinct spellings is kept but for its last,
	// whose lookup closes the gate; the repeated one is kept when it
	// opens again.
	want := parser.GateWindow
	if funcs != want || dicts != want {
		t.Errorf("function-type and dictionary caches kept %d and %d of %d distinct spellings and a repeated one, want one window less one, and the repeated one (%d)", funcs, dicts, distinct, want)
	}
	if attrs > want {
		t.Errorf("attribute cache kept %d entries, want at most %d", attrs, want)
	}
	if a, c := printGeneric(t, src, parser.ParseSourceString), printGeneric(t, src, parser.ParseSourceStringNoCache); a != c {
		t.Error("the gated cache changes the parse")
	}
}

package parser_test

import (
	"fmt"
	"strings"
	"testing"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// FuzzParse feeds arbitrary text to the parser (seeded from
// testdata/fuzz/FuzzParse, which holds the inputs of the other tests). The
// parser must not panic or hang, must fail only with *ir.Diagnostic, must
// build the same IR with and without its text cache, and what it builds
// must survive the verifier.
func FuzzParse(f *testing.F) {
	for _, c := range errorCases {
		f.Add([]byte(c.src + "\n"))
	}
	for _, c := range validInputs {
		f.Add([]byte(c.src + "\n"))
	}
	// Deep and long bodies of every participle-read part (affine maps and
	// sets, memref layouts, resources), so that mutations start next to
	// the nesting and length bounds.
	for _, s := range []string{
		`"a.b"() {m = affine_map<(d0) -> (` + strings.Repeat("(", 600) + "d0" + strings.Repeat(")", 600) + `)>} : () -> ()`,
		`"a.b"() {m = affine_map<(d0)[s0] -> (` + strings.Repeat("-", 5000) + `d0 floordiv s0)>} : () -> ()`,
		`"a.b"() {s = affine_set<(d0) : (` + strings.Repeat("-(", 600) + "d0" + strings.Repeat(")", 600) + ` >= 0)>} : () -> ()`,
		`"a.b"() : () -> memref<4xf32, affine_map<(d0) -> (` + strings.Repeat("(d0 + ", 600) + "1" + strings.Repeat(")", 600) + `)>>`,
		`"a.b"() {m = affine_map<(d0, d1) -> (d0` + strings.Repeat(" + d1 * 2 - d0", 2000) + `)>} : () -> ()`,
		`{-# dialect_resources: ` + strings.Repeat("{ a: ", 600) + `"0x01"` + strings.Repeat("}", 600) + ` #-}`,
	} {
		f.Add([]byte(s + "\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ctx := ir.NewContext()
		ctx.AllowUnregisteredDialects = true
		if err := funcd.Register(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tensor.Register(ctx); err != nil {
			t.Fatal(err)
		}
		cfg := parser.Config{Filename: "fuzz.mlir"}
		m1, err1 := parser.ParseSourceString(ctx, src, cfg)
		m2, err2 := parser.ParseSourceStringNoCache(ctx, src, cfg)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("with cache: %v; without: %v", err1, err2)
		}
		if err1 != nil {
			d1, ok1 := err1.(*ir.Diagnostic)
			d2, ok2 := err2.(*ir.Diagnostic)
			if !ok1 || !ok2 {
				t.Fatalf("errors are not diagnostics: %T %T", err1, err2)
			}
			if d1.Error() != d2.Error() {
				t.Fatalf("with cache: %v; without: %v", d1, d2)
			}
			return
		}
		if a, b := dumpIR(m1), dumpIR(m2); a != b {
			t.Fatalf("cache changes the IR\nwith:\n%s\nwithout:\n%s", a, b)
		}
		ir.Verify(m1)
	})
}

// dumpIR writes the structure of op with types and locations by identity
// (both parses share a context, so equal ones are the same objects),
// attributes by their text (a distinct attribute is a new object in each
// parse, as it must be, but prints the same) and values numbered by
// position.
func attrText[A interface {
	ir.Attribute
	comparable
}](a A) string {
	var none A
	if a == none {
		return "none"
	}
	return ir.AttrString(a)
}

func dumpIR(op *ir.Operation) string {
	var b strings.Builder
	ids := map[*ir.Value]int{}
	id := func(v *ir.Value) int {
		if n, ok := ids[v]; ok {
			return n
		}
		ids[v] = len(ids)
		return ids[v]
	}
	var walk func(op *ir.Operation, depth int)
	walk = func(op *ir.Operation, depth int) {
		fmt.Fprintf(&b, "%*s%s attrs=%s props=%s loc=%p (", depth, "", op.Name(), attrText(op.Attrs()), attrText(op.Props()), op.Loc())
		for i := 0; i < op.NumOperands(); i++ {
			fmt.Fprintf(&b, "v%d ", id(op.Operand(i)))
		}
		b.WriteString(") -> (")
		for _, r := range op.Results() {
			fmt.Fprintf(&b, "v%d:%p ", id(r), r.Type())
		}
		b.WriteString(")")
		for _, s := range op.Successors() {
			fmt.Fprintf(&b, " ^%d", s.Index())
		}
		b.WriteByte('\n')
		for _, r := range op.Regions() {
			fmt.Fprintf(&b, "%*sregion\n", depth, "")
			for _, blk := range r.Blocks() {
				fmt.Fprintf(&b, "%*sblock", depth, "")
				for _, a := range blk.Arguments() {
					fmt.Fprintf(&b, " v%d:%p@%p", id(a), a.Type(), a.Loc())
				}
				b.WriteByte('\n')
				for _, o := range blk.Ops() {
					walk(o, depth+2)
				}
			}
		}
	}
	walk(op, 0)
	return b.String()
}

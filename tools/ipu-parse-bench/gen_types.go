package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// generateRandomTypes writes the second benchmark file: a deterministic
// generic-form module of about size bytes shaped like the IR that model
// importers emit before any cleanup, which is harder on a parser than
// gen.go's file in the ways a user's file was (issue 28):
//
//   - every op's operand and result types are drawn independently, so
//     almost every op has a function type of its own and the type
//     tables and text caches grow with the file instead of hitting;
//   - a fifth of the dimensions are dynamic;
//   - most ops have properties holding dense attributes (small lists,
//     splats and hex blobs) beside integers and strings;
//   - a third of the ops have result groups (`%5:3`), used by `%5#1`;
//   - every op has a file location with its own line.
//
// It shares nothing with gen.go but the output form, so that the two
// files do not share a generator's blind spots.
func generateRandomTypes(w io.Writer, size int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &typeGen{w: bw, r: rand.New(rand.NewPCG(seed, seed*0x2545f4914f6cdd1d+1))}
	g.printf("\"builtin.module\"() ({\n")
	for fn := 0; g.n < size; fn++ {
		g.function(fn)
	}
	g.printf("}) : () -> () loc(\"importer.py\":1:1)\n")
	if g.err != nil {
		return g.err
	}
	return bw.Flush()
}

type typeGen struct {
	w    *bufio.Writer
	r    *rand.Rand
	n    int64
	err  error
	line int
	next int
}

func (g *typeGen) printf(format string, args ...any) {
	if g.err != nil {
		return
	}
	k, err := fmt.Fprintf(g.w, format, args...)
	g.n += int64(k)
	g.err = err
}

var (
	typeGenElems = []string{"f32", "f16", "bf16", "i64", "i32", "i8", "i1", "ui8", "f64"}
	typeGenOps   = []string{"onnx.Add", "onnx.MatMul", "onnx.Reshape", "onnx.Transpose", "onnx.Gather", "onnx.Concat", "onnx.Slice", "onnx.Softmax", "onnx.LayerNormalization", "onnx.Conv", "onnx.Where", "onnx.Cast"}
	typeGenFiles = []string{"/src/model/modeling_siglip.py", "/src/model/modeling_clip.py", "/usr/lib/python3/site-packages/torch/nn/modules/linear.py", "export.py"}
	typeGenKeys  = []string{"axis", "perm", "alpha", "beta", "epsilon", "value", "shape", "starts", "ends", "kernel_shape", "pads", "strides", "onnx_node_name", "to", "keepdims", "mode"}
)

// dim is one dimension: dynamic a fifth of the time, else a size a
// model's shapes have (batch, heads, sequence, hidden and their products).
func (g *typeGen) dim() string {
	if g.r.IntN(5) == 0 {
		return "?"
	}
	return fmt.Sprint([]int{1, 2, 3, 12, 16, 27, 64, 72, 196, 224, 256, 729, 768, 1152, 3072, 4304}[g.r.IntN(16)])
}

// typ is a ranked tensor type of rank 0 to 5, or now and then a scalar.
func (g *typeGen) typ() string {
	elem := typeGenElems[g.r.IntN(len(typeGenElems))]
	if g.r.IntN(16) == 0 {
		return elem
	}
	var b strings.Builder
	b.WriteString("tensor<")
	for i, rank := 0, g.r.IntN(6); i < rank; i++ {
		b.WriteString(g.dim())
		b.WriteByte('x')
	}
	b.WriteString(elem)
	b.WriteByte('>')
	return b.String()
}

// dense is a dense attribute of a static type of its own.
func (g *typeGen) dense() string {
	switch g.r.IntN(5) {
	case 0: // a splat
		return fmt.Sprintf("dense<%.5e> : tensor<%dx%dxf32>", g.r.NormFloat64(), 1+g.r.IntN(64), 1+g.r.IntN(64))
	case 1: // a hex blob
		n := 1 + g.r.IntN(48)
		var b strings.Builder
		b.WriteString(`dense<"0x`)
		for i := 0; i < 2*n; i++ {
			fmt.Fprintf(&b, "%02X", g.r.IntN(256))
		}
		fmt.Fprintf(&b, `"> : tensor<%dxf16>`, n)
		return b.String()
	case 2: // floats
		n := 1 + g.r.IntN(8)
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf("%.6e", g.r.NormFloat64())
		}
		return fmt.Sprintf("dense<[%s]> : tensor<%dxf32>", strings.Join(vs, ", "), n)
	}
	// integers, as shapes, axes and pads are
	n := 1 + g.r.IntN(6)
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprint(g.r.IntN(2048) - 1)
	}
	return fmt.Sprintf("dense<[%s]> : tensor<%dxi64>", strings.Join(vs, ", "), n)
}

func (g *typeGen) attrValue(key string) string {
	switch key {
	case "onnx_node_name":
		return fmt.Sprintf("\"/encoder/layers.%d/self_attn/%s_%d\"", g.r.IntN(27), typeGenOps[g.r.IntN(len(typeGenOps))][5:], g.r.IntN(1000))
	case "alpha", "beta", "epsilon":
		return fmt.Sprintf("%.6e : f32", g.r.Float64())
	case "mode":
		return fmt.Sprintf("\"%s\"", []string{"constant", "reflect", "edge", "linear"}[g.r.IntN(4)])
	case "axis", "to", "keepdims":
		return fmt.Sprintf("%d : si64", g.r.IntN(6)-1)
	}
	return g.dense()
}

// props is an op's properties: most ops have some.
func (g *typeGen) props() string {
	if g.r.IntN(5) == 0 {
		return ""
	}
	n := 1 + g.r.IntN(4)
	used := map[string]bool{}
	var parts []string
	for len(parts) < n {
		k := typeGenKeys[g.r.IntN(len(typeGenKeys))]
		if !used[k] {
			used[k] = true
			parts = append(parts, k+" = "+g.attrValue(k))
		}
	}
	return " <{" + strings.Join(parts, ", ") + "}>"
}

func (g *typeGen) loc() string {
	g.line++
	return fmt.Sprintf(" loc(%q:%d:%d)", typeGenFiles[g.r.IntN(len(typeGenFiles))], g.line, 1+g.r.IntN(80))
}

type typedValue struct{ name, typ string }

func (g *typeGen) function(fn int) {
	nargs := 1 + g.r.IntN(4)
	vals := make([]typedValue, nargs)
	args, types := make([]string, nargs), make([]string, nargs)
	for i := range vals {
		vals[i] = typedValue{fmt.Sprintf("%%arg%d", i), g.typ()}
		args[i], types[i] = vals[i].name+": "+vals[i].typ, vals[i].typ
	}
	g.printf("  \"func.func\"() <{function_type = (%s) -> (), sym_name = \"graph_%d\"}> ({\n", strings.Join(types, ", "), fn)
	g.printf("  ^bb0(%s):\n", strings.Join(args, ", "))
	g.next = 0
	for i, n := 0, 100+g.r.IntN(300); i < n; i++ {
		ops := make([]string, g.r.IntN(4))
		opTypes := make([]string, len(ops))
		for j := range ops {
			v := vals[g.r.IntN(len(vals))]
			ops[j], opTypes[j] = v.name, v.typ
		}
		nres := 1
		if g.r.IntN(3) == 0 {
			nres = 2 + g.r.IntN(3)
		}
		resTypes := make([]string, nres)
		for j := range resTypes {
			resTypes[j] = g.typ()
		}
		name := fmt.Sprintf("%%%d", g.next)
		g.next++
		lhs, results := name, resTypes[0]
		if nres > 1 {
			lhs = fmt.Sprintf("%s:%d", name, nres)
			results = "(" + strings.Join(resTypes, ", ") + ")"
		}
		g.printf("    %s = \"%s\"(%s)%s : (%s) -> %s%s\n", lhs, typeGenOps[g.r.IntN(len(typeGenOps))],
			strings.Join(ops, ", "), g.props(), strings.Join(opTypes, ", "), results, g.loc())
		for j, t := range resTypes {
			v := typedValue{name, t}
			if nres > 1 {
				v.name = fmt.Sprintf("%s#%d", name, j)
			}
			vals = append(vals, v)
		}
		if len(vals) > 48 {
			vals = vals[len(vals)-48:]
		}
	}
	g.printf("    \"func.return\"() : () -> ()%s\n", g.loc())
	g.printf("  }) : () -> ()%s\n", g.loc())
}

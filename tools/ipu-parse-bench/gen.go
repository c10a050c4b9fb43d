package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// generate writes a deterministic generic-form module of about size bytes,
// shaped like what a model-level compiler hands to mlir-opt (about 110
// bytes an op, 270,000 ops in 30 MB):
//
//   - functions of a few hundred ops, a third of them with a file
//     location (the rest unknown, as passes leave them), some fused or
//     named;
//   - properties (`<{...}>`) on about a quarter of the ops and attribute
//     dictionaries on another quarter: integers, floats, strings, arrays,
//     dense arrays, nested dictionaries, types;
//   - ops of one to four results;
//   - tensor, memref and vector types of rank 0 to 4, a tenth of the
//     dimensions dynamic, memrefs with strided layouts and memory spaces,
//     scalable vectors;
//   - constants with dense attributes (splats, short lists, hex blobs);
//   - nested regions two and three deep, and multi-block regions whose
//     blocks take arguments and branch to each other.
//
// Ops belong to an unregistered dialect (`bench`) so that mlir-opt accepts
// them with --allow-unregistered-dialect and both parsers do the same
// work; functions are func.func so that both verify a registered op with
// a symbol table around them.
func generate(w io.Writer, size int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{w: bw, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	g.printf("\"builtin.module\"() ({\n")
	for fn := 0; g.n < size; fn++ {
		g.function(fn)
	}
	g.printf("}) : () -> ()\n")
	if g.err != nil {
		return g.err
	}
	return bw.Flush()
}

type gen struct {
	w    *bufio.Writer
	r    *rand.Rand
	n    int64
	err  error
	next int // SSA numbering within a function
	line int
}

func (g *gen) printf(format string, args ...any) {
	if g.err != nil {
		return
	}
	k, err := fmt.Fprintf(g.w, format, args...)
	g.n += int64(k)
	g.err = err
}

var (
	dims     = []int{1, 2, 4, 8, 16, 64, 72, 128, 729, 1152}
	elems    = []string{"f16", "f32", "bf16", "i32", "i8", "i1", "index"}
	opNames  = []string{"bench.add", "bench.mul", "bench.sub", "bench.max", "bench.exp", "bench.tanh", "bench.convert", "bench.select"}
	files    = []string{"model/attention.py", "model/mlp.py", "model/embed.py", "lib/ops.py", "/usr/lib/python3/torch/nn/functional.py"}
	fnPrefix = []string{"attention", "mlp", "layer_norm", "softmax", "embed"}
)

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) shape(maxRank int) string {
	var b strings.Builder
	for i, rank := 0, g.r.IntN(maxRank+1); i < rank; i++ {
		if g.r.IntN(10) == 0 {
			b.WriteString("?x")
		} else {
			fmt.Fprintf(&b, "%dx", dims[g.r.IntN(len(dims))])
		}
	}
	return b.String()
}

// typ picks a tensor (most often), memref, vector or scalar type.
func (g *gen) typ() string {
	elem := g.pick(elems)
	switch k := g.r.IntN(20); {
	case k < 12:
		return "tensor<" + g.shape(4) + elem + ">"
	case k < 16:
		if elem == "i1" || elem == "index" {
			elem = "f32"
		}
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprintf("memref<?x%dx%s, strided<[?, 1], offset: ?>>", dims[g.r.IntN(len(dims))], elem)
		case 1:
			return "memref<" + g.shape(3) + elem + ", 1>"
		}
		return "memref<" + g.shape(3) + elem + ">"
	case k < 19:
		if elem == "index" {
			elem = "f32"
		}
		if g.r.IntN(4) == 0 {
			return fmt.Sprintf("vector<[%d]x%s>", 4*(1+g.r.IntN(4)), elem)
		}
		return fmt.Sprintf("vector<%dx%dx%s>", 1+g.r.IntN(8), 4*(1+g.r.IntN(8)), elem)
	}
	return elem
}

// loc is an op's trailing location: a file location on about a third of
// the ops (some fused or named), nothing on the rest.
func (g *gen) loc() string {
	g.line++
	switch g.r.IntN(30) {
	case 0:
		return fmt.Sprintf(` loc(fused["%s":%d:%d, "%s":%d:%d])`, g.pick(files), g.line, 5, g.pick(files), g.line+3, 9)
	case 1:
		return fmt.Sprintf(` loc("op%d"("%s":%d:%d))`, g.line%97, g.pick(files), g.line, 3)
	case 2, 3, 4, 5, 6, 7, 8, 9:
		return fmt.Sprintf(` loc("%s":%d:%d)`, g.pick(files), g.line, 1+g.r.IntN(40))
	}
	return ""
}

// attrValue is one attribute value of the kinds model compilers attach.
func (g *gen) attrValue() string {
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("%d : i64", g.r.IntN(4096))
	case 1:
		return fmt.Sprintf("%.4f : f32", g.r.Float64())
	case 2:
		return fmt.Sprintf("\"%s_%d\"", g.pick(fnPrefix), g.r.IntN(100))
	case 3:
		return fmt.Sprintf("[%d, %d, %d]", g.r.IntN(4), g.r.IntN(4), g.r.IntN(4))
	case 4:
		return fmt.Sprintf("array<i64: %d, %d>", g.r.IntN(9), g.r.IntN(9))
	case 5:
		return "unit"
	case 6:
		return fmt.Sprintf("{stride = %d : i64, pad = [0, %d]}", 1+g.r.IntN(3), g.r.IntN(3))
	case 7:
		return g.typ()
	case 8:
		return "true"
	}
	return fmt.Sprintf("#bench.mode<%s>", g.pick([]string{"fast", "exact", "approx"}))
}

func (g *gen) dict() string {
	names := []string{"axis", "mode", "name", "perm", "sizes", "flag", "opts", "elem", "strict"}
	n := 1 + g.r.IntN(3)
	used := map[string]bool{}
	var parts []string
	for len(parts) < n {
		k := g.pick(names)
		if used[k] {
			continue
		}
		used[k] = true
		parts = append(parts, k+" = "+g.attrValue())
	}
	return strings.Join(parts, ", ")
}

// attrs is an op's properties and discardable attributes, maybe none.
func (g *gen) attrs() (props, dict string) {
	switch g.r.IntN(4) {
	case 0:
		props = " <{" + g.dict() + "}>"
	case 1:
		dict = " {" + g.dict() + "}"
	}
	return
}

// value is an SSA value available in the current body, with its type.
type value struct{ name, typ string }

func (g *gen) fresh() string { g.next++; return fmt.Sprintf("%%%d", g.next-1) }

func (g *gen) function(fn int) {
	argType := g.typ()
	g.printf("  \"func.func\"() <{function_type = (%s, %s) -> %s, sym_name = \"%s_%d\"}> ({\n",
		argType, argType, argType, fnPrefix[fn%len(fnPrefix)], fn)
	g.printf("  ^bb0(%%arg0: %s, %%arg1: %s):\n", argType, argType)
	g.next = 0
	vals := []value{{"%arg0", argType}, {"%arg1", argType}}
	vals = g.body(vals, 200+g.r.IntN(400), 2, "    ")
	res := g.sameType(vals, value{"%arg0", argType})
	g.printf("    \"func.return\"(%s) : (%s) -> ()\n", res.name, argType)
	g.printf("  }) : () -> ()\n")
}

// body writes n ops at indent, using and extending vals; depth bounds
// the regions nested below.
func (g *gen) body(vals []value, n, depth int, indent string) []value {
	for i := 0; i < n; i++ {
		props, dict := g.attrs()
		switch k := g.r.IntN(40); {
		case k < 6: // constant
			t := g.typ()
			name := g.fresh()
			g.printf("%s%s = \"bench.constant\"() <{value = %s}>%s : () -> %s%s\n", indent, name, g.dense(t), dict, t, g.loc())
			vals = append(vals, value{name, t})
		case k < 30: // one to four operands, one result
			a := vals[g.r.IntN(len(vals))]
			ops := []value{a}
			for j := g.r.IntN(4); j > 0; j-- {
				ops = append(ops, g.sameType(vals, a))
			}
			names, types := make([]string, len(ops)), make([]string, len(ops))
			for j, o := range ops {
				names[j], types[j] = o.name, o.typ
			}
			name := g.fresh()
			g.printf("%s%s = \"%s\"(%s)%s%s : (%s) -> %s%s\n", indent, name, g.pick(opNames), strings.Join(names, ", "),
				props, dict, strings.Join(types, ", "), a.typ, g.loc())
			vals = append(vals, value{name, a.typ})
		case k < 35: // several results
			a := vals[g.r.IntN(len(vals))]
			nres := 2 + g.r.IntN(3)
			name := g.fresh()
			results := make([]string, nres)
			for j := range results {
				results[j] = a.typ
				if j == nres-1 {
					results[j] = "index"
				}
			}
			g.printf("%s%s:%d = \"bench.split\"(%s)%s%s : (%s) -> (%s)%s\n", indent, name, nres, a.name, props, dict, a.typ,
				strings.Join(results, ", "), g.loc())
			for j := 0; j < nres-1; j++ {
				vals = append(vals, value{fmt.Sprintf("%s#%d", name, j), a.typ})
			}
		case k < 38 && depth > 0: // a region with a block argument, maybe nested further
			a := vals[g.r.IntN(len(vals))]
			name := g.fresh()
			g.printf("%s%s = \"bench.reduce\"(%s)%s ({\n", indent, name, a.name, props)
			lhs, rhs := fmt.Sprintf("%%lhs%d", g.next), fmt.Sprintf("%%rhs%d", g.next)
			g.printf("%s^bb0(%s: f32, %s: f32):\n", indent, lhs, rhs)
			inner := g.body([]value{{lhs, "f32"}, {rhs, "f32"}}, 1+g.r.IntN(4), depth-1, indent+"  ")
			g.printf("%s  \"bench.yield\"(%s) : (%s) -> ()%s\n", indent, inner[len(inner)-1].name, inner[len(inner)-1].typ, g.loc())
			g.printf("%s})%s : (%s) -> %s%s\n", indent, dict, a.typ, a.typ, g.loc())
			vals = append(vals, value{name, a.typ})
		case depth > 0: // a multi-block region whose blocks take arguments
			a := vals[g.r.IntN(len(vals))]
			name := g.fresh()
			it := fmt.Sprintf("%%it%d", g.next)
			g.printf("%s%s = \"bench.loop\"(%s) ({\n", indent, name, a.name)
			g.printf("%s^bb0(%s: %s):\n", indent, it, a.typ)
			c := g.fresh()
			g.printf("%s  %s = \"bench.cond\"(%s) : (%s) -> i1%s\n", indent, c, it, a.typ, g.loc())
			g.printf("%s  \"bench.cond_br\"(%s, %s, %s) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, %s, %s) -> ()\n",
				indent, c, it, it, a.typ, a.typ)
			x, y := fmt.Sprintf("%%x%d", g.next), fmt.Sprintf("%%y%d", g.next)
			g.printf("%s^bb1(%s: %s):\n", indent, x, a.typ)
			g.body([]value{{x, a.typ}}, g.r.IntN(3), depth-1, indent+"  ")
			g.printf("%s  \"bench.br\"(%s)[^bb2] : (%s) -> ()\n", indent, x, a.typ)
			g.printf("%s^bb2(%s: %s):\n", indent, y, a.typ)
			g.printf("%s  \"bench.yield\"(%s) : (%s) -> ()\n", indent, y, a.typ)
			g.printf("%s}) : (%s) -> %s%s\n", indent, a.typ, a.typ, g.loc())
			vals = append(vals, value{name, a.typ})
		}
		if len(vals) > 64 {
			vals = vals[len(vals)-64:]
		}
	}
	return vals
}

// sameType picks a value of a's type (a itself when there is none other).
func (g *gen) sameType(vals []value, a value) value {
	for tries := 0; tries < 8; tries++ {
		v := vals[g.r.IntN(len(vals))]
		if v.typ == a.typ {
			return v
		}
	}
	for _, v := range vals {
		if v.typ == a.typ {
			return v
		}
	}
	return a
}

// dense writes a dense attribute for a value of type t: a splat, a short
// list when the shape is small and static, or a hex blob; memrefs and
// dynamic shapes, which cannot type a literal, get a small tensor.
func (g *gen) dense(t string) string {
	if !strings.HasPrefix(t, "tensor<") && !strings.HasPrefix(t, "vector<") || strings.Contains(t, "?") || strings.Contains(t, "[") {
		return fmt.Sprintf("dense<%d> : tensor<4xi32>", g.r.IntN(100))
	}
	shape := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "tensor<"), "vector<"), ">")
	elem := shape[strings.LastIndexByte(shape, 'x')+1:]
	if strings.HasSuffix(shape, "index") {
		elem = "index"
	}
	parts := append(strings.Split(strings.TrimSuffix(strings.TrimSuffix(shape, elem), "x"), "x"), elem)
	if strings.TrimSuffix(shape, elem) == "" {
		parts = []string{elem}
	}
	float := strings.HasPrefix(elem, "f") || strings.HasPrefix(elem, "bf")
	n := 1
	for _, d := range parts[:len(parts)-1] {
		var v int
		fmt.Sscan(d, &v)
		n *= v
	}
	scalar := func() string {
		switch {
		case elem == "i1":
			return "true"
		case float:
			return fmt.Sprintf("%.6e", g.r.Float64()*4-2)
		}
		return fmt.Sprint(g.r.IntN(200) - 100)
	}
	width := map[string]int{"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "i8": 1, "index": 8}[elem]
	switch {
	case n <= 16 && len(parts) == 2 && g.r.IntN(2) == 0:
		vals := make([]string, n)
		for i := range vals {
			vals[i] = scalar()
		}
		return fmt.Sprintf("dense<[%s]> : %s", strings.Join(vals, ", "), t)
	case width > 0 && n <= 1024 && g.r.IntN(4) == 0:
		var b strings.Builder
		b.WriteString(`dense<"0x`)
		for i := 0; i < n*width; i++ {
			fmt.Fprintf(&b, "%02X", g.r.IntN(256))
		}
		fmt.Fprintf(&b, `"> : %s`, t)
		return b.String()
	}
	return fmt.Sprintf("dense<%s> : %s", scalar(), t)
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// generate writes a deterministic generic-form module of about size bytes,
// shaped like what a model-level compiler produces: functions whose bodies
// are long runs of tensor ops with per-op source locations, constants
// with dense attributes (splats, short lists, hex blobs), ops with several
// results, nested regions with block arguments, and a few multi-block
// regions with successors. Ops belong to an unregistered dialect (`bench`)
// so that mlir-opt accepts them with --allow-unregistered-dialect and both
// parsers do the same work; functions are func.func so that both verify a
// registered op with a symbol table around them.
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
	w   *bufio.Writer
	r   *rand.Rand
	n   int64
	err error
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
	dims     = []int{1, 4, 8, 16, 64, 72, 128, 729, 1152}
	elems    = []string{"f16", "f32", "bf16", "i32", "i8"}
	opNames  = []string{"bench.add", "bench.mul", "bench.sub", "bench.max", "bench.exp", "bench.tanh", "bench.convert"}
	files    = []string{"model/attention.py", "model/mlp.py", "model/embed.py", "lib/ops.py"}
	fnPrefix = []string{"attention", "mlp", "layer_norm", "softmax", "embed"}
)

// tensorType picks a ranked tensor type.
func (g *gen) tensorType() string {
	rank := 1 + g.r.IntN(3)
	var b strings.Builder
	b.WriteString("tensor<")
	for i := 0; i < rank; i++ {
		if g.r.IntN(40) == 0 {
			b.WriteString("?x")
		} else {
			fmt.Fprintf(&b, "%dx", dims[g.r.IntN(len(dims))])
		}
	}
	b.WriteString(elems[g.r.IntN(len(elems))])
	b.WriteByte('>')
	return b.String()
}

func (g *gen) loc(line int) string {
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf(` loc(fused["%s":%d:%d, "%s":%d:%d])`, files[g.r.IntN(len(files))], line, 5,
			files[g.r.IntN(len(files))], line+3, 9)
	case 1:
		return fmt.Sprintf(` loc("op%d"("%s":%d:%d))`, line%97, files[g.r.IntN(len(files))], line, 3)
	}
	return fmt.Sprintf(` loc("%s":%d:%d)`, files[g.r.IntN(len(files))], line, 1+g.r.IntN(40))
}

// value is an SSA value available in the current body, with its type.
type value struct{ name, typ string }

func (g *gen) function(fn int) {
	argType := g.tensorType()
	g.printf("  \"func.func\"() <{function_type = (%s, %s) -> %s, sym_name = \"%s_%d\"}> ({\n",
		argType, argType, argType, fnPrefix[fn%len(fnPrefix)], fn)
	g.printf("  ^bb0(%%arg0: %s, %%arg1: %s):\n", argType, argType)
	vals := []value{{"%arg0", argType}, {"%arg1", argType}}
	next := 0
	fresh := func() string { next++; return fmt.Sprintf("%%%d", next-1) }
	n := 200 + g.r.IntN(400)
	for i := 0; i < n; i++ {
		line := 10 + i
		switch k := g.r.IntN(20); {
		case k < 3: // constant
			t := g.tensorType()
			name := fresh()
			g.printf("    %s = \"bench.constant\"() <{value = %s}> : () -> %s%s\n", name, g.dense(t), t, g.loc(line))
			vals = append(vals, value{name, t})
		case k < 14: // elementwise on two values of one type
			a := vals[g.r.IntN(len(vals))]
			b := g.sameType(vals, a)
			name := fresh()
			op := opNames[g.r.IntN(len(opNames))]
			attrs := ""
			if g.r.IntN(3) == 0 {
				attrs = fmt.Sprintf(" {fastmath = #bench.fastmath<fast>, tag = \"n%d\"}", g.r.IntN(50))
			}
			g.printf("    %s = \"%s\"(%s, %s)%s : (%s, %s) -> %s%s\n", name, op, a.name, b.name, attrs, a.typ, b.typ, a.typ, g.loc(line))
			vals = append(vals, value{name, a.typ})
		case k < 16: // two results
			a := vals[g.r.IntN(len(vals))]
			name := fresh()
			g.printf("    %s:2 = \"bench.split\"(%s) {axis = %d : i64, sizes = array<i64: %d, %d>} : (%s) -> (%s, %s)%s\n",
				name, a.name, g.r.IntN(3), g.r.IntN(9), g.r.IntN(9), a.typ, a.typ, a.typ, g.loc(line))
			vals = append(vals, value{name + "#0", a.typ}, value{name + "#1", a.typ})
		case k < 19: // region with a block argument
			a := vals[g.r.IntN(len(vals))]
			name := fresh()
			g.printf("    %s = \"bench.reduce\"(%s) <{axes = [%d, %d], keep_dims = false}> ({\n", name, a.name, g.r.IntN(3), g.r.IntN(3))
			g.printf("    ^bb0(%%lhs: f32, %%rhs: f32):\n")
			inner := fresh()
			g.printf("      %s = \"bench.scalar_add\"(%%lhs, %%rhs) : (f32, f32) -> f32%s\n", inner, g.loc(line))
			g.printf("      \"bench.yield\"(%s) : (f32) -> ()%s\n", inner, g.loc(line))
			g.printf("    }) : (%s) -> %s%s\n", a.typ, a.typ, g.loc(line))
			vals = append(vals, value{name, a.typ})
		default: // multi-block region with successors
			a := vals[g.r.IntN(len(vals))]
			name := fresh()
			g.printf("    %s = \"bench.loop\"(%s) ({\n", name, a.name)
			g.printf("    ^bb0(%%it: %s):\n", a.typ)
			c := fresh()
			g.printf("      %s = \"bench.cond\"(%%it) : (%s) -> i1\n", c, a.typ)
			g.printf("      \"bench.cond_br\"(%s, %%it) [^bb1, ^bb2] : (i1, %s) -> ()\n", c, a.typ)
			g.printf("    ^bb1:\n      \"bench.br\"()[^bb2] : () -> ()\n")
			g.printf("    ^bb2:\n      \"bench.yield\"(%%it) : (%s) -> ()\n", a.typ)
			g.printf("    }) : (%s) -> %s%s\n", a.typ, a.typ, g.loc(line))
			vals = append(vals, value{name, a.typ})
		}
		if len(vals) > 64 {
			vals = vals[len(vals)-64:]
		}
	}
	res := g.sameType(vals, value{"%arg0", argType})
	g.printf("    \"func.return\"(%s) : (%s) -> ()\n", res.name, argType)
	g.printf("  }) : () -> ()\n")
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

// dense writes a dense attribute for tensor type t: a splat, a short list
// when the shape is small and static, or a hex blob.
func (g *gen) dense(t string) string {
	shape := strings.TrimSuffix(strings.TrimPrefix(t, "tensor<"), ">")
	parts := strings.Split(shape, "x")
	elem := parts[len(parts)-1]
	float := strings.HasPrefix(elem, "f") || strings.HasPrefix(elem, "bf")
	n := 1
	for _, d := range parts[:len(parts)-1] {
		if d == "?" {
			n = -1
			break
		}
		var v int
		fmt.Sscan(d, &v)
		n *= v
	}
	scalar := func() string {
		if float {
			return fmt.Sprintf("%.6e", g.r.Float64()*4-2)
		}
		return fmt.Sprint(g.r.IntN(200) - 100)
	}
	switch {
	case n < 0:
		return "dense<0> : tensor<1xi32>" // a dynamic shape cannot be a literal's type
	case n <= 16 && g.r.IntN(2) == 0:
		vals := make([]string, n)
		for i := range vals {
			vals[i] = scalar()
		}
		if len(parts) == 2 {
			return fmt.Sprintf("dense<[%s]> : %s", strings.Join(vals, ", "), t)
		}
		return fmt.Sprintf("dense<%s> : %s", scalar(), t)
	case n <= 4096 && g.r.IntN(4) == 0:
		width := map[string]int{"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "i8": 1}[elem]
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

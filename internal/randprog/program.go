package randprog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Program writes a tensor-level function for target from a seeded mix of
// every op of the tensor dialect (elementwise arithmetic and functions,
// conversions, matmuls plain and batched, reductions, softmax, layer norm,
// transposes, reshapes, broadcasts, slices, concats, dense and splat
// constants and tensor.splat) in f16 or f32, on small random shapes, and
// returns one to four of its values, chosen among all of them (arguments,
// views and reductions included, the same value possibly twice): the
// programs of the differential test of the whole compiler.
func Program(rng *rand.Rand, target string) string {
	g := &gen{rng: rng}
	g.elem = "f16"
	if rng.IntN(3) == 0 {
		g.elem = "f32"
	}
	for range 1 + rng.IntN(2) {
		g.arg(g.elem, g.shape(1+rng.IntN(3)))
	}
	for range 3 + rng.IntN(9) {
		g.step()
	}
	// The results: the last value, and up to three more of any kind.
	res := []val{g.vals[len(g.vals)-1]}
	for range rng.IntN(4) {
		res = append(res, g.vals[rng.IntN(len(g.vals))])
	}
	names, types := make([]string, len(res)), make([]string, len(res))
	for i, r := range res {
		names[i], types[i] = r.name, ty(r.elem, r.shape)
	}
	ret := strings.Join(types, ", ")
	if len(res) > 1 {
		ret = "(" + ret + ")"
	}
	return fmt.Sprintf("module attributes {ipu.target = %q} {\n  func.func @f(%s) -> %s {\n%s    return %s : %s\n  }\n}\n",
		target, strings.Join(g.args, ", "), ret, g.body.String(), strings.Join(names, ", "), strings.Join(types, ", "))
}

type val struct {
	name  string
	elem  string
	shape []int64
}

type gen struct {
	rng  *rand.Rand
	elem string
	vals []val
	args []string
	body strings.Builder
	n    int
}

func ty(elem string, s []int64) string {
	if len(s) == 0 {
		return "tensor<" + elem + ">"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "tensor<" + strings.Join(parts, "x") + "x" + elem + ">"
}

func ints(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func (g *gen) dim() int64 { return []int64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32}[g.rng.IntN(10)] }

func (g *gen) shape(rank int) []int64 {
	s := make([]int64, rank)
	for i := range s {
		s[i] = g.dim()
	}
	return s
}

func (g *gen) arg(elem string, shape []int64) val {
	v := val{fmt.Sprintf("%%a%d", len(g.args)), elem, slices.Clone(shape)}
	g.args = append(g.args, v.name+": "+ty(elem, shape))
	g.vals = append(g.vals, v)
	return v
}

func (g *gen) emit(elem string, shape []int64, format string, a ...any) val {
	v := val{fmt.Sprintf("%%v%d", g.n), elem, slices.Clone(shape)}
	g.n++
	fmt.Fprintf(&g.body, "    %s = "+format+"\n", append([]any{v.name}, a...)...)
	g.vals = append(g.vals, v)
	return v
}

// pick is a value of rank at least minRank (the last one made, most
// often, so that programs are deep rather than wide).
func (g *gen) pick(minRank int) (val, bool) {
	var ok []val
	for _, v := range g.vals {
		if len(v.shape) >= minRank {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return val{}, false
	}
	if g.rng.IntN(2) == 0 {
		return ok[len(ok)-1], true
	}
	return ok[g.rng.IntN(len(ok))], true
}

// like is a second operand of x's type: x itself, an earlier value of
// that type, a new argument or a constant.
func (g *gen) like(x val) val {
	switch g.rng.IntN(4) {
	case 0:
		return x
	case 1:
		for _, v := range slices.Backward(g.vals) {
			if v.elem == x.elem && slices.Equal(v.shape, x.shape) && v.name != x.name {
				return v
			}
		}
	case 2:
		return g.constant(x.elem, x.shape)
	}
	return g.arg(x.elem, x.shape)
}

// constant is a dense constant of a few elements (a splat when larger).
func (g *gen) constant(elem string, shape []int64) val {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	if n > 16 || g.rng.IntN(2) == 0 {
		return g.emit(elem, shape, "tensor.constant dense<%.3f> : %s", float64(g.rng.IntN(9)-4)/4, ty(elem, shape))
	}
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%.3f", float64(g.rng.IntN(17)-8)/8)
	}
	lit := "[" + strings.Join(vals, ", ") + "]"
	if len(shape) != 1 {
		// A nested literal is long; a flat one reshaped is the same value.
		flat := g.emit(elem, []int64{n}, "tensor.constant dense<%s> : %s", lit, ty(elem, []int64{n}))
		return g.emit(elem, shape, "tensor.reshape %s : %s -> %s", flat.name, ty(elem, flat.shape), ty(elem, shape))
	}
	return g.emit(elem, shape, "tensor.constant dense<%s> : %s", lit, ty(elem, shape))
}

// positive is a positive value of x's type and shape: exp of x.
func (g *gen) positive(x val) val {
	return g.emit(x.elem, x.shape, "tensor.exp %s : %s", x.name, ty(x.elem, x.shape))
}

func (g *gen) step() {
	x, ok := g.pick(1)
	if !ok {
		return
	}
	t, r := ty(x.elem, x.shape), len(x.shape)
	switch g.rng.IntN(19) {
	case 0, 1:
		op := []string{"add", "sub", "mul", "max"}[g.rng.IntN(4)]
		y := g.like(x)
		g.emit(x.elem, x.shape, "tensor.%s %s, %s : %s", op, x.name, y.name, t)
	case 2:
		d := g.positive(g.like(x))
		g.emit(x.elem, x.shape, "tensor.div %s, %s : %s", x.name, d.name, t)
	case 3:
		op := []string{"exp", "tanh", "erf", "gelu", "gelu"}[g.rng.IntN(5)]
		attr := ""
		if op == "gelu" && g.rng.IntN(2) == 0 {
			attr = " {approximate}"
		}
		g.emit(x.elem, x.shape, "tensor.%s %s%s : %s", op, x.name, attr, t)
	case 4:
		p := g.positive(x)
		g.emit(x.elem, x.shape, "tensor.rsqrt %s : %s", p.name, t)
	case 5:
		to := "f32"
		if x.elem == "f32" {
			to = "f16"
		}
		c := g.emit(to, x.shape, "tensor.convert %s : %s -> %s", x.name, t, ty(to, x.shape))
		if g.rng.IntN(2) == 0 {
			g.emit(x.elem, x.shape, "tensor.convert %s : %s -> %s", c.name, ty(to, x.shape), t)
		}
	case 6, 7:
		if r < 2 {
			return
		}
		k := x.shape[r-1]
		out := append(slices.Clone(x.shape[:r-1]), g.dim())
		w := g.arg(x.elem, append(slices.Clone(x.shape[:r-2]), k, out[r-1]))
		op := "tensor.matmul"
		if r > 2 {
			op = "tensor.batch_matmul"
		}
		g.emit(x.elem, out, "%s %s, %s : %s, %s -> %s", op, x.name, w.name, t, ty(w.elem, w.shape), ty(x.elem, out))
	case 8:
		axes := []int64{int64(g.rng.IntN(r))}
		if r > 2 && g.rng.IntN(2) == 0 {
			if b := int64(g.rng.IntN(r)); b != axes[0] {
				axes = append(axes, b)
				slices.Sort(axes)
			}
		}
		var out []int64
		for i, d := range x.shape {
			if !slices.Contains(axes, int64(i)) {
				out = append(out, d)
			}
		}
		op := []string{"reduce_sum", "reduce_max"}[g.rng.IntN(2)]
		g.emit(x.elem, out, "tensor.%s %s axes = [%s] : %s -> %s", op, x.name, ints(axes), t, ty(x.elem, out))
	case 9:
		g.emit(x.elem, x.shape, "tensor.softmax %s axis = %d : %s", x.name, g.rng.IntN(r), t)
	case 10:
		d := []int64{x.shape[r-1]}
		var scale, bias val
		if g.rng.IntN(2) == 0 {
			scale, bias = g.arg(x.elem, d), g.arg(x.elem, d)
		} else {
			scale, bias = g.constant(x.elem, d), g.constant(x.elem, d)
		}
		g.emit(x.elem, x.shape, "tensor.layer_norm %s, %s, %s epsilon = 9.99999974E-6 : %s, %s, %s -> %s",
			x.name, scale.name, bias.name, t, ty(x.elem, d), ty(x.elem, d), t)
	case 11:
		if r < 2 {
			return
		}
		perm := g.rng.Perm(r)
		out := make([]int64, r)
		p64 := make([]int64, r)
		for i, p := range perm {
			out[i], p64[i] = x.shape[p], int64(p)
		}
		g.emit(x.elem, out, "tensor.transpose %s permutation = [%s] : %s -> %s", x.name, ints(p64), t, ty(x.elem, out))
	case 12:
		total := int64(1)
		for _, d := range x.shape {
			total *= d
		}
		out := []int64{total}
		if total%4 == 0 && g.rng.IntN(2) == 0 {
			out = []int64{4, total / 4}
		}
		g.emit(x.elem, out, "tensor.reshape %s : %s -> %s", x.name, t, ty(x.elem, out))
	case 13:
		ax := g.rng.IntN(r)
		if x.shape[ax] < 2 {
			return
		}
		stride := int64(1 + g.rng.IntN(2))
		size := (x.shape[ax] + stride - 1) / stride / 2
		size = max(size, 1)
		off := g.rng.Int64N(x.shape[ax] - (size-1)*stride)
		out := slices.Clone(x.shape)
		out[ax] = size
		offs, sizes, strides := make([]int64, r), slices.Clone(out), make([]int64, r)
		for i := range strides {
			strides[i] = 1
		}
		offs[ax], strides[ax] = off, stride
		g.emit(x.elem, out, "tensor.slice %s offsets = [%s] sizes = [%s] strides = [%s] : %s -> %s",
			x.name, ints(offs), ints(sizes), ints(strides), t, ty(x.elem, out))
	case 14:
		ax := g.rng.IntN(r)
		y := g.like(x)
		out := slices.Clone(x.shape)
		out[ax] *= 2
		g.emit(x.elem, out, "tensor.concat %s, %s axis = %d : %s, %s -> %s", x.name, y.name, ax, t, t, ty(x.elem, out))
	case 15:
		out := append([]int64{g.dim()}, x.shape...)
		dims := make([]int64, r)
		for i := range dims {
			dims[i] = int64(i + 1)
		}
		g.emit(x.elem, out, "tensor.broadcast %s dimensions = [%s] : %s -> %s", x.name, ints(dims), t, ty(x.elem, out))
	case 16:
		s := g.emit(x.elem, nil, "tensor.constant %.3f : %s", float64(g.rng.IntN(9)-4)/4, x.elem)
		g.vals = g.vals[:len(g.vals)-1] // a scalar is no tensor to build on
		sp := g.emit(x.elem, x.shape, "tensor.splat %s : %s -> %s", s.name, x.elem, t)
		g.emit(x.elem, x.shape, "tensor.add %s, %s : %s", x.name, sp.name, t)
	case 17:
		g.constant(x.elem, x.shape)
	case 18:
		g.emit(x.elem, x.shape, "tensor.mul %s, %s : %s", x.name, g.arg(x.elem, x.shape).name, t)
	}
}

// Package encoder writes transformer encoder stacks in ipuir's textual IR:
// the models of the long tests and the pod example, from one generator so
// that they cannot drift apart.
package encoder

import (
	"fmt"
	"math"
	"strings"
)

// Stack writes a stack of pre-norm transformer encoder layers
// (SigLIP's and ViT's: layer_norm, attention with biases, residual,
// layer_norm, an MLP with tanh-gelu, residual) at the tensor level, every
// weight a function argument named after its layer (%l3_wq), for target
// tgt, in element type elem (f16, f32).
func Stack(layers, tokens, hidden, heads, mlp int, elem, tgt string) string {
	d := hidden / heads
	ty := func(dims ...int) string {
		s := make([]string, len(dims))
		for i, n := range dims {
			s[i] = fmt.Sprint(n)
		}
		return "tensor<" + strings.Join(s, "x") + "x" + elem + ">"
	}
	var args, body []string
	e := func(format string, a ...any) { body = append(body, "    "+fmt.Sprintf(format, a...)) }
	prev := "x"
	args = append(args, "%x: "+ty(tokens, hidden))
	for l := range layers {
		p := fmt.Sprintf("l%d_", l)
		for _, a := range []struct {
			name string
			dims []int
		}{{"ln1_s", []int{hidden}}, {"ln1_b", []int{hidden}}, {"wq", []int{hidden, hidden}}, {"bq", []int{hidden}},
			{"wk", []int{hidden, hidden}}, {"bk", []int{hidden}}, {"wv", []int{hidden, hidden}}, {"bv", []int{hidden}},
			{"wo", []int{hidden, hidden}}, {"bo", []int{hidden}}, {"ln2_s", []int{hidden}}, {"ln2_b", []int{hidden}},
			{"w1", []int{hidden, mlp}}, {"b1", []int{mlp}}, {"w2", []int{mlp, hidden}}, {"b2", []int{hidden}}} {
			args = append(args, "%"+p+a.name+": "+ty(a.dims...))
		}
		bias := func(v, b string, n, m int) string {
			e("%%%s%s_bb = tensor.broadcast %%%s%s dimensions = [1] : %s -> %s", p, v, p, b, ty(m), ty(n, m))
			e("%%%s%s_b = tensor.add %%%s%s, %%%s%s_bb : %s", p, v, p, v, p, v, ty(n, m))
			return v + "_b"
		}
		e("%%%sln1 = tensor.layer_norm %%%s, %%%sln1_s, %%%sln1_b epsilon = 9.99999997E-7 : %s, %s, %s -> %s", p, prev, p, p,
			ty(tokens, hidden), ty(hidden), ty(hidden), ty(tokens, hidden))
		for _, q := range []struct {
			v, perm string
			dims    []int
		}{{"q", "[1, 0, 2]", []int{heads, tokens, d}}, {"k", "[1, 2, 0]", []int{heads, d, tokens}}, {"v", "[1, 0, 2]", []int{heads, tokens, d}}} {
			e("%%%s%s = tensor.matmul %%%sln1, %%%sw%s : %s, %s -> %s", p, q.v, p, p, q.v, ty(tokens, hidden), ty(hidden, hidden), ty(tokens, hidden))
			b := bias(q.v, "b"+q.v, tokens, hidden)
			e("%%%s%s_split = tensor.reshape %%%s%s : %s -> %s", p, q.v, p, b, ty(tokens, hidden), ty(tokens, heads, d))
			e("%%%s%s_heads = tensor.transpose %%%s%s_split permutation = %s : %s -> %s", p, q.v, p, q.v, q.perm, ty(tokens, heads, d), ty(q.dims...))
		}
		e("%%%sscores = tensor.batch_matmul %%%sq_heads, %%%sk_heads : %s, %s -> %s", p, p, p, ty(heads, tokens, d), ty(heads, d, tokens), ty(heads, tokens, tokens))
		e("%%%sscale = tensor.constant dense<%e> : %s", p, 1/math.Sqrt(float64(d)), ty(heads, tokens, tokens))
		e("%%%sscaled = tensor.mul %%%sscores, %%%sscale : %s", p, p, p, ty(heads, tokens, tokens))
		e("%%%sprobs = tensor.softmax %%%sscaled axis = 2 : %s", p, p, ty(heads, tokens, tokens))
		e("%%%scontext = tensor.batch_matmul %%%sprobs, %%%sv_heads : %s, %s -> %s", p, p, p, ty(heads, tokens, tokens), ty(heads, tokens, d), ty(heads, tokens, d))
		e("%%%scontext_split = tensor.transpose %%%scontext permutation = [1, 0, 2] : %s -> %s", p, p, ty(heads, tokens, d), ty(tokens, heads, d))
		e("%%%smerged = tensor.reshape %%%scontext_split : %s -> %s", p, p, ty(tokens, heads, d), ty(tokens, hidden))
		e("%%%sattn = tensor.matmul %%%smerged, %%%swo : %s, %s -> %s", p, p, p, ty(tokens, hidden), ty(hidden, hidden), ty(tokens, hidden))
		a := bias("attn", "bo", tokens, hidden)
		e("%%%sres1 = tensor.add %%%s, %%%s%s : %s", p, prev, p, a, ty(tokens, hidden))
		e("%%%sln2 = tensor.layer_norm %%%sres1, %%%sln2_s, %%%sln2_b epsilon = 9.99999997E-7 : %s, %s, %s -> %s", p, p, p, p,
			ty(tokens, hidden), ty(hidden), ty(hidden), ty(tokens, hidden))
		e("%%%sfc1 = tensor.matmul %%%sln2, %%%sw1 : %s, %s -> %s", p, p, p, ty(tokens, hidden), ty(hidden, mlp), ty(tokens, mlp))
		f := bias("fc1", "b1", tokens, mlp)
		e("%%%sact = tensor.gelu %%%s%s {approximate} : %s", p, p, f, ty(tokens, mlp))
		e("%%%sfc2 = tensor.matmul %%%sact, %%%sw2 : %s, %s -> %s", p, p, p, ty(tokens, mlp), ty(mlp, hidden), ty(tokens, hidden))
		g := bias("fc2", "b2", tokens, hidden)
		e("%%%sout = tensor.add %%%sres1, %%%s%s : %s", p, p, p, g, ty(tokens, hidden))
		prev = p + "out"
	}
	e("return %%%s : %s", prev, ty(tokens, hidden))
	return fmt.Sprintf("module attributes {ipu.target = %q} {\n  func.func @f(%s) -> %s {\n%s\n  }\n}\n",
		tgt, strings.Join(args, ", "), ty(tokens, hidden), strings.Join(body, "\n"))
}

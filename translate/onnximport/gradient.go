package onnximport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// trainingDomain is the domain of ONNX's Gradient operator.
const trainingDomain = "ai.onnx.preview.training"

// gradientRule differentiates one operator for Gradient: given the node,
// its inputs and output as the forward graph computed them, and the
// gradient g of the output, it returns the gradient of each input (of
// the output's shape where the operator broadcasts: gradient sums it to
// the input's shape), built with calc, computing only those need says
// are wanted (nil for the others). doc is the rule, for docs/onnx.md
// (GradientRules).
type gradientRule struct {
	doc  string
	grad func(c *calc, n *onnxpb.NodeProto, in []*value, out, g *value, need []bool) []*value
}

// wanted is the gradients need asks for, one function each.
func wanted(need []bool, fs ...func() *value) []*value {
	out := make([]*value, len(fs))
	for i, f := range fs {
		if i < len(need) && need[i] {
			out[i] = f()
		}
	}
	return out
}

// gradientRules are the operators Gradient differentiates through.
var gradientRules = map[string]gradientRule{
	"Add": {"∂a = g, ∂b = g", func(_ *calc, _ *onnxpb.NodeProto, _ []*value, _, g *value, _ []bool) []*value {
		return []*value{g, g}
	}},
	"Sub": {"∂a = g, ∂b = −g", func(c *calc, _ *onnxpb.NodeProto, _ []*value, _, g *value, need []bool) []*value {
		return wanted(need, func() *value { return g }, func() *value { return c.neg(g) })
	}},
	"Mul": {"∂a = g·b, ∂b = g·a", func(c *calc, _ *onnxpb.NodeProto, in []*value, _, g *value, need []bool) []*value {
		return wanted(need, func() *value { return c.mul(g, in[1]) }, func() *value { return c.mul(g, in[0]) })
	}},
	"Div": {"∂a = g / b, ∂b = −g·y / b", func(c *calc, _ *onnxpb.NodeProto, in []*value, out, g *value, need []bool) []*value {
		return wanted(need, func() *value { return c.div(g, in[1]) }, func() *value { return c.neg(c.div(c.mul(g, out), in[1])) })
	}},
	"Neg": {"∂x = −g", func(c *calc, _ *onnxpb.NodeProto, _ []*value, _, g *value, _ []bool) []*value {
		return []*value{c.neg(g)}
	}},
	"Identity": {"∂x = g", func(_ *calc, _ *onnxpb.NodeProto, _ []*value, _, g *value, _ []bool) []*value {
		return []*value{g}
	}},
	"Exp": {"∂x = g·y", func(c *calc, _ *onnxpb.NodeProto, _ []*value, y, g *value, _ []bool) []*value {
		return []*value{c.mul(g, y)}
	}},
	"Log": {"∂x = g / x", func(c *calc, _ *onnxpb.NodeProto, in []*value, _, g *value, _ []bool) []*value {
		return []*value{c.div(g, in[0])}
	}},
	"Tanh": {"∂x = g·(1 − y²)", func(c *calc, _ *onnxpb.NodeProto, _ []*value, y, g *value, _ []bool) []*value {
		return []*value{c.mul(g, c.sub(c.k(y, 1), c.mul(y, y)))}
	}},
	"Sigmoid": {"∂x = g·y·(1 − y)", func(c *calc, _ *onnxpb.NodeProto, _ []*value, y, g *value, _ []bool) []*value {
		return []*value{c.mul(g, c.mul(y, c.sub(c.k(y, 1), y)))}
	}},
	"Relu": {"∂x = g where x > 0, else 0", func(c *calc, _ *onnxpb.NodeProto, in []*value, _, g *value, _ []bool) []*value {
		return []*value{c.sel(c.cmp(in[0], c.k(in[0], 0), "gt"), g, c.k(g, 0))}
	}},
	"ReduceSum": {"∂x = g broadcast over the reduced axes", func(c *calc, n *onnxpb.NodeProto, in []*value, _, g *value, _ []bool) []*value {
		return []*value{c.spread(n, in[0], g, false)}
	}},
	"ReduceMean": {"∂x = g / count, broadcast over the reduced axes", func(c *calc, n *onnxpb.NodeProto, in []*value, _, g *value, _ []bool) []*value {
		return []*value{c.spread(n, in[0], g, true)}
	}},
	"MatMul": {"∂a = g·bᵀ, ∂b = aᵀ·g (rank 2)", func(c *calc, _ *onnxpb.NodeProto, in []*value, _, g *value, need []bool) []*value {
		if len(in[0].shape) != 2 || len(in[1].shape) != 2 {
			if c.err == nil {
				c.err = c.im.fail("Gradient through a MatMul of shapes %v and %v: the importer differentiates rank-2 MatMul only", in[0].shape, in[1].shape)
			}
			return nil
		}
		return wanted(need,
			func() *value { return c.matmul(g, c.transpose(in[1], []int64{1, 0})) },
			func() *value { return c.matmul(c.transpose(in[0], []int64{1, 0}), g) })
	}},
}

// GradientRules is the table of the operators Gradient differentiates
// through, for docs/onnx.md.
func GradientRules() string {
	var b strings.Builder
	b.WriteString("| operator | gradient (g is the output's, y the output) |\n| --- | --- |\n")
	for _, name := range slices.Sorted(maps.Keys(gradientRules)) {
		fmt.Fprintf(&b, "| %s | %s |\n", name, gradientRules[name].doc)
	}
	return b.String()
}

// gradient imports ONNX's Gradient (ai.onnx.preview.training, opset 1):
// the gradient of the one-element tensor y with respect to each of xs,
// by reverse-mode differentiation of the nodes before it that lead from
// xs to y, emitted as the tensor-dialect ops that compute it (folded
// where their operands are known). zs, the other inputs, only say which
// values the gradient may read: nothing flows into them.
func (im *importer) gradient(n *onnxpb.NodeProto) error {
	im.attrErr = nil
	var xs []string
	if a := im.typedAttr(n, "xs", onnxpb.AttributeProto_STRINGS); a != nil {
		for _, s := range a.GetStrings() {
			xs = append(xs, string(s))
		}
	}
	var y string
	if a := im.typedAttr(n, "y", onnxpb.AttributeProto_STRING); a != nil {
		y = string(a.GetS())
	}
	if im.attrErr != nil {
		return im.attrErr
	}
	if len(xs) == 0 || y == "" {
		return im.fail("Gradient needs its attributes xs and y")
	}
	if len(n.GetOutput()) != len(xs) {
		return im.fail("%d outputs for %d xs (one gradient each)", len(n.GetOutput()), len(xs))
	}
	for i, x := range xs {
		if i >= len(n.GetInput()) || n.GetInput()[i] != x {
			return im.fail("input %d must be xs[%d] '%s'", i, i, x)
		}
	}
	yv, ok := im.values[y]
	if !ok {
		return im.fail("y '%s' is computed by no earlier node", y)
	}
	if yv.isSeq || !yv.elem.IsFloat() {
		return im.fail("y '%s' is not a floating-point tensor; Gradient differentiates floating-point tensors", y)
	}
	if rowmajor.Elements(yv.shape) != 1 {
		return im.fail("y '%s' has shape %v; the importer takes the gradient of a one-element y (a scalar loss)", y, yv.shape)
	}
	// The nodes on a path from xs to y, in graph order.
	nodes := im.graph.GetNode()[:im.index]
	depends := map[string]bool{}
	for _, x := range xs {
		depends[x] = true
	}
	onPath := make([]bool, len(nodes))
	for i, fn := range nodes {
		for _, in := range fn.GetInput() {
			if depends[in] {
				onPath[i] = true
			}
		}
		if onPath[i] {
			for _, out := range fn.GetOutput() {
				depends[out] = true
			}
		}
	}
	// The seed, ∂y/∂y = 1, of y's shape.
	grads := map[string]*value{y: {elem: yv.elem, shape: slices.Clone(yv.shape), konst: &konst{vals: []float64{1}}}}
	self := im.node
	defer func() { im.node = self }()
	for i := len(nodes) - 1; i >= 0; i-- {
		fn := nodes[i]
		if !onPath[i] || len(fn.GetOutput()) == 0 || grads[fn.GetOutput()[0]] == nil {
			continue
		}
		rule, ok := gradientRules[fn.GetOpType()]
		if !ok || fn.GetDomain() != "" && fn.GetDomain() != "ai.onnx" || len(fn.GetOutput()) != 1 {
			return im.fail("the path from xs to y runs through node '%s' (%s), which Gradient does not differentiate (it takes %s)",
				nodeName(fn, i), fn.GetOpType(), strings.Join(slices.Sorted(maps.Keys(gradientRules)), ", "))
		}
		if im.opset < 7 && im.attrInt(fn, "broadcast", 0) != 0 {
			return im.fail("the path from xs to y runs through node '%s' (%s), which broadcasts as opsets before 7 do; Gradient takes numpy's broadcasting", nodeName(fn, i), fn.GetOpType())
		}
		in := make([]*value, len(fn.GetInput()))
		need := make([]bool, len(in))
		for j, name := range fn.GetInput() {
			in[j], need[j] = im.values[name], depends[name]
		}
		out := im.values[fn.GetOutput()[0]]
		// The ops emitted for the gradient are located at the Gradient
		// node, as everything it computes is.
		im.node = self
		c := &calc{im: im}
		gin := rule.grad(c, fn, in, out, grads[fn.GetOutput()[0]], need)
		if c.err != nil {
			return c.err
		}
		for j, g := range gin {
			if j >= len(in) || g == nil || !need[j] || !in[j].elem.IsFloat() {
				continue
			}
			g, err := im.sumTo(g, in[j].shape)
			if err != nil {
				return err
			}
			if prev := grads[fn.GetInput()[j]]; prev != nil {
				if g, err = im.binaryValues(prev, g, "add"); err != nil {
					return err
				}
			}
			grads[fn.GetInput()[j]] = g
		}
	}
	for i, x := range xs {
		xv := im.values[x]
		g := grads[x]
		if g == nil {
			// y does not depend on x.
			g = &value{elem: xv.elem, shape: slices.Clone(xv.shape), konst: &konst{vals: make([]float64, rowmajor.Elements(xv.shape))}}
		}
		if g, err := im.sumTo(g, xv.shape); err != nil {
			return err
		} else if name := n.GetOutput()[i]; name != "" {
			im.values[name] = g
		}
	}
	return nil
}

// spread is the gradient of x through the reduction n: g, at the reduced
// shape, broadcast back over the reduced axes (divided by their count for
// a mean).
func (c *calc) spread(n *onnxpb.NodeProto, x, g *value, mean bool) *value {
	if c.err != nil {
		return nil
	}
	axes, count, noop, err := c.im.reduceAxes(n, x)
	if err != nil || noop {
		c.err = err
		return g
	}
	if mean {
		g = c.div(g, c.k(g, float64(count)))
	}
	kept := slices.Clone(x.shape)
	for _, a := range axes {
		kept[a] = 1
	}
	gk := c.reshape(g, kept)
	if c.err != nil {
		return nil
	}
	ssa, err := c.im.broadcastTo(gk, x.shape)
	if err != nil {
		c.err = err
		return nil
	}
	return &value{ssa: ssa, elem: x.elem, shape: slices.Clone(x.shape)}
}

// sumTo sums g, of a broadcast shape, to shape: over its leading axes,
// and over the axes where shape has 1 and g more.
func (im *importer) sumTo(g *value, shape []int64) (*value, error) {
	if slices.Equal(g.shape, shape) {
		return g, nil
	}
	lead := len(g.shape) - len(shape)
	if lead < 0 {
		return nil, im.fail("a gradient of shape %v for a value of shape %v", g.shape, shape)
	}
	var axes []int64
	for i, d := range g.shape {
		if i < lead || shape[i-lead] == 1 && d != 1 {
			axes = append(axes, int64(i))
		} else if d != shape[i-lead] {
			return nil, im.fail("a gradient of shape %v for a value of shape %v", g.shape, shape)
		}
	}
	r := g
	if len(axes) > 0 {
		var err error
		if r, err = im.reduceValue(g, axes, "sum", true); err != nil {
			return nil, err
		}
	}
	return im.reshapeValue(r, shape)
}

package onnximport

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// trainingOperators are the operators of ai.onnx.preview.training (opset
// 1) the importer takes: Gradient (gradient.go) and the optimizers, whose
// updates are elementwise arithmetic on the tensors they are given.
var trainingOperators = map[string]func(im *importer, n *onnxpb.NodeProto) error{
	"Gradient": (*importer).gradient,
	"Adagrad":  func(im *importer, n *onnxpb.NodeProto) error { return im.optimizer(n, 3, adagradStep) },
	"Adam":     func(im *importer, n *onnxpb.NodeProto) error { return im.optimizer(n, 4, adamStep) },
	"Momentum": func(im *importer, n *onnxpb.NodeProto) error { return im.optimizer(n, 3, momentumStep) },
}

// convertTraining imports a node of the training domain.
func (im *importer) convertTraining(n *onnxpb.NodeProto) error {
	f, ok := trainingOperators[n.GetOpType()]
	if !ok {
		return im.fail("operator '%s' of domain '%s' is not supported (the importer takes %s)", n.GetOpType(), trainingDomain,
			strings.Join(slices.Sorted(maps.Keys(trainingOperators)), ", "))
	}
	for i, out := range n.GetOutput() {
		if _, dup := im.values[out]; dup && out != "" {
			return im.fail("output %d '%s' is defined twice", i, out)
		}
	}
	im.attrErr = nil
	err := f(im, n)
	if im.attrErr != nil {
		return im.attrErr
	}
	return err
}

// positive is where(t > 0, x, y), t an integer scalar.
func (c *calc) positive(t, x, y *value) *value { return c.sel(c.cmp(t, c.k(t, 0), "gt"), x, y) }

// step is one optimizer's update of one tensor: r the learning rate and
// t the update count (as floats of the tensor's type), tt the count as
// given, ins the tensor's group (X, G and the optimizer's state), and the
// result the updated X then the updated state.
type step func(a *calc, im *importer, n *onnxpb.NodeProto, r, t, tt *value, ins []*value) []*value

// optimizer imports an optimizer of groups tensors per updated tensor
// (X, G, then the state): inputs R, T, then each group's tensors, all X
// first; outputs all new X, then each piece of new state.
func (im *importer) optimizer(n *onnxpb.NodeProto, groups int, f step) error {
	ins := n.GetInput()
	if len(ins) < 2+groups || (len(ins)-2)%groups != 0 {
		return im.fail("%d inputs: %s takes R, T and %d tensors per updated tensor", len(ins), n.GetOpType(), groups)
	}
	k := (len(ins) - 2) / groups
	if len(n.GetOutput()) != k*(groups-1) {
		return im.fail("%d outputs for %d updated tensors (%s gives %d per tensor)", len(n.GetOutput()), k, n.GetOpType(), groups-1)
	}
	vals := make([]*value, len(ins))
	for i := range ins {
		v, err := im.need(n, i)
		if err != nil {
			return err
		}
		if v.isSeq {
			return im.fail("input %d '%s' is a sequence", i, ins[i])
		}
		vals[i] = v
	}
	r, t := vals[0], vals[1]
	if len(r.shape) != 0 || !r.elem.IsFloat() || len(t.shape) != 0 || t.elem.IsFloat() {
		return im.fail("R must be a float scalar and T an integer scalar (they are %s and %s)", tensorType(r.elem, r.shape), tensorType(t.elem, t.shape))
	}
	for j := range k {
		group := make([]*value, groups)
		for g := range groups {
			group[g] = vals[2+g*k+j]
			if !group[g].elem.IsFloat() || group[g].elem != group[0].elem || !slices.Equal(group[g].shape, group[0].shape) {
				return im.fail("input %d '%s' is %s, unlike X '%s' (%s)", 2+g*k+j, ins[2+g*k+j],
					tensorType(group[g].elem, group[g].shape), ins[2+j], tensorType(group[0].elem, group[0].shape))
			}
		}
		et := group[0].elem
		a := &calc{im: im}
		rf, err := im.castValue(r, et)
		if err != nil {
			return err
		}
		tf, err := im.castValue(t, et)
		if err != nil {
			return err
		}
		outs := f(a, im, n, rf, tf, t, group)
		if a.err != nil {
			return a.err
		}
		if im.attrErr != nil {
			return im.attrErr
		}
		for o, v := range outs {
			if name := n.GetOutput()[o*k+j]; name != "" {
				im.values[name] = v
			}
		}
	}
	return nil
}

// adagradStep: r' = R / (1 + T·decay_factor), g' = norm_coefficient·X + G,
// H' = H + g'², X' = X − r'·g' / (√H' + epsilon).
func adagradStep(a *calc, im *importer, n *onnxpb.NodeProto, r, t, _ *value, in []*value) []*value {
	x, g, h := in[0], in[1], in[2]
	c := func(v float64) *value { return splat(x.elem, nil, v) }
	rate := a.div(r, a.add(c(1), a.mul(t, c(im.attrFloat(n, "decay_factor", 0)))))
	gr := a.add(a.mul(c(im.attrFloat(n, "norm_coefficient", 0)), x), g)
	hn := a.add(h, a.mul(gr, gr))
	adaptive := a.add(a.sqrt(hn), c(im.attrFloat(n, "epsilon", 0)))
	return []*value{a.sub(x, a.div(a.mul(rate, gr), adaptive)), hn}
}

// adamStep: g' = norm_coefficient·X + G, V' = αV + (1 − α)g',
// H' = βH + (1 − β)g'², r' = R·√(1 − β^T) / (1 − α^T) when T > 0 (R
// otherwise), X' = (1 − norm_coefficient_post)(X − r'·V' / (√H' + ε)).
func adamStep(a *calc, im *importer, n *onnxpb.NodeProto, r, t, tt *value, in []*value) []*value {
	x, g, v, h := in[0], in[1], in[2], in[3]
	c := func(v float64) *value { return splat(x.elem, nil, v) }
	alpha, beta := im.attrFloat(n, "alpha", 0.9), im.attrFloat(n, "beta", 0.999)
	gr := a.add(a.mul(c(im.attrFloat(n, "norm_coefficient", 0)), x), g)
	vn := a.add(a.mul(c(alpha), v), a.mul(c(1-alpha), gr))
	hn := a.add(a.mul(c(beta), h), a.mul(c(1-beta), a.mul(gr, gr)))
	hs := a.add(a.sqrt(hn), c(im.attrFloat(n, "epsilon", 0)))
	// α^T as e^(T·ln α), computed for T = 0 too, where the select keeps R.
	pow := func(base float64) *value { return a.un(a.mul(t, c(math.Log(base))), "exp") }
	adjusted := a.div(a.mul(r, a.sqrt(a.sub(c(1), pow(beta)))), a.sub(c(1), pow(alpha)))
	rate := a.positive(tt, adjusted, r)
	xn := a.sub(x, a.mul(rate, a.div(vn, hs)))
	return []*value{a.mul(c(1-im.attrFloat(n, "norm_coefficient_post", 0)), xn), vn, hn}
}

// momentumStep: g' = norm_coefficient·X + G, β' = β when T > 0 (1
// otherwise), V' = αV + β'g', and X' = X − R·V' (mode standard) or
// X − R(g' + αV') (mode nesterov). Every attribute is required.
func momentumStep(a *calc, im *importer, n *onnxpb.NodeProto, r, _, tt *value, in []*value) []*value {
	x, g, v := in[0], in[1], in[2]
	for _, name := range []string{"alpha", "beta", "mode", "norm_coefficient"} {
		if attr(n, name) == nil && a.err == nil {
			a.err = im.fail("Momentum needs its attribute '%s'", name)
		}
	}
	mode := "standard"
	if m := im.typedAttr(n, "mode", onnxpb.AttributeProto_STRING); m != nil {
		mode = string(m.GetS())
	}
	if mode != "standard" && mode != "nesterov" && a.err == nil {
		a.err = im.fail("mode = '%s' (standard or nesterov)", mode)
	}
	c := func(v float64) *value { return splat(x.elem, nil, v) }
	alpha := im.attrFloat(n, "alpha", 0)
	gr := a.add(a.mul(c(im.attrFloat(n, "norm_coefficient", 0)), x), g)
	beta := a.positive(tt, c(im.attrFloat(n, "beta", 0)), c(1))
	vn := a.add(a.mul(c(alpha), v), a.mul(beta, gr))
	if mode == "nesterov" {
		return []*value{a.sub(x, a.mul(r, a.add(gr, a.mul(c(alpha), vn)))), vn}
	}
	return []*value{a.sub(x, a.mul(r, vn)), vn}
}

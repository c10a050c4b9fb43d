package onnximport

import (
	"maps"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// The recurrent layers (RNN, GRU, LSTM) are unrolled at import: their
// sequence length is static, so each step is the matmuls and elementwise
// ops of its equations, and the input's projection X·Wᵀ is one matmul for
// every step at once. Gates are laid out as the spec orders them in W, R
// and B (RNN: i; GRU: z, r, h; LSTM: i, o, f, c).

// recurrence is one recurrent operator: its gate count, its default
// activations, and step, which computes one time step of one direction
// from the input's projection xw (X_t·Wᵀ + Wb, [batch, gates·hidden]),
// the state, and the direction's R (transposed), Rb and peepholes.
type recurrence struct {
	gates       int
	activations []string
	// step returns the new hidden state and, for LSTM, the new cell state.
	step func(c *calc, r *rnnLayer, d int, xw, h, cell *value) (hNew, cNew *value)
}

var recurrences = map[string]recurrence{
	"RNN": {gates: 1, activations: []string{"Tanh"}, step: func(c *calc, r *rnnLayer, d int, xw, h, _ *value) (*value, *value) {
		return r.act(c, d, 0, c.add(xw, r.recur(c, d, h, 0, 1))), nil
	}},
	"GRU": {gates: 3, activations: []string{"Sigmoid", "Tanh"}, step: func(c *calc, r *rnnLayer, d int, xw, h, _ *value) (*value, *value) {
		hid := r.hidden
		gate := func(v *value, k int) *value { return c.slice(v, []int64{0, int64(k) * hid}, []int64{r.batch, hid}) }
		rh := r.recur(c, d, h, 0, 2) // z and r from H·Rᵀ
		z := r.act(c, d, 0, c.add(gate(xw, 0), gate(rh, 0)))
		rt := r.act(c, d, 0, c.add(gate(xw, 1), gate(rh, 1)))
		var cand *value
		if r.linearBeforeReset {
			cand = c.mul(rt, r.recur(c, d, h, 2, 1))
		} else {
			cand = r.recur(c, d, c.mul(rt, h), 2, 1)
		}
		ht := r.act(c, d, 1, c.add(gate(xw, 2), cand))
		// H' = (1 − z)·h + z·H
		return c.add(c.mul(c.sub(c.k(z, 1), z), ht), c.mul(z, h)), nil
	}},
	"LSTM": {gates: 4, activations: []string{"Sigmoid", "Tanh", "Tanh"}, step: func(c *calc, r *rnnLayer, d int, xw, h, cell *value) (*value, *value) {
		hid := r.hidden
		pre := c.add(xw, r.recur(c, d, h, 0, 4))
		gate := func(k int) *value { return c.slice(pre, []int64{0, int64(k) * hid}, []int64{r.batch, hid}) }
		peep := func(k int, s *value, v *value) *value {
			if r.peepholes == nil {
				return v
			}
			return c.add(v, c.mul(c.slice(r.peepholes[d], []int64{int64(k) * hid}, []int64{hid}), s))
		}
		i := r.act(c, d, 0, peep(0, cell, gate(0)))
		var f *value
		if r.inputForget {
			f = c.sub(c.k(i, 1), i)
		} else {
			f = r.act(c, d, 0, peep(2, cell, gate(2)))
		}
		g := r.act(c, d, 1, gate(3))
		cNew := c.add(c.mul(f, cell), c.mul(i, g))
		o := r.act(c, d, 0, peep(1, cNew, gate(1)))
		return c.mul(o, r.act(c, d, 2, cNew)), cNew
	}},
}

// rnnActivations are the activations the recurrent layers take: takes
// says which of α and β each reads from activation_alpha and
// activation_beta (which hold values only for the activations that read
// them, in order), and alpha and beta are the defaults.
var rnnActivations = map[string]struct {
	takes       string
	alpha, beta float64
	f           func(c *calc, x *value, alpha, beta float64) *value
}{
	"Sigmoid":     {"", 0, 0, func(c *calc, x *value, _, _ float64) *value { return c.sigmoid(x) }},
	"Tanh":        {"", 0, 0, func(c *calc, x *value, _, _ float64) *value { return c.un(x, "tanh") }},
	"Relu":        {"", 0, 0, func(c *calc, x *value, _, _ float64) *value { return c.relu(x) }},
	"HardSigmoid": {"ab", 0.2, 0.5, func(c *calc, x *value, a, b float64) *value { return c.hardSigmoid(x, a, b) }},
	"Affine":      {"ab", 1, 0, func(c *calc, x *value, a, b float64) *value { return c.add(c.mul(x, c.k(x, a)), c.k(x, b)) }},
	"ScaledTanh": {"ab", 1, 1, func(c *calc, x *value, a, b float64) *value {
		return c.mul(c.k(x, a), c.un(c.mul(x, c.k(x, b)), "tanh"))
	}},
	"LeakyRelu": {"a", 0.01, 0, func(c *calc, x *value, a, _ float64) *value {
		if a <= 1 {
			return c.max(x, c.mul(x, c.k(x, a)))
		}
		return c.min(x, c.mul(x, c.k(x, a)))
	}},
	"ThresholdedRelu": {"a", 1, 0, func(c *calc, x *value, a, _ float64) *value {
		return c.sel(c.cmp(x, c.k(x, a), "gt"), x, c.k(x, 0))
	}},
	"Elu": {"a", 1, 0, func(c *calc, x *value, a, _ float64) *value {
		return c.add(c.relu(x), c.mul(c.k(x, a), c.sub(c.un(c.negPart(x), "exp"), c.k(x, 1))))
	}},
	"Softsign": {"", 0, 0, func(c *calc, x *value, _, _ float64) *value { return c.div(x, c.add(c.k(x, 1), c.abs(x))) }},
	"Softplus": {"", 0, 0, func(c *calc, x *value, _, _ float64) *value { return c.softplus(x) }},
}

// rnnLayer is one recurrent node being unrolled.
type rnnLayer struct {
	batch, hidden     int64
	dirs              int
	rt                []*value // per direction, R transposed: [hidden, gates·hidden]
	rb                []*value // per direction, R's bias (nil for none)
	peepholes         []*value // LSTM, per direction (nil for none)
	acts              [][]string
	alphas, betas     [][]float64
	clip              float64
	linearBeforeReset bool
	inputForget       bool
}

// recur is H·R_kᵀ + Rb_k for the n gates from k.
func (r *rnnLayer) recur(c *calc, d int, h *value, k, n int) *value {
	hid := r.hidden
	rt := r.rt[d]
	if k != 0 || int64(n)*hid != rt.shape[1] {
		rt = c.slice(rt, []int64{0, int64(k) * hid}, []int64{hid, int64(n) * hid})
	}
	v := c.matmul(h, rt)
	if r.rb[d] != nil {
		v = c.add(v, c.slice(r.rb[d], []int64{int64(k) * hid}, []int64{int64(n) * hid}))
	}
	return v
}

// act applies direction d's activation j, clipping its input first when
// the node says to.
func (r *rnnLayer) act(c *calc, d, j int, x *value) *value {
	if r.clip > 0 {
		x = c.max(c.k(x, -r.clip), c.min(c.k(x, r.clip), x))
	}
	name := r.acts[d][j]
	return rnnActivations[name].f(c, x, r.alphas[d][j], r.betas[d][j])
}

// rnn imports RNN, GRU and LSTM.
func (im *importer) rnn(n *onnxpb.NodeProto, in []*value) error {
	kind := recurrences[n.GetOpType()]
	x, w, rw := in[0], in[1], in[2]
	opt := func(i int) *value {
		if i < len(in) {
			return in[i]
		}
		return nil
	}
	b, seqLens, h0 := opt(3), opt(4), opt(5)
	if len(x.shape) != 3 || len(w.shape) != 3 || len(rw.shape) != 3 || !x.elem.IsFloat() {
		return im.fail("X, W and R must be float tensors of rank 3 (they are %s, %s, %s)", tensorType(x.elem, x.shape), tensorType(w.elem, w.shape), tensorType(rw.elem, rw.shape))
	}
	layout := im.attrInt(n, "layout", 0)
	if layout != 0 && layout != 1 {
		return im.fail("layout = %d (0 or 1)", layout)
	}
	c := &calc{im: im}
	if layout == 1 {
		// [batch, seq, input] to the spec's [seq, batch, input].
		x = c.transpose(x, []int64{1, 0, 2})
	}
	if c.err != nil {
		return c.err
	}
	seq, batch, inSize := x.shape[0], x.shape[1], x.shape[2]
	direction := "forward"
	if a := im.typedAttr(n, "direction", onnxpb.AttributeProto_STRING); a != nil {
		direction = string(a.GetS())
	}
	dirs := map[string]int{"forward": 1, "reverse": 1, "bidirectional": 2}[direction]
	if dirs == 0 {
		return im.fail("direction = '%s' (forward, reverse or bidirectional)", direction)
	}
	hidden := im.attrInt(n, "hidden_size", 0)
	if hidden <= 0 {
		hidden = w.shape[1] / int64(kind.gates)
	}
	g := int64(kind.gates)
	if w.shape[0] != int64(dirs) || w.shape[1] != g*hidden || w.shape[2] != inSize ||
		rw.shape[0] != int64(dirs) || rw.shape[1] != g*hidden || rw.shape[2] != hidden {
		return im.fail("W %v and R %v for %d direction(s), %d gates of hidden size %d and input size %d", w.shape, rw.shape, dirs, g, hidden, inSize)
	}
	if b != nil && !slices.Equal(b.shape, []int64{int64(dirs), 2 * g * hidden}) {
		return im.fail("B has shape %v; it must be [%d, %d]", b.shape, dirs, 2*g*hidden)
	}
	if seqLens != nil {
		if seqLens.konst == nil {
			return im.needsValue(seqLens, "input 4 (sequence_lens)")
		}
		for _, l := range seqLens.konst.v() {
			if int64(l) != seq {
				return im.fail("sequence_lens %v: the importer takes sequences of the full length %d", seqLens.konst.v(), seq)
			}
		}
	}
	layer := &rnnLayer{batch: batch, hidden: hidden, dirs: dirs, clip: im.attrFloat(n, "clip", 0),
		linearBeforeReset: im.attrInt(n, "linear_before_reset", 0) != 0, inputForget: im.attrInt(n, "input_forget", 0) != 0}
	if err := layer.readActivations(im, n, kind); err != nil {
		return err
	}
	var c0, peep *value
	if n.GetOpType() == "LSTM" {
		c0, peep = opt(6), opt(7)
	}
	state := func(v *value, d int) *value {
		if v == nil {
			return splat(x.elem, []int64{batch, hidden}, 0)
		}
		if layout == 1 {
			v = c.transpose(v, []int64{1, 0, 2})
		}
		return c.reshape(c.slice(v, []int64{int64(d), 0, 0}, []int64{1, batch, hidden}), []int64{batch, hidden})
	}
	for _, s := range []struct {
		v    *value
		name string
	}{{h0, "initial_h"}, {c0, "initial_c"}} {
		want := []int64{int64(dirs), batch, hidden}
		if layout == 1 {
			want = []int64{batch, int64(dirs), hidden}
		}
		if s.v != nil && !slices.Equal(s.v.shape, want) {
			return im.fail("%s has shape %v; it must be %v", s.name, s.v.shape, want)
		}
	}
	if peep != nil && !slices.Equal(peep.shape, []int64{int64(dirs), 3 * hidden}) {
		return im.fail("P has shape %v; it must be [%d, %d]", peep.shape, dirs, 3*hidden)
	}
	flat := c.reshape(x, []int64{seq * batch, inSize})
	ys := make([][]*value, dirs) // per direction, per step, [batch, hidden]
	lastH, lastC := make([]*value, dirs), make([]*value, dirs)
	for d := range dirs {
		wd := c.reshape(c.slice(w, []int64{int64(d), 0, 0}, []int64{1, g * hidden, inSize}), []int64{g * hidden, inSize})
		rd := c.reshape(c.slice(rw, []int64{int64(d), 0, 0}, []int64{1, g * hidden, hidden}), []int64{g * hidden, hidden})
		layer.rt = append(layer.rt, c.transpose(rd, []int64{1, 0}))
		// X·Wᵀ + Wb for every step: [seq·batch, gates·hidden].
		xw := c.matmul(flat, c.transpose(wd, []int64{1, 0}))
		var rb *value
		if b != nil {
			bd := c.reshape(c.slice(b, []int64{int64(d), 0}, []int64{1, 2 * g * hidden}), []int64{2 * g * hidden})
			xw = c.add(xw, c.slice(bd, []int64{0}, []int64{g * hidden}))
			rb = c.slice(bd, []int64{g * hidden}, []int64{g * hidden})
		}
		layer.rb = append(layer.rb, rb)
		if peep != nil {
			layer.peepholes = append(layer.peepholes, c.reshape(c.slice(peep, []int64{int64(d), 0}, []int64{1, 3 * hidden}), []int64{3 * hidden}))
		}
		h, cell := state(h0, d), state(c0, d)
		ys[d] = make([]*value, seq)
		reverse := direction == "reverse" || d == 1
		for s := range seq {
			t := s
			if reverse {
				t = seq - 1 - s
			}
			xt := c.slice(xw, []int64{t * batch, 0}, []int64{batch, g * hidden})
			h, cell = kind.step(c, layer, d, xt, h, cell)
			if c.err != nil {
				return c.err
			}
			ys[d][t] = h
		}
		lastH[d], lastC[d] = h, cell
	}
	if c.err != nil {
		return c.err
	}
	outs := n.GetOutput()
	wanted := func(i int) bool { return i < len(outs) && outs[i] != "" }
	// Y: [seq, dirs, batch, hidden] (layout 0) or [batch, seq, dirs, hidden].
	if wanted(0) {
		var steps []*value
		for t := range seq {
			var per []*value
			for d := range dirs {
				per = append(per, c.reshape(ys[d][t], []int64{1, 1, batch, hidden}))
			}
			steps = append(steps, c.concat(per, 1))
		}
		y := c.concat(steps, 0)
		if layout == 1 {
			y = c.transpose(y, []int64{2, 0, 1, 3})
		}
		if c.err != nil {
			return c.err
		}
		im.values[outs[0]] = y
	}
	final := func(vs []*value) *value {
		var per []*value
		for _, v := range vs {
			per = append(per, c.reshape(v, []int64{1, batch, hidden}))
		}
		v := c.concat(per, 0)
		if layout == 1 {
			v = c.transpose(v, []int64{1, 0, 2})
		}
		return v
	}
	if wanted(1) {
		im.values[outs[1]] = final(lastH)
	}
	if wanted(2) {
		if n.GetOpType() != "LSTM" {
			return im.fail("output 2 '%s': %s has two outputs", outs[2], n.GetOpType())
		}
		im.values[outs[2]] = final(lastC)
	}
	return c.err
}

// readActivations reads activations, activation_alpha and activation_beta:
// per direction, the operator's activation count of names, each with its
// α and β (the list's, or the activation's defaults).
func (r *rnnLayer) readActivations(im *importer, n *onnxpb.NodeProto, kind recurrence) error {
	per := len(kind.activations)
	names := slices.Clone(kind.activations)
	if a := im.typedAttr(n, "activations", onnxpb.AttributeProto_STRINGS); a != nil {
		names = nil
		for _, s := range a.GetStrings() {
			names = append(names, string(s))
		}
	}
	if len(names) == per && r.dirs == 2 {
		names = append(names, names...)
	}
	if len(names) != per*r.dirs {
		return im.fail("%d activations for %d direction(s) of %d each", len(names), r.dirs, per)
	}
	var alphas, betas []float32
	if a := im.typedAttr(n, "activation_alpha", onnxpb.AttributeProto_FLOATS); a != nil {
		alphas = a.GetFloats()
	}
	if a := im.typedAttr(n, "activation_beta", onnxpb.AttributeProto_FLOATS); a != nil {
		betas = a.GetFloats()
	}
	for d := range r.dirs {
		var acts []string
		var as, bs []float64
		for j := range per {
			name := names[d*per+j]
			spec, ok := rnnActivations[name]
			if !ok {
				return im.fail("activation '%s' (the importer takes %s)", name, strings.Join(slices.Sorted(maps.Keys(rnnActivations)), ", "))
			}
			alpha, beta := spec.alpha, spec.beta
			if strings.Contains(spec.takes, "a") && len(alphas) > 0 {
				alpha, alphas = float64(alphas[0]), alphas[1:]
			}
			if strings.Contains(spec.takes, "b") && len(betas) > 0 {
				beta, betas = float64(betas[0]), betas[1:]
			}
			acts, as, bs = append(acts, name), append(as, alpha), append(bs, beta)
		}
		r.acts, r.alphas, r.betas = append(r.acts, acts), append(r.alphas, as), append(r.betas, bs)
	}
	return nil
}

// The shape ops the recurrent layers are built from, as calc steps.

func (c *calc) slice(x *value, offsets, sizes []int64) *value {
	if c.err != nil {
		return nil
	}
	strides := make([]int64, len(sizes))
	for i := range strides {
		strides[i] = 1
	}
	v, err := c.im.sliceValue(x, offsets, sizes, strides)
	c.err = err
	return v
}

func (c *calc) matmul(a, b *value) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.matmulValues(a, b)
	c.err = err
	return v
}

func (c *calc) transpose(x *value, perm []int64) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.transposeValue(x, perm)
	c.err = err
	return v
}

func (c *calc) concat(vs []*value, axis int64) *value {
	if c.err != nil {
		return nil
	}
	if len(vs) == 1 {
		return vs[0]
	}
	v, err := c.im.concatValues(vs, axis)
	c.err = err
	return v
}

// sigmoid is 1 / (1 + e^−x).
func (c *calc) sigmoid(x *value) *value {
	return c.div(c.k(x, 1), c.add(c.k(x, 1), c.un(c.neg(x), "exp")))
}

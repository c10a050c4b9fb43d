package onnximport

import (
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Control flow is resolved at import, as the shapes are: If with a
// condition known at import takes its branch; with one known only at run
// time both branches are computed and each output selected (ONNX's ops
// have no side effects, so computing the branch not taken changes
// nothing but the work). Loop and Scan are unrolled: a Loop's trip count
// and condition must be known at import (given with --input-value where
// they are graph inputs), and a Scan's length is its inputs' extent.

// Limits on what control flow may unroll.
const (
	maxSubgraphDepth = 32
	maxUnrolledSteps = 1 << 16
	// maxInlinedNodes bounds the nodes imported from subgraphs in all:
	// an If on a runtime condition imports both branches, so nested ones
	// would otherwise double the work at each level.
	maxInlinedNodes = 1 << 17
)

// inline imports subgraph g with args as its inputs, and returns its
// outputs. Its nodes see the enclosing scopes' values; what it defines is
// visible only inside it, so that a body unrolled many times defines its
// values afresh each time.
func (im *importer) inline(g *onnxpb.GraphProto, args []*value) ([]*value, error) {
	if g == nil {
		return nil, im.fail("a graph attribute is missing")
	}
	if im.depth >= maxSubgraphDepth {
		return nil, im.fail("subgraphs nested more than %d deep", maxSubgraphDepth)
	}
	if im.inlined += len(g.GetNode()); im.inlined > maxInlinedNodes {
		return nil, im.fail("control flow that unrolls to more than %d nodes", maxInlinedNodes)
	}
	if len(args) != len(g.GetInput()) {
		return nil, im.fail("subgraph '%s' takes %d inputs; it is given %d", g.GetName(), len(g.GetInput()), len(args))
	}
	// The names the subgraph defines, and what they shadow.
	shadowed := map[string]*value{}
	define := func(name string) {
		if _, seen := shadowed[name]; !seen && name != "" {
			shadowed[name] = im.values[name]
			delete(im.values, name)
		}
	}
	for _, in := range g.GetInput() {
		define(in.GetName())
	}
	for _, t := range g.GetInitializer() {
		define(t.GetName())
	}
	for _, n := range g.GetNode() {
		for _, out := range n.GetOutput() {
			define(out)
		}
	}
	node, index, graph, consumers, folded := im.node, im.index, im.graph, im.consumers, im.foldedInto
	im.depth++
	defer func() {
		im.depth--
		im.node, im.index, im.graph, im.consumers, im.foldedInto = node, index, graph, consumers, folded
		for name, v := range shadowed {
			if v == nil {
				delete(im.values, name)
			} else {
				im.values[name] = v
			}
		}
	}()
	for i, in := range g.GetInput() {
		im.values[in.GetName()] = args[i]
	}
	for _, t := range g.GetInitializer() {
		v, err := im.tensorValue(t)
		if err != nil {
			return nil, err
		}
		im.values[t.GetName()] = v
	}
	im.enterGraph(g)
	for i, n := range g.GetNode() {
		im.node, im.index = n, i
		if err := im.convertNode(n); err != nil {
			return nil, err
		}
	}
	outs := make([]*value, len(g.GetOutput()))
	for i, out := range g.GetOutput() {
		v, ok := im.values[out.GetName()]
		if !ok {
			return nil, im.fail("output '%s' of subgraph '%s' is computed by no node", out.GetName(), g.GetName())
		}
		outs[i] = v
	}
	return outs, nil
}

// graphAttr is n's graph attribute name.
func (im *importer) graphAttr(n *onnxpb.NodeProto, name string) *onnxpb.GraphProto {
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_GRAPH); a != nil {
		return a.GetG()
	}
	return nil
}

// outputs sets n's outputs to vs (an empty name drops its value).
func (im *importer) outputs(n *onnxpb.NodeProto, vs []*value) error {
	if len(n.GetOutput()) > len(vs) {
		return im.fail("%d outputs; the operator gives %d", len(n.GetOutput()), len(vs))
	}
	for i, name := range n.GetOutput() {
		if name != "" {
			im.values[name] = vs[i]
		}
	}
	return nil
}

func (im *importer) ifOp(n *onnxpb.NodeProto, in []*value) error {
	cond := in[0]
	if rowmajor.Elements(cond.shape) != 1 || cond.isSeq {
		return im.fail("a condition of shape %v (If takes one bool)", cond.shape)
	}
	thenG, elseG := im.graphAttr(n, "then_branch"), im.graphAttr(n, "else_branch")
	if im.attrErr != nil {
		return im.attrErr
	}
	if cond.konst != nil {
		g := elseG
		if cond.konst.v()[0] != 0 {
			g = thenG
		}
		outs, err := im.inline(g, nil)
		if err != nil {
			return err
		}
		return im.outputs(n, outs)
	}
	thenOuts, err := im.inline(thenG, nil)
	if err != nil {
		return err
	}
	elseOuts, err := im.inline(elseG, nil)
	if err != nil {
		return err
	}
	if len(thenOuts) != len(elseOuts) {
		return im.fail("the branches give %d and %d outputs", len(thenOuts), len(elseOuts))
	}
	c := &calc{im: im}
	scalar := c.reshape(cond, []int64{})
	outs := make([]*value, len(thenOuts))
	for i, t := range thenOuts {
		v, ok := c.selectBranch(scalar, t, elseOuts[i])
		if !ok {
			return im.fail("output %d is %s in one branch and %s in the other: with a condition known only at run time, both branches are computed and selected, which takes one type (give the condition with --input-value to take one branch)",
				i, describe(t), describe(elseOuts[i]))
		}
		outs[i] = v
	}
	if c.err != nil {
		return c.err
	}
	return im.outputs(n, outs)
}

// selectBranch is where(cond, t, e) for two branches' values of one
// type: tensors, or sequences of one length whose tensors pair up.
func (c *calc) selectBranch(cond, t, e *value) (*value, bool) {
	if t.isSeq != e.isSeq {
		return nil, false
	}
	if t.isSeq {
		if len(t.seq) != len(e.seq) {
			return nil, false
		}
		out := make([]*value, len(t.seq))
		for i := range t.seq {
			v, ok := c.selectBranch(cond, t.seq[i], e.seq[i])
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return seqOf(out), true
	}
	if t.elem != e.elem || !slices.Equal(t.shape, e.shape) {
		return nil, false
	}
	return c.sel(cond, t, e), true
}

// describe is v's type as a message says it.
func describe(v *value) string {
	if v.isSeq {
		parts := make([]string, len(v.seq))
		for i, x := range v.seq {
			parts[i] = describe(x)
		}
		return "a sequence of [" + strings.Join(parts, ", ") + "]"
	}
	return tensorType(v.elem, v.shape)
}

// stack joins vs, each of one shape, along a new axis.
func (c *calc) stack(vs []*value, axis int) *value {
	if c.err != nil || len(vs) == 0 {
		return nil
	}
	shape := slices.Insert(slices.Clone(vs[0].shape), axis, 1)
	parts := make([]*value, len(vs))
	for i, v := range vs {
		parts[i] = c.reshape(v, shape)
	}
	return c.concat(parts, int64(axis))
}

func (im *importer) loop(n *onnxpb.NodeProto, in []*value) error {
	body := im.graphAttr(n, "body")
	if im.attrErr != nil {
		return im.attrErr
	}
	if body == nil {
		return im.fail("a Loop without its body")
	}
	trip, cond := in[0], in[1]
	carried := slices.Clone(in[2:])
	for i, v := range carried {
		if v == nil {
			return im.fail("loop-carried input %d is missing", 2+i)
		}
	}
	limit := int64(-1)
	if trip != nil {
		if trip.konst == nil {
			return im.needsValue(trip, "input 0 (the trip count: the importer unrolls the loop)")
		}
		limit = int64(trip.konst.v()[0])
		if limit < 0 {
			return im.fail("the trip count (input 0) is %d; it must be 0 or more", limit)
		}
	}
	going := true
	if cond != nil {
		if cond.konst == nil {
			return im.needsValue(cond, "input 1 (the condition: the importer unrolls the loop)")
		}
		going = cond.konst.v()[0] != 0
	}
	nCarried := len(carried)
	if len(body.GetInput()) != 2+nCarried || len(body.GetOutput()) < 1+nCarried {
		return im.fail("a body of %d inputs and %d outputs for %d loop-carried values", len(body.GetInput()), len(body.GetOutput()), nCarried)
	}
	var scans [][]*value
	steps := int64(0)
	for ; going && (limit < 0 || steps < limit); steps++ {
		if steps >= maxUnrolledSteps {
			return im.fail("more than %d iterations to unroll", maxUnrolledSteps)
		}
		args := append([]*value{splat(elem.I64, nil, float64(steps)), splat(elem.I1, nil, 1)}, carried...)
		outs, err := im.inline(body, args)
		if err != nil {
			return err
		}
		if outs[0].konst == nil {
			return im.fail("the body's condition is computed at run time; the importer unrolls loops whose iterations are known at import")
		}
		going = outs[0].konst.v()[0] != 0
		carried = outs[1 : 1+nCarried]
		for k, v := range outs[1+nCarried:] {
			if k >= len(scans) {
				scans = append(scans, nil)
			}
			scans[k] = append(scans[k], v)
		}
	}
	results := slices.Clone(carried)
	c := &calc{im: im}
	for k := range len(body.GetOutput()) - 1 - nCarried {
		if steps == 0 {
			return im.fail("a loop of no iterations with scan outputs (their shape comes from an iteration)")
		}
		results = append(results, c.stack(scans[k], 0))
	}
	if c.err != nil {
		return c.err
	}
	return im.outputs(n, results)
}

func (im *importer) scan(n *onnxpb.NodeProto, in []*value) error {
	body := im.graphAttr(n, "body")
	numScan := int(im.attrInt(n, "num_scan_inputs", 0))
	if im.attrErr != nil {
		return im.attrErr
	}
	if body == nil || numScan <= 0 {
		return im.fail("a Scan needs its body and num_scan_inputs")
	}
	if im.opset < 9 {
		return im.scan8(n, in, body, numScan)
	}
	for i, v := range in {
		if v == nil {
			return im.fail("input %d is missing", i)
		}
	}
	if numScan > len(in) {
		return im.fail("num_scan_inputs = %d of %d inputs", numScan, len(in))
	}
	axes := func(name string, count int) ([]int64, error) {
		out := make([]int64, count)
		if a := im.typedAttr(n, name, onnxpb.AttributeProto_INTS); a != nil {
			if len(a.GetInts()) != count {
				return nil, im.fail("%s has %d entries for %d values", name, len(a.GetInts()), count)
			}
			copy(out, a.GetInts())
		}
		return out, nil
	}
	nStates := len(in) - numScan
	nScanOut := len(body.GetOutput()) - nStates
	if nScanOut < 0 {
		return im.fail("a body of %d outputs for %d states", len(body.GetOutput()), nStates)
	}
	inAxes, err := axes("scan_input_axes", numScan)
	if err != nil {
		return err
	}
	inDirs, err := axes("scan_input_directions", numScan)
	if err != nil {
		return err
	}
	outAxes, err := axes("scan_output_axes", nScanOut)
	if err != nil {
		return err
	}
	outDirs, err := axes("scan_output_directions", nScanOut)
	if err != nil {
		return err
	}
	outs, err := im.unrollScan(in[:nStates], in[nStates:], inAxes, inDirs, outAxes, outDirs, body)
	if err != nil {
		return err
	}
	return im.outputs(n, outs)
}

// unrollScan runs body over the scan inputs' axis: the final states, then
// the scan outputs stacked along their axes.
func (im *importer) unrollScan(states, scanIns []*value, inAxes, inDirs, outAxes, outDirs []int64, body *onnxpb.GraphProto) ([]*value, error) {
	c := &calc{im: im}
	length := int64(-1)
	for i, x := range scanIns {
		a, err := im.axis(inAxes[i], len(x.shape))
		if err != nil {
			return nil, err
		}
		inAxes[i] = int64(a)
		if length >= 0 && x.shape[a] != length {
			return nil, im.fail("scan inputs of lengths %d and %d", length, x.shape[a])
		}
		length = x.shape[a]
	}
	if length > maxUnrolledSteps {
		return nil, im.fail("a scan of %d steps, more than the %d the importer unrolls", length, maxUnrolledSteps)
	}
	if length == 0 && len(body.GetOutput()) > len(states) {
		return nil, im.fail("a scan of no steps with scan outputs (their shape comes from a step)")
	}
	var scans [][]*value
	for t := range length {
		args := slices.Clone(states)
		for i, x := range scanIns {
			pos := t
			if inDirs[i] == 1 {
				pos = length - 1 - t
			}
			a := int(inAxes[i])
			offsets, sizes := make([]int64, len(x.shape)), slices.Clone(x.shape)
			offsets[a], sizes[a] = pos, 1
			args = append(args, c.reshape(c.slice(x, offsets, sizes), slices.Delete(slices.Clone(x.shape), a, a+1)))
		}
		if c.err != nil {
			return nil, c.err
		}
		outs, err := im.inline(body, args)
		if err != nil {
			return nil, err
		}
		states = outs[:len(states)]
		for k, v := range outs[len(states):] {
			if k >= len(scans) {
				scans = append(scans, nil)
			}
			scans[k] = append(scans[k], v)
		}
	}
	results := slices.Clone(states)
	for k, vs := range scans {
		if outDirs[k] == 1 {
			vs = slices.Clone(vs)
			slices.Reverse(vs)
		}
		a, err := im.axis(outAxes[k], len(vs[0].shape)+1)
		if err != nil {
			return nil, err
		}
		results = append(results, c.stack(vs, a))
	}
	return results, c.err
}

// scan8 is Scan before opset 9: a batch axis first on every state and
// scan input (scan inputs [batch, sequence, ...]), and an optional first
// input of sequence lengths, which must be the full length. Each batch
// entry is scanned alone, and the results stacked.
func (im *importer) scan8(n *onnxpb.NodeProto, in []*value, body *onnxpb.GraphProto, numScan int) error {
	lens, rest := in[0], in[1:]
	for i, v := range rest {
		if v == nil {
			return im.fail("input %d is missing", 1+i)
		}
	}
	if numScan > len(rest) {
		return im.fail("num_scan_inputs = %d of %d inputs", numScan, len(rest))
	}
	nStates := len(rest) - numScan
	nScanOut := len(body.GetOutput()) - nStates
	if nScanOut < 0 {
		return im.fail("a body of %d outputs for %d states", len(body.GetOutput()), nStates)
	}
	dirs := make([]int64, numScan)
	if a := im.typedAttr(n, "directions", onnxpb.AttributeProto_INTS); a != nil {
		if len(a.GetInts()) != numScan {
			return im.fail("directions has %d entries for %d scan inputs", len(a.GetInts()), numScan)
		}
		copy(dirs, a.GetInts())
	}
	if len(rest) == 0 || len(rest[0].shape) == 0 {
		return im.fail("Scan (opset %d) takes inputs with a batch axis", im.opset)
	}
	batch := rest[0].shape[0]
	for _, v := range rest {
		if len(v.shape) == 0 || v.shape[0] != batch || (v != rest[0] && len(v.shape) < 1) {
			return im.fail("inputs of batch sizes %d and %v", batch, v.shape)
		}
	}
	if lens != nil {
		if lens.konst == nil {
			return im.needsValue(lens, "input 0 (sequence_lens)")
		}
		for i, x := range rest[nStates:] {
			if len(x.shape) < 2 {
				return im.fail("scan input %d of shape %v (it needs batch and sequence axes)", i, x.shape)
			}
			for _, l := range lens.konst.v() {
				if int64(l) != x.shape[1] {
					return im.fail("sequence_lens %v: the importer takes sequences of the full length %d", lens.konst.v(), x.shape[1])
				}
			}
		}
	}
	c := &calc{im: im}
	entry := func(v *value, b int64) *value {
		offsets, sizes := make([]int64, len(v.shape)), slices.Clone(v.shape)
		offsets[0], sizes[0] = b, 1
		return c.reshape(c.slice(v, offsets, sizes), v.shape[1:])
	}
	per := make([][]*value, len(body.GetOutput()))
	for b := range batch {
		var states, scans []*value
		for _, v := range rest[:nStates] {
			states = append(states, entry(v, b))
		}
		for _, v := range rest[nStates:] {
			scans = append(scans, entry(v, b))
		}
		if c.err != nil {
			return c.err
		}
		outs, err := im.unrollScan(states, scans, make([]int64, numScan), slices.Clone(dirs), make([]int64, nScanOut), make([]int64, nScanOut), body)
		if err != nil {
			return err
		}
		for k, v := range outs {
			per[k] = append(per[k], v)
		}
	}
	results := make([]*value, len(per))
	for k, vs := range per {
		results[k] = c.stack(vs, 0)
	}
	if c.err != nil {
		return c.err
	}
	return im.outputs(n, results)
}

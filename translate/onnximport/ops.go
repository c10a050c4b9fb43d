package onnximport

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// converter is how the importer takes one operator: its first required
// inputs must be present (all of them when variadic), and convert gets
// every input the node names, and at least required + optional, as values
// (nil for an optional one left out). since is the first opset of the
// default domain that has the operator (a model of an older opset that
// uses it is refused), and doc says what it becomes, for the operator
// table of docs/onnx.md (Operators, which a test keeps in step).
type converter struct {
	required, optional int
	variadic           bool
	since              int64
	doc                string
	convert            func(im *importer, n *onnxpb.NodeProto, in []*value) error
}

// converters are the operators the importer takes, by op_type.
var converters map[string]converter

func init() {
	binary := func(op, doc string) converter {
		return converter{required: 2, doc: doc, convert: func(im *importer, n *onnxpb.NodeProto, in []*value) error { return im.binary(n, in, op) }}
	}
	unary := func(op string, since int64) converter {
		return converter{required: 1, since: since, doc: "`tensor." + op + "`",
			convert: func(im *importer, n *onnxpb.NodeProto, in []*value) error { return im.unary(n, in, op) }}
	}
	takes := func(required int, doc string, f func(*importer, *onnxpb.NodeProto, []*value) error) converter {
		return converter{required: required, doc: doc, convert: f}
	}
	since := func(c converter, opset int64) converter { c.since = opset; return c }
	arith := "the tensor dialect's binary op, operands broadcast numpy's way (before opset 7, `broadcast = 1` aligns the second operand at `axis`); integer operands only when both are constants (folded)"
	converters = map[string]converter{
		"Add": binary("add", arith), "Sub": binary("sub", arith), "Mul": binary("mul", arith), "Div": binary("div", arith),
		"Max":  {required: 1, variadic: true, doc: "`tensor.max` of one or more inputs, broadcast together", convert: variadic("max")},
		"Min":  {required: 1, variadic: true, doc: "−max(−a, −b) of one or more inputs, broadcast together (for integers, whose negation wraps, a select of `tensor.less`)", convert: variadic("min")},
		"Sum":  {required: 1, variadic: true, doc: "`tensor.add` of one or more inputs, broadcast together", convert: variadic("sum")},
		"Mean": {required: 1, variadic: true, doc: "the sum divided by the number of inputs", convert: variadic("mean")},
		"Exp":  unary("exp", 1), "Tanh": unary("tanh", 1), "Erf": unary("erf", 9), "Log": unary("log", 1),
		"Floor": unary("floor", 1), "Ceil": unary("ceil", 1), "Round": unary("round", 11), "Sign": unary("sign", 9),
		"Sin": unary("sin", 7), "Cos": unary("cos", 7), "Atan": unary("atan", 7),
		"Tan":        since(takes(1, "sin(x) / cos(x)", tanOp), 7),
		"Asin":       since(takes(1, "atan(x / √(1 − x²))", asinOp), 7),
		"Acos":       since(takes(1, "π/2 − asin(x)", acosOp), 7),
		"Sinh":       since(takes(1, "(e^x − e^−x) / 2", sinhOp), 9),
		"Cosh":       since(takes(1, "(e^x + e^−x) / 2", coshOp), 9),
		"Asinh":      since(takes(1, "sign(x)·log(|x| + √(x² + 1))", asinhOp), 9),
		"Acosh":      since(takes(1, "log(x + √(x² − 1))", acoshOp), 9),
		"Atanh":      since(takes(1, "log((1 + x) / (1 − x)) / 2", atanhOp), 9),
		"Sqrt":       takes(1, "1 / `tensor.rsqrt` (exact at 0)", (*importer).sqrt),
		"Reciprocal": takes(1, "1 / x", (*importer).reciprocal), "Neg": takes(1, "0 − x", (*importer).neg),
		"Abs":                       takes(1, "max(x, −x) (x itself when unsigned)", absOp),
		"Relu":                      takes(1, "max(x, 0)", (*importer).relu),
		"LeakyRelu":                 takes(1, "max(x, αx) (min for α > 1)", leakyReluOp),
		"PRelu":                     takes(2, "relu(x) + slope·min(x, 0), the slope broadcast (per channel before opset 7)", (*importer).prelu),
		"Elu":                       takes(1, "relu(x) + α(e^min(x, 0) − 1)", eluOp),
		"Selu":                      takes(1, "γ·elu_α(x)", seluOp),
		"Celu":                      since(takes(1, "relu(x) + min(0, α(e^(x/α) − 1))", celuOp), 12),
		"HardSigmoid":               takes(1, "max(0, min(1, αx + β))", hardSigmoidOp),
		"HardSwish":                 since(takes(1, "x·hardsigmoid(x) with α = 1/6, β = 1/2", hardSwishOp), 14),
		"Softsign":                  takes(1, "x / (1 + |x|)", softsignOp),
		"Softplus":                  takes(1, "relu(x) + log(1 + e^−|x|) (no overflow)", softplusOp),
		"Mish":                      since(takes(1, "x·tanh(softplus(x))", mishOp), 18),
		"Sigmoid":                   takes(1, "1 / (1 + exp(0 − x))", (*importer).sigmoid),
		"If":                        {required: 1, doc: "the branch its condition takes when the condition is known at import; otherwise both branches, each output a `tensor.select` (the outputs must have one type)", convert: (*importer).ifOp},
		"Loop":                      {optional: 2, doc: "unrolled: the trip count and condition must be known at import (`--input-value`), and the body's condition too; scan outputs stacked", convert: (*importer).loop},
		"Scan":                      {optional: 1, doc: "unrolled over the scan inputs' axis (directions and axes; before opset 9, per batch entry, sequence_lens only of the full length)", convert: (*importer).scan},
		"QuantizeLinear":            {required: 2, optional: 1, since: 10, doc: "saturate(round(x / scale) + zero point) into uint8 (no zero point) or the zero point's int8/uint8; the scale and zero point a scalar or per slice of `axis`", convert: (*importer).quantizeLinear},
		"DequantizeLinear":          {required: 2, optional: 1, since: 10, doc: "(x − zero point) · scale, from uint8, int8 or int32; per slice of `axis` as QuantizeLinear", convert: (*importer).dequantizeLinear},
		"DynamicQuantizeLinear":     {required: 1, since: 11, doc: "uint8 over the range of x and 0: scale (max − min) / 255, zero point saturate(round(−min / scale)); y, the scale and the zero point", convert: (*importer).dynamicQuantizeLinear},
		"ScatterElements":           {required: 3, since: 11, doc: "each update written at its position, the axis's index replaced by its index, as a chain of selects; the indices known at import; reduction none, add, mul, max, min", convert: (*importer).scatterElements},
		"Scatter":                   {required: 3, doc: "ScatterElements (opsets before 11)", convert: (*importer).scatterElements},
		"ScatterND":                 {required: 3, since: 11, doc: "each indices row's slice of data filled from updates, as a chain of selects; the indices known at import; reductions as ScatterElements", convert: (*importer).scatterND},
		"TopK":                      {required: 1, optional: 1, doc: "k rounds of ArgMax's chain along the axis, the positions taken masked: values and indices in order, ties to the lower index; k known at import (an input from opset 10), k × the axis ≤ 65,536", convert: (*importer).topK},
		"RNN":                       {required: 3, optional: 3, doc: "unrolled over the sequence: X·Wᵀ for every step in one `tensor.matmul`, then each step's H·Rᵀ and activation; directions, layout, clip and the activations with their α and β; sequence_lens only of the full length", convert: (*importer).rnn},
		"GRU":                       {required: 3, optional: 3, doc: "unrolled as RNN is, gates z, r, h; linear_before_reset", convert: (*importer).rnn},
		"LSTM":                      {required: 3, optional: 5, doc: "unrolled as RNN is, gates i, o, f, c; peepholes, input_forget, the cell state's output", convert: (*importer).rnn},
		"Clip":                      {required: 1, optional: 2, doc: "min(max(x, min), max): bounds as inputs from opset 11, attributes before; an absent bound does not clip", convert: (*importer).clip},
		"Pow":                       takes(2, "a constant exponent, one value for all elements: integers from −64 to 64 as products by squaring (reciprocals for negative ones), 0.5 as `1 / rsqrt`, −0.5 as `tensor.rsqrt`; any other exponent, or one known only at run time, `tensor.pow` (an exponent of another type converted to the base's)", (*importer).pow),
		"Trilu":                     since(converter{required: 1, optional: 1, doc: "row by row, each row's kept columns between zeros (exact); folded on constants", convert: (*importer).trilu}, 14),
		"DepthToSpace":              takes(1, "a reshape, a transpose (DCR or CRD) and a reshape", (*importer).depthToSpace),
		"SpaceToDepth":              takes(1, "a reshape, a transpose and a reshape", (*importer).spaceToDepth),
		"CumSum":                    since(takes(2, "unit slices added one after another (numpy's order), `exclusive` and `reverse`, concatenated", (*importer).cumSum), 11),
		"EyeLike":                   since(takes(1, "folded", (*importer).eyeLike), 9),
		"LRN":                       takes(1, "x / (bias + α/size·Σx²)^β over a window of channels (slices of the zero-padded squares), the power as exp(β·log)", (*importer).lrn),
		"MeanVarianceNormalization": since(takes(1, "(x − mean) / (√variance + 1e−9) over the axes, by reductions", (*importer).meanVarianceNorm), 9),
		"Einsum":                    since(converter{required: 1, variadic: true, doc: "one or two operands (an ellipsis as fresh letters, a repeated letter as its diagonal): reductions of the letters one operand alone has, then a batched matmul and transposes", convert: (*importer).einsum}, 12),
		"MatMul":                    takes(2, "`tensor.matmul`; stacked left operands by a matrix are flattened into one matmul; stacked pairs are `tensor.batch_matmul` (batch dimensions broadcast)", (*importer).matmul),
		"Gemm":                      {required: 2, optional: 1, doc: "transposes, the product, `alpha` and `beta` as multiplications, `C` broadcast", convert: (*importer).gemm},
		"Conv": {required: 2, optional: 1, doc: "`tensor.conv` (the bias added after; a BatchNormalization that alone reads it folded into its weight and bias); 1-D, 2-D and 3-D; strides, pads, `auto_pad`, dilations, groups (depthwise too)",
			convert: (*importer).conv},
		"ConvTranspose": {required: 2, optional: 1, doc: "a convolution of the input with stride−1 zeros between positions, padded by the kernel's span less the pads, by the flipped kernel; strides, pads, `auto_pad`, `output_padding`, `output_shape`, dilations, groups",
			convert: (*importer).convTranspose},
		"MaxPool":           takes(1, "`tensor.max` of strided slices of the input padded with −∞, axis by axis (a k1×k2 window is k1 + k2 slices); strides, pads, `auto_pad`, dilations, `ceil_mode`; the Indices output as a chain of strict comparisons carrying each axis's coordinate, ties to the first in row-major order, `storage_order` 0 or 1", pool("max")),
		"AveragePool":       takes(1, "the sum of the same slices, axis by axis, divided by each window's count (of the padded input with `count_include_pad`)", pool("avg")),
		"GlobalAveragePool": takes(1, "`tensor.reduce_sum` over the spatial axes, by the count", globalPool("avg")),
		"GlobalMaxPool":     takes(1, "`tensor.reduce_max` over the spatial axes", globalPool("max")),
		"BatchNormalization": {required: 5, doc: "inference: folded into the weights and bias of a Conv it alone reads when both are constants; else x·a + b per channel, a = scale/√(var + ε) and b = B − mean·a folded when the statistics are constants (`spatial = 0` before opset 9: per activation); training mode is refused",
			convert: (*importer).batchNorm},
		"InstanceNormalization": takes(3, "the mean and variance of each plane by reductions, then `tensor.rsqrt`, scale and bias", (*importer).instanceNorm),
		"LayerNormalization": since(converter{required: 2, optional: 1, doc: "`tensor.layer_norm` of the input viewed as [outer, inner] from `axis` (any axis); the Mean and InvStdDev outputs by reductions",
			convert: (*importer).layerNorm}, 17),
		"Pad": {required: 1, optional: 3, doc: "`tensor.concat` with constants (`constant`), unit slices (`edge`, `reflect`) or slices (`wrap`); pads and value as inputs from opset 11 (axes from 18), attributes before; negative pads crop",
			convert: (*importer).pad},
		"Dropout":          {required: 1, optional: 2, doc: "the identity (inference, and training with ratio 0, as `torch.onnx.export` writes some models); the mask, when asked for, all true; `training_mode` true with another ratio is refused", convert: (*importer).dropout},
		"Softmax":          takes(1, "`tensor.softmax` on the axis (−1 by default); before opset 13 on the input coerced to 2-D at `axis` (default 1)", (*importer).softmax),
		"LogSoftmax":       takes(1, "d − log(Σ e^d) with d = x − max(x), on the axis as Softmax takes it", (*importer).logSoftmax),
		"Gelu":             since(takes(1, "`tensor.gelu` (`approximate = tanh` → `{approximate}`); the exporters' Erf and Tanh forms import as their elementwise ops", (*importer).gelu), 20),
		"ReduceSum":        takes(1, "`tensor.reduce_sum` on the axes (input or attribute by opset), a reshape for `keepdims`", reduce("sum")),
		"ReduceMean":       takes(1, "the sum by the count", reduce("mean")),
		"ReduceMax":        takes(1, "`tensor.reduce_max`", reduce("max")),
		"ReduceMin":        takes(1, "−max(−x)", reduce("min")),
		"ReduceProd":       takes(1, "the unit slices of each axis multiplied one after another", reduce("prod")),
		"ReduceSumSquare":  takes(1, "the sum of x·x", reduce("sum_square")),
		"ReduceL1":         takes(1, "the sum of |x|", reduce("l1")),
		"ReduceL2":         takes(1, "the square root of the sum of x·x", reduce("l2")),
		"ReduceLogSum":     takes(1, "the log of the sum", reduce("log_sum")),
		"ReduceLogSumExp":  takes(1, "m + log(Σ e^(x − m)), m the maximum", (*importer).reduceLogSumExp),
		"Transpose":        takes(1, "`tensor.transpose`", (*importer).transpose),
		"Reshape":          takes(1, "`tensor.reshape` (0 and −1 as ONNX says, `allowzero`); the shape must be known at import", (*importer).reshapeOp),
		"Flatten":          takes(1, "`tensor.reshape` to 2-D", (*importer).flatten),
		"Unsqueeze":        takes(1, "`tensor.reshape`; axes as an attribute before opset 13, an input from 13", (*importer).unsqueeze),
		"Squeeze":          takes(1, "`tensor.reshape`; axes as an attribute before opset 13, an input from 13", (*importer).squeeze),
		"Concat":           {variadic: true, doc: "`tensor.concat`", convert: (*importer).concat},
		"Slice":            takes(1, "`tensor.slice` (starts, ends, axes as attributes before opset 10, inputs from 10, and steps); a negative step reverses by unit slices", (*importer).slice),
		"Split":            takes(1, "slices; the parts as an attribute before opset 13, an input from 13, `num_outputs` from 18", (*importer).split),
		"Expand":           since(takes(1, "`tensor.broadcast`", (*importer).expand), 8),
		"Tile":             takes(1, "`tensor.concat` of copies along each axis", (*importer).tile),
		"Cast":             takes(1, "`tensor.convert` between float types; any type on constants; to and from STRING, `tensor.string_format` and `tensor.string_parse` (the reference interpreter's)", (*importer).cast),
		"StringNormalizer": since(takes(1, "`tensor.string_normalize` (the reference interpreter's): stop words dropped, case changed by Unicode's rules; its length known only at run time, so only a graph output may take it", (*importer).stringNormalizer), 10),
		"Identity":         takes(1, "the input", (*importer).identity),
		"Constant":         takes(0, "folded", (*importer).constant),
		"ConstantOfShape":  since(takes(0, "folded", (*importer).constantOfShape), 9),
		"Shape":            takes(1, "folded (an i64 constant)", (*importer).shapeOp),
		"Size":             takes(1, "folded (an i64 scalar)", (*importer).size),
		"Gather":           takes(2, "slices along the axis for constant indices (one per run of consecutive indices, concatenated); for indices known at run time from data known at import with finite floats (an embedding table), a one-hot matmul (hot[n, d]·table[d, rest], exact: 1·x plus zeros; −0 comes out as +0), else a select chain over the axis (where the index is i, the data's slice i; up to 4,096 positions)", (*importer).gather),
		"Resize": since(converter{required: 1, optional: 3, doc: "per axis, nearest positions as slices of the input (exact), linear and cubic weights as a matmul by a constant matrix; every coordinate transformation mode and nearest mode, `exclude_outside`, `tf_crop_and_resize` with its extrapolation value (not `antialias`, `axes`, `keep_aspect_ratio_policy`)",
			convert: (*importer).resize}, 10),
		"Upsample":        since(converter{required: 1, optional: 1, doc: "Resize with asymmetric coordinates and nearest rounded down; scales as an attribute before opset 9", convert: (*importer).resize}, 7),
		"Where":           since(takes(3, "`tensor.select`, the three operands broadcast; folded on constants", (*importer).where), 9),
		"Equal":           takes(2, "`tensor.equal` into bool, operands broadcast", comparison("eq")),
		"Less":            takes(2, "`tensor.less`", comparison("lt")),
		"Greater":         takes(2, "`tensor.less` with the operands swapped", comparison("gt")),
		"LessOrEqual":     since(takes(2, "`tensor.less_equal`", comparison("le")), 12),
		"GreaterOrEqual":  since(takes(2, "`tensor.less_equal` with the operands swapped", comparison("ge")), 12),
		"Not":             takes(1, "x = false", (*importer).not),
		"And":             takes(2, "the product of the two bools", logic("and")),
		"Or":              takes(2, "the maximum of the two bools", logic("or")),
		"Xor":             takes(2, "`tensor.not_equal` of the two bools", logic("xor")),
		"IsNaN":           since(takes(1, "x ≠ x", isNaNOp), 9),
		"IsInf":           since(takes(1, "x = +∞, x = −∞ (`detect_positive`, `detect_negative`)", isInfOp), 10),
		"ThresholdedRelu": since(takes(1, "`tensor.select` of x where x > α, else 0", thresholdedReluOp), 10),
		"Shrink":          since(takes(1, "selects of x ± bias beyond ±λ, else 0", shrinkOp), 9),
		"ArgMax":          takes(1, "a chain over the axis's unit slices of a comparison and two selects, the first (or with `select_last_index` the last) maximum's position as i64", argExtreme("max")),
		"ArgMin":          takes(1, "ArgMax's chain with the comparison reversed", argExtreme("min")),
		"Hardmax":         takes(1, "1 at ArgMax's position along the axis as Softmax takes it, 0 elsewhere", (*importer).hardmax),
		"GatherElements":  since(takes(2, "a select chain over the axis: where the index is i, the data's slice i", (*importer).gatherElements), 11),
		"OneHot":          since(takes(3, "`tensor.select` of on and off (known or not) where the index equals the position along the new axis", (*importer).oneHot), 9),
		"NegativeLogLikelihoodLoss": since(converter{required: 2, optional: 1, doc: "the label's log-probability picked by a one-hot select and summed over the classes, weighted, 0 at `ignore_index`, reduced (none, sum, or the mean by the weights)",
			convert: (*importer).negativeLogLikelihood}, 12),
		"SoftmaxCrossEntropyLoss": since(converter{required: 2, optional: 1, doc: "LogSoftmax over the classes, then NegativeLogLikelihoodLoss; the log-probabilities as the optional second output",
			convert: (*importer).softmaxCrossEntropy}, 12),
		"Mod":                since(takes(2, "a − trunc(a/b)·b (`fmod = 1`), moved by b where its sign differs from b's (`fmod = 0`), on floats and integers", (*importer).mod), 10),
		"CastLike":           since(takes(2, "Cast to the second input's type", (*importer).castLike), 15),
		"Range":              since(takes(3, "folded (constant start, limit and delta)", (*importer).rangeOp), 11),
		"SequenceEmpty":      since(takes(0, "an empty list, known at import", (*importer).sequenceEmpty), 11),
		"SequenceConstruct":  since(converter{required: 1, variadic: true, doc: "a list of its inputs, known at import (no sequence reaches the module)", convert: (*importer).sequenceConstruct}, 11),
		"SequenceInsert":     since(converter{required: 2, optional: 1, doc: "the list with the tensor inserted at a position known at import (the end by default)", convert: (*importer).sequenceInsert}, 11),
		"SequenceErase":      since(converter{required: 1, optional: 1, doc: "the list without the tensor at a position known at import (the last by default)", convert: (*importer).sequenceErase}, 11),
		"SequenceAt":         since(takes(2, "the list's tensor at a position known at import", (*importer).sequenceAt), 11),
		"SequenceLength":     since(takes(1, "folded (an i64 scalar)", (*importer).sequenceLength), 11),
		"SplitToSequence":    since(converter{required: 1, optional: 1, doc: "Split's slices as a list (chunks of 1 along the axis by default, squeezed unless `keepdims`)", convert: (*importer).splitToSequence}, 11),
		"ConcatFromSequence": since(takes(1, "`tensor.concat` of the list (`new_axis`: stacked)", (*importer).concatFromSequence), 11),
	}
}

// Operators is the table of docs/onnx.md: each operator the importer
// takes, the opset it appears in, and what it becomes.
func Operators() string {
	names := slices.Sorted(maps.Keys(converters))
	var b strings.Builder
	b.WriteString("| operator | since opset | into |\n| --- | --- | --- |\n")
	for _, name := range names {
		c := converters[name]
		fmt.Fprintf(&b, "| %s | %d | %s |\n", name, max(c.since, 1), c.doc)
	}
	return b.String()
}

func (im *importer) convert(n *onnxpb.NodeProto) error {
	c, ok := converters[n.GetOpType()]
	if ok && c.since > im.opset {
		return im.fail("operator '%s' appears in opset %d; this model's opset %d does not have it", n.GetOpType(), c.since, im.opset)
	}
	if !ok {
		names := make([]string, 0, len(converters))
		for k := range converters {
			names = append(names, k)
		}
		slices.Sort(names)
		return im.fail("operator '%s' is not supported (the importer takes %s)", n.GetOpType(), strings.Join(names, ", "))
	}
	for i, out := range n.GetOutput() {
		if _, dup := im.values[out]; dup && out != "" {
			return im.fail("output %d '%s' is defined twice", i, out)
		}
	}
	in := make([]*value, max(len(n.GetInput()), c.required+c.optional))
	for i := range in {
		var err error
		if i < c.required || c.variadic {
			in[i], err = im.need(n, i)
		} else {
			in[i], err = im.in(n, i)
		}
		if err != nil {
			return err
		}
	}
	if !sequenceOps[n.GetOpType()] {
		for i, v := range in {
			if v != nil && v.isSeq {
				return im.fail("input %d '%s' is a sequence; %s takes tensors", i, n.GetInput()[i], n.GetOpType())
			}
		}
	}
	if err := im.checkStringInputs(n, in); err != nil {
		return err
	}
	im.attrErr = nil
	err := c.convert(im, n, in)
	if im.attrErr != nil {
		return im.attrErr
	}
	return err
}

// in returns input i (nil when absent, as optional inputs may be).
func (im *importer) in(n *onnxpb.NodeProto, i int) (*value, error) {
	if i >= len(n.GetInput()) || n.GetInput()[i] == "" {
		return nil, nil
	}
	v, ok := im.values[n.GetInput()[i]]
	if !ok {
		return nil, im.fail("input %d '%s' is defined by no earlier node, input or initializer", i, n.GetInput()[i])
	}
	return v, nil
}

func (im *importer) need(n *onnxpb.NodeProto, i int) (*value, error) {
	v, err := im.in(n, i)
	if err == nil && v == nil {
		err = im.fail("input %d is missing", i)
	}
	return v, err
}

func (im *importer) out(n *onnxpb.NodeProto, v *value) error {
	if len(n.GetOutput()) == 0 || n.GetOutput()[0] == "" {
		return im.fail("the node has no output")
	}
	for _, extra := range n.GetOutput()[1:] {
		if extra != "" {
			return im.fail("output '%s': the importer computes only the first output of %s", extra, n.GetOpType())
		}
	}
	im.values[n.GetOutput()[0]] = v
	if v.konst != nil {
		im.folded += 8 * int64(v.konst.n())
	}
	return nil
}

func attr(n *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

// typedAttr is attribute name of n when it has the type the operator
// reads; one of another type is remembered as the node's error (an
// attribute of undefined type, as the oldest exporters wrote them, is
// taken as it is).
func (im *importer) typedAttr(n *onnxpb.NodeProto, name string, want onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	a := attr(n, name)
	if a == nil || a.GetType() == want || a.GetType() == onnxpb.AttributeProto_UNDEFINED {
		return a
	}
	if im.attrErr == nil {
		im.attrErr = im.fail("attribute '%s' is %v, but %s takes %v", name, a.GetType(), n.GetOpType(), want)
	}
	return nil
}

func (im *importer) attrInt(n *onnxpb.NodeProto, name string, def int64) int64 {
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_INT); a != nil {
		return a.GetI()
	}
	return def
}

func (im *importer) attrFloat(n *onnxpb.NodeProto, name string, def float64) float64 {
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_FLOAT); a != nil {
		return float64(a.GetF())
	}
	return def
}

// ints reads an integer list from input i (a constant) or, failing that,
// from attribute name; ok is false when neither is there.
func (im *importer) ints(n *onnxpb.NodeProto, i int, name string) ([]int64, bool, error) {
	v, err := im.in(n, i)
	if err != nil {
		return nil, false, err
	}
	if v != nil {
		if v.konst == nil {
			return nil, false, im.needsValue(v, fmt.Sprintf("input %d", i))
		}
		out := make([]int64, len(v.konst.v()))
		for k, x := range v.konst.v() {
			out[k] = int64(x)
		}
		return out, true, nil
	}
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_INTS); a != nil {
		return a.GetInts(), true, nil
	}
	return nil, false, nil
}

// axis normalises a possibly negative axis of a rank-r tensor.
func (im *importer) axis(a int64, r int) (int, error) {
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a >= int64(r) {
		return 0, im.fail("axis %d of a rank-%d tensor", a, r)
	}
	return int(a), nil
}

func ints(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// splat is a constant of shape filled with x.
func splat(et elem.Type, shape []int64, x float64) *value {
	vals := make([]float64, rowmajor.Elements(shape))
	for i := range vals {
		vals[i] = x
	}
	return &value{elem: et, shape: slices.Clone(shape), konst: &konst{vals: vals}}
}

func round(et elem.Type, x float64) float64 {
	switch {
	case et.IsFloat():
		return numeric.Round(x, et)
	case et == elem.I1:
		if x != 0 {
			return 1
		}
		return 0
	}
	return math.Trunc(x)
}

// broadcastShape is numpy's broadcast of two shapes.
func (im *importer) broadcastShape(a, b []int64) ([]int64, error) {
	r := max(len(a), len(b))
	out := make([]int64, r)
	for i := range r {
		x, y := int64(1), int64(1)
		if j := i - (r - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			y = b[j]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, im.fail("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// broadcastTo returns v as a tensor of shape (numpy's rules), emitting a
// reshape that drops the broadcast unit axes and a tensor.broadcast.
func (im *importer) broadcastTo(v *value, shape []int64) (string, error) {
	if slices.Equal(v.shape, shape) {
		return im.use(v)
	}
	// A known value is emitted at its own shape and broadcast, as a
	// computed one is: a per-channel bias stays C values, not one per
	// element of the activation (which would be one tile's constant).
	src, err := im.use(v)
	if err != nil {
		return "", err
	}
	off := len(shape) - len(v.shape)
	var kept, dims []int64
	for i, d := range v.shape {
		if d == shape[off+i] {
			kept = append(kept, d)
			dims = append(dims, int64(off+i))
		}
	}
	if len(kept) != len(v.shape) {
		r := im.emit(v.elem, kept, "tensor.reshape %s : %s -> %s", src, tensorType(v.elem, v.shape), tensorType(v.elem, kept))
		src = r.ssa
	}
	b := im.emit(v.elem, shape, "tensor.broadcast %s dimensions = %s : %s -> %s", src, ints(dims), tensorType(v.elem, kept), tensorType(v.elem, shape))
	return b.ssa, nil
}

func broadcastKonst(v *value, shape []int64) *value {
	out := &value{elem: v.elem, shape: slices.Clone(shape), konst: &konst{vals: make([]float64, rowmajor.Elements(shape))}}
	off := len(shape) - len(v.shape)
	idx := make([]int64, len(shape))
	for lin := range out.konst.v() {
		rowmajor.Unravel(int64(lin), shape, idx)
		src := int64(0)
		for i, d := range v.shape {
			k := idx[off+i]
			if d == 1 {
				k = 0
			}
			src = src*d + k
		}
		out.konst.v()[lin] = v.konst.v()[src]
	}
	return out
}

var binaryFold = map[string]func(x, y float64) float64{
	"add": func(x, y float64) float64 { return x + y }, "sub": func(x, y float64) float64 { return x - y },
	"mul": func(x, y float64) float64 { return x * y }, "div": func(x, y float64) float64 { return x / y },
	"max": math.Max, "pow": math.Pow,
}

// foldPair is f of known a and b, broadcast to shape, rounded to et.
func (im *importer) foldPair(a, b *value, shape []int64, et elem.Type, f func(x, y float64) float64) (*value, error) {
	if err := im.foldable(shape, 3); err != nil {
		return nil, err
	}
	x, y := broadcastKonst(a, shape).konst.v(), broadcastKonst(b, shape).konst.v()
	out := &value{elem: et, shape: shape, konst: &konst{vals: make([]float64, len(x))}}
	for i := range out.konst.vals {
		out.konst.vals[i] = round(et, f(x[i], y[i]))
	}
	return out, nil
}

// pairShape is the broadcast shape of two operands of one element type.
func (im *importer) pairShape(a, b *value) ([]int64, error) {
	if a.elem != b.elem {
		return nil, im.fail("operands of %v and %v", a.elem, b.elem)
	}
	return im.broadcastShape(a.shape, b.shape)
}

// binaryValues applies an elementwise op to a and b, broadcast: folded
// when both are known, emitted otherwise.
func (im *importer) binaryValues(a, b *value, op string) (*value, error) {
	shape, err := im.pairShape(a, b)
	if err != nil {
		return nil, err
	}
	if a.konst != nil && b.konst != nil {
		// Rounded to the type (an integer quotient truncates).
		return im.foldPair(a, b, shape, a.elem, binaryFold[op])
	}
	if !a.elem.IsFloat() && op == "pow" {
		return nil, im.fail("pow of %v tensors known only at run time (tensor.pow computes on floats)", a.elem)
	}
	if err := checkShape(shape); err != nil {
		return nil, im.fail("%v", err)
	}
	x, err := im.broadcastTo(a, shape)
	if err != nil {
		return nil, err
	}
	y, err := im.broadcastTo(b, shape)
	if err != nil {
		return nil, err
	}
	return im.emit(a.elem, shape, "tensor.%s %s, %s : %s", op, x, y, tensorType(a.elem, shape)), nil
}

// pair is a binary operator's two operands, the second broadcast as the
// opset says (legacyBroadcast before opset 7).
func (im *importer) pair(n *onnxpb.NodeProto, in []*value) (a, b *value, err error) {
	a, b = in[0], in[1]
	if im.opset < 7 {
		b, err = im.legacyBroadcast(n, a, b)
	}
	return a, b, err
}

// pairwise is a binary operator computed by f on its pair of operands.
func (im *importer) pairwise(n *onnxpb.NodeProto, in []*value, f func(a, b *value) (*value, error)) error {
	a, b, err := im.pair(n, in)
	if err != nil {
		return err
	}
	v, err := f(a, b)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) binary(n *onnxpb.NodeProto, in []*value, op string) error {
	return im.pairwise(n, in, func(a, b *value) (*value, error) { return im.binaryValues(a, b, op) })
}

// legacyBroadcast is the broadcasting of arithmetic before opset 7: with
// broadcast = 1 the second operand's dimensions match the first's from
// axis on (the trailing ones when axis is absent), and it is reshaped to
// the first's rank so that numpy's rules apply; without, both have one
// shape.
func (im *importer) legacyBroadcast(n *onnxpb.NodeProto, a, b *value) (*value, error) {
	if im.attrInt(n, "broadcast", 0) == 0 {
		if !slices.Equal(a.shape, b.shape) && rowmajor.Elements(b.shape) != 1 {
			return nil, im.fail("operands of shapes %v and %v without broadcast = 1 (opset %d)", a.shape, b.shape, im.opset)
		}
		return b, nil
	}
	r, rb := len(a.shape), len(b.shape)
	axis := int64(r - rb)
	if attr(n, "axis") != nil {
		axis = im.attrInt(n, "axis", 0)
		if axis < 0 {
			axis += int64(r)
		}
	}
	if axis < 0 || axis+int64(rb) > int64(r) {
		return nil, im.fail("broadcasting %v onto %v at axis %d", b.shape, a.shape, im.attrInt(n, "axis", 0))
	}
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	copy(shape[axis:], b.shape)
	return im.reshapeValue(b, shape)
}

var unaryFold = map[string]func(float64) float64{"exp": math.Exp, "tanh": math.Tanh, "erf": math.Erf, "rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) },
	"log": math.Log, "sin": math.Sin, "cos": math.Cos, "atan": math.Atan, "floor": math.Floor, "ceil": math.Ceil, "round": math.RoundToEven, "sign": func(x float64) float64 {
		if x > 0 {
			return 1
		} else if x < 0 {
			return -1
		}
		return x
	}}

func (im *importer) unaryValue(x *value, op string) (*value, error) {
	if !x.elem.IsFloat() {
		return nil, im.fail("%s of an %v tensor", op, x.elem)
	}
	if x.konst != nil {
		out := &value{elem: x.elem, shape: x.shape, konst: &konst{vals: make([]float64, len(x.konst.v()))}}
		for i, v := range x.konst.v() {
			out.konst.v()[i] = round(x.elem, unaryFold[op](v))
		}
		return out, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(x.elem, x.shape, "tensor.%s %s : %s", op, src, tensorType(x.elem, x.shape)), nil
}

func (im *importer) unary(n *onnxpb.NodeProto, in []*value, op string) error {
	x := in[0]
	v, err := im.unaryValue(x, op)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// sqrt is 1 / rsqrt(x) (exact at 0, where x · rsqrt(x) is not).
func (im *importer) sqrt(n *onnxpb.NodeProto, in []*value) error {
	c := &calc{im: im}
	return c.done(n, c.sqrt(in[0]))
}

func (im *importer) reciprocal(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(splat(x.elem, nil, 1), x, "div")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) neg(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(splat(x.elem, nil, 0), x, "sub")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) relu(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(x, splat(x.elem, nil, 0), "max")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// sigmoid is 1 / (1 + exp(0 - x)).
func (im *importer) sigmoid(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	m, err := im.binaryValues(splat(x.elem, nil, 0), x, "sub")
	if err == nil {
		m, err = im.unaryValue(m, "exp")
	}
	if err == nil {
		m, err = im.binaryValues(splat(x.elem, nil, 1), m, "add")
	}
	if err == nil {
		m, err = im.binaryValues(splat(x.elem, nil, 1), m, "div")
	}
	if err != nil {
		return err
	}
	return im.out(n, m)
}

// pow is x^y: for a constant exponent of one value for every element, an
// integer from -64 to 64 as products by squaring (the reciprocal for
// negative ones), 0.5 and -0.5 as √x and rsqrt; any other exponent, or
// one known only at run time, tensor.pow (C's pow), broadcast.
func (im *importer) pow(n *onnxpb.NodeProto, in []*value) error {
	x, e, err := im.pair(n, in)
	if err != nil {
		return err
	}
	if !x.elem.IsFloat() && !(x.konst != nil && e.konst != nil) {
		return im.fail("pow of an %v tensor known only at run time", x.elem)
	}
	uniform := e.konst != nil && len(e.konst.v()) > 0 && !slices.ContainsFunc(e.konst.v(), func(v float64) bool { return v != e.konst.v()[0] })
	p := 0.0
	if uniform {
		p = e.konst.v()[0]
	}
	if !uniform || !(p == math.Trunc(p) && math.Abs(p) <= 64 || p == 0.5 || p == -0.5) {
		if e.elem != x.elem {
			// An exponent of another type (Pow's T1 and T2 differ from
			// opset 12) is converted to the base's.
			if e, err = im.castValue(e, x.elem); err != nil {
				return err
			}
		}
		v, err := im.binaryValues(x, e, "pow")
		if err != nil {
			return err
		}
		return im.out(n, v)
	}
	shape, err := im.broadcastShape(x.shape, e.shape)
	if err != nil {
		return err
	}
	if !x.elem.IsFloat() && x.konst == nil {
		return im.fail("pow of an %v tensor known only at run time", x.elem)
	}
	c := &calc{im: im}
	var v *value
	switch {
	case p == 0.5:
		v = c.sqrt(x)
	case p == -0.5:
		v = c.un(x, "rsqrt")
	default:
		v = c.intPower(x, int64(p))
	}
	if c.err != nil {
		return c.err
	}
	if !slices.Equal(v.shape, shape) {
		s, err := im.broadcastTo(v, shape)
		if err != nil {
			return err
		}
		v = &value{ssa: s, elem: v.elem, shape: shape}
	}
	return im.out(n, v)
}

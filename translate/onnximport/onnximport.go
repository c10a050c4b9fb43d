// Package onnximport translates an ONNX model into a tensor-level ipuir
// module: ipu-translate --import-onnx. The graph becomes one func.func
// whose arguments are the graph's inputs (initializers become constants,
// or arguments with WeightsAsArgs) and whose results are its outputs;
// every node becomes the tensor-dialect ops that compute it, each located
// at loc("NODE"("OPTYPE"("MODEL.onnx":N:K))), N being the node's place in
// the graph and K the op's among the node's.
// Shapes are static: they come from the inputs and initializers and are
// propagated node by node, and the subgraphs exporters emit to compute
// shapes (Shape, Gather, Unsqueeze, Concat, ... on constants) are folded
// at import time.
//
// A malformed model or an operator the importer does not take is an error
// naming the node, its operator and the opset:
//
//	model.onnx: node 'attn/MatMul_3' (MatMul, opset 17): ...
package onnximport

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Options say how a model is imported.
type Options struct {
	// File is the model's name in locations and messages.
	File string
	// Dir is the model's folder, which external-data paths are confined to.
	Dir string
	// Target, when set, is the module's ipu.target.
	Target string
	// F64, when set, is the module's ipu.f64: "f32" (compute f64 as f32,
	// the default) or "binary64" (compute binary64 in software).
	F64 string
	// WeightsAsArgs makes initializers function arguments after the inputs.
	WeightsAsArgs bool
	// MemoryLimit bounds the values folded at import time (8 bytes an
	// element, as the reference interpreter counts them); 0 is
	// DefaultMemoryLimit. A value that would cross it is refused, naming
	// the node, its shape and the bytes.
	MemoryLimit int64
	// Function names the func.func (default "main").
	Function string
	// InputShapes pins graph inputs' shapes by name (ipu-translate
	// --input-shape NAME=D0,D1,...): every free or symbolic dimension
	// takes the pinned extent, and every numeric one must equal it. A
	// model with a free dimension and no pin is refused, naming each
	// input and dimension; a pin of an input the graph lacks is refused
	// too, and so are two pins that give one symbol two extents.
	InputShapes map[string][]int64
	// InputValues gives graph inputs' values at import (ipu-translate
	// --input-value NAME=FILE): such an input becomes a constant, as an
	// initializer is, so that the shapes, axes and indices it feeds are
	// known when the graph is laid out. Its type must be the declared one
	// (a free dimension takes the value's extent).
	InputValues map[string]*Tensor
}

// Supported opsets of the default domain.
const (
	MinOpset = 1
	MaxOpset = 21
)

// Limits on what a model may ask the importer to hold.
const (
	maxRank     = 16
	maxElements = 1 << 31
	maxNodes    = 1 << 20
)

// value is an ONNX value as the importer knows it: its SSA name in the
// module text (empty for a constant not yet emitted), its type, and its
// value when known at import time.
type value struct {
	ssa   string
	elem  elem.Type
	shape []int64
	konst *konst
	// input names the graph input this value is (a function argument),
	// so that an operator that needs it at import can say which value to
	// give (--input-value).
	input string
	// isSeq marks an ONNX sequence, seq its tensors: sequences are lists
	// known at import (their positions constants), so that the sequence
	// operators move values, and no sequence reaches the module.
	isSeq bool
	seq   []*value
}

// konst is a value known at import time, row major.
type konst struct {
	vals []float64
	// raw, while vals is nil, is the values encoded as rawElem: an
	// initializer's raw data, decoded only when an operator folds it, and
	// written out as it is (100 MB of f32 weights stay 100 MB, not 200 MB
	// of float64).
	raw     []byte
	rawElem elem.Type
}

// v is k's values, decoding raw data the first time.
func (k *konst) v() []float64 {
	if k.vals == nil && k.raw != nil {
		c := numeric.CodecOf(k.rawElem)
		k.vals = make([]float64, len(k.raw)/c.Bytes)
		for i := range k.vals {
			k.vals[i] = c.Load(k.raw[i*c.Bytes:])
		}
		k.raw = nil
	}
	return k.vals
}

// allFinite reports whether every value of k is finite, without keeping
// decoded raw data.
func (k *konst) allFinite() bool {
	if k.vals == nil && k.raw != nil {
		c := numeric.CodecOf(k.rawElem)
		for i := 0; i+c.Bytes <= len(k.raw); i += c.Bytes {
			if v := c.Load(k.raw[i:]); math.IsInf(v, 0) || math.IsNaN(v) {
				return false
			}
		}
		return true
	}
	for _, v := range k.vals {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

// n is the number of k's values, without decoding them.
func (k *konst) n() int {
	if k.vals == nil && k.raw != nil {
		return len(k.raw) / k.rawElem.Bytes()
	}
	return len(k.vals)
}

// importer holds the state of one import.
type importer struct {
	opts   Options
	opset  int64
	values map[string]*value
	body   textBuilder
	args   []string
	n      int
	node   *onnxpb.NodeProto
	index  int
	// line is the place in the model's graph of the node being imported
	// (of the node a subgraph belongs to, inside one): the line of the
	// ops' locations.
	line int
	// noDefault is set for a model of the training domain alone.
	noDefault bool
	// depth is how deep in subgraphs the import is, and inlined the
	// subgraphs' nodes imported so far (see inline).
	depth, inlined int
	// opInNode counts the ops emitted for node (loc's column).
	opInNode int
	// attrErr is the first attribute of the node being converted whose
	// type is not what its operator reads (see typedAttr).
	attrErr error
	// folded is the bytes of the values folded so far (see foldable).
	folded int64
	// graph is the graph being imported, and consumers the nodes that
	// read each value (for folds across nodes: a BatchNormalization into
	// the Conv it alone reads); foldedInto marks the nodes so folded.
	graph      *onnxpb.GraphProto
	consumers  map[string][]int
	foldedInto map[int]bool
}

// enterGraph makes g the graph whose nodes are imported: its nodes'
// readers (-1 for a graph output), for folds across nodes.
func (im *importer) enterGraph(g *onnxpb.GraphProto) {
	im.graph, im.consumers, im.foldedInto = g, map[string][]int{}, map[int]bool{}
	for i, n := range g.GetNode() {
		for _, in := range n.GetInput() {
			im.consumers[in] = append(im.consumers[in], i)
		}
	}
	for _, out := range g.GetOutput() {
		im.consumers[out.GetName()] = append(im.consumers[out.GetName()], -1)
	}
}

// convertNode imports node n of the graph being imported, by its domain.
func (im *importer) convertNode(n *onnxpb.NodeProto) error {
	switch d := n.GetDomain(); {
	case (d == "" || d == "ai.onnx") && im.noDefault:
		return im.fail("the model imports no opset of the default domain, whose operator this is")
	case d == "" || d == "ai.onnx":
		return im.convert(n)
	case d == trainingDomain:
		return im.convertTraining(n)
	default:
		return im.fail("operators of domain '%s' are not supported", d)
	}
}

// DefaultMemoryLimit is MemoryLimit's default: the reference
// interpreter's.
const DefaultMemoryLimit = 4 << 30

// foldable says whether copies values of shape can be folded beside what
// is folded already, before they are made: a 150-byte model asking for
// ConstantOfShape [32768, 32768] is refused here, not by the allocator.
func (im *importer) foldable(shape []int64, copies int64) error {
	limit := im.opts.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	// In float64: a shape's product may not fit an int64, and the message
	// should say how far past the limit it is.
	n := float64(copies) * 8
	for _, d := range shape {
		n *= float64(max(d, 0))
	}
	if n > float64(limit-im.folded) {
		return im.fail("folding a value of shape %v at import needs %s (8 bytes an element) beside the %s folded already; the limit is %s (--memory-limit)",
			shape, humanize.IBytes(uint64(min(n, 1<<63))), humanize.IBytes(uint64(im.folded)), humanize.IBytes(uint64(limit)))
	}
	return nil
}

// Error is an import failure at a node (or at the model when Node is "").
type Error struct {
	File, Node, Op string
	Opset          int64
	Msg            string
	// NeedsValue, when set, is the graph input whose value the node needs
	// at import (a shape, axes or indices): given with --input-value, the
	// import may go on.
	NeedsValue string
}

func (e *Error) Error() string {
	var text string
	if e.Node == "" && e.Op == "" {
		text = fmt.Sprintf("%s: %s", e.File, e.Msg)
	} else {
		text = fmt.Sprintf("%s: node '%s' (%s, opset %d): %s", e.File, e.Node, e.Op, e.Opset, e.Msg)
	}
	// Names come from the model file: a name holding ESC, CR or LF must
	// not reach the user's terminal as itself. (No message of the
	// importer's own spans lines.)
	return ir.EscapeControl(text)
}

func (im *importer) fail(format string, args ...any) error {
	e := &Error{File: im.opts.File, Opset: im.opset, Msg: fmt.Sprintf(format, args...)}
	if im.node != nil {
		e.Node, e.Op = nodeName(im.node, im.index), im.node.GetOpType()
	}
	return e
}

func nodeName(n *onnxpb.NodeProto, index int) string {
	if n.GetName() != "" {
		return n.GetName()
	}
	return fmt.Sprintf("#%d", index)
}

// Decode reads data as an ONNX model: a ModelProto with a graph and an
// opset import. ok is false for anything else (including IR text and
// packages), so that tools can name the format of a binary input.
func Decode(data []byte) (model *onnxpb.ModelProto, ok bool) {
	var m onnxpb.ModelProto
	if err := Unmarshal(data, &m); err != nil || m.GetGraph() == nil || len(m.GetOpsetImport()) == 0 {
		return nil, false
	}
	return &m, true
}

// Import translates model to a module's text.
func Import(model *onnxpb.ModelProto, opts Options) ([]byte, error) {
	t, err := ImportText(model, opts)
	if err != nil {
		return nil, err
	}
	return t.Bytes(), nil
}

// ImportText translates model to a module's text, held as a Text that
// refers to the model's initializers' raw data rather than copying it:
// the model must not change while the Text is in use.
func ImportText(model *onnxpb.ModelProto, opts Options) (*Text, error) {
	if opts.File == "" {
		opts.File = "model.onnx"
	}
	if opts.Function == "" {
		opts.Function = "main"
	}
	im := &importer{opts: opts, values: map[string]*value{}}
	if model.GetGraph() == nil && len(model.GetOpsetImport()) == 0 {
		// Every byte string decodes as some protobuf message; one with
		// neither a graph nor an opset is no model (an empty file, text).
		return nil, im.fail("not an ONNX model: it holds no graph and imports no opset")
	}
	training := false
	for _, o := range model.GetOpsetImport() {
		switch d := o.GetDomain(); {
		case d == "" || d == "ai.onnx":
			im.opset = o.GetVersion()
		case d == trainingDomain && o.GetVersion() == 1:
			training = true
		}
	}
	noDefault := im.opset == 0 && training
	if noDefault {
		// A model of the training domain alone (an optimizer's update):
		// its nodes are that domain's, and the helpers they are built
		// from read the newest opset.
		im.opset = MaxOpset
	}
	if im.opset == 0 {
		var domains []string
		for _, o := range model.GetOpsetImport() {
			domains = append(domains, fmt.Sprintf("%s %d", o.GetDomain(), o.GetVersion()))
		}
		return nil, im.fail("the model imports no opset of the default domain (it imports %s)", strings.Join(domains, ", "))
	}
	if im.opset < MinOpset || im.opset > MaxOpset {
		return nil, im.fail("opset %d of the default domain; the importer takes opsets %d to %d", im.opset, MinOpset, MaxOpset)
	}
	g := model.GetGraph()
	if g == nil {
		return nil, im.fail("the model has no graph")
	}
	if len(g.GetNode()) > maxNodes {
		return nil, im.fail("%d nodes, more than %d", len(g.GetNode()), maxNodes)
	}
	inits := map[string]*onnxpb.TensorProto{}
	for _, t := range g.GetInitializer() {
		if t.GetName() == "" {
			return nil, im.fail("an initializer without a name")
		}
		if inits[t.GetName()] != nil {
			return nil, im.fail("two initializers are named '%s'", t.GetName())
		}
		inits[t.GetName()] = t
	}
	var sig []string
	argNo := 0
	inputs := map[string]bool{}
	if err := im.pinGivenValues(g, inits); err != nil {
		return nil, err
	}
	if err := im.checkPins(g, inits); err != nil {
		return nil, err
	}
	for _, in := range g.GetInput() {
		if inputs[in.GetName()] {
			return nil, im.fail("two graph inputs are named '%s'", in.GetName())
		}
		inputs[in.GetName()] = true
		if t := inits[in.GetName()]; t != nil {
			// An initializer listed as an input: every initializer is one
			// before IR version 4, and exporters that keep initializers
			// as inputs list them so after. A runtime may override it; a
			// package's inputs are fixed, so it is the initializer, and
			// the input must declare the initializer's type.
			if err := im.sameAsInitializer(in, t); err != nil {
				return nil, err
			}
			continue
		}
		et, shape, err := im.valueType(in)
		if err != nil {
			return nil, err
		}
		if given := opts.InputValues[in.GetName()]; given != nil {
			v, err := im.givenValue(in.GetName(), et, shape, given)
			if err != nil {
				return nil, err
			}
			im.values[in.GetName()] = v
			continue
		}
		ssa := fmt.Sprintf("%%arg%d", argNo)
		argNo++
		im.values[in.GetName()] = &value{ssa: ssa, elem: et, shape: shape, input: in.GetName()}
		// The location names the argument as the graph does, for reports
		// (ir.DescribeValue); ipu.name names its stream.
		sig = append(sig, fmt.Sprintf("%s: %s {ipu.name = %s} loc(%s)", ssa, tensorType(et, shape), quote(in.GetName()), quote(in.GetName())))
	}
	for _, t := range g.GetInitializer() {
		v, err := im.tensorValue(t)
		if err != nil {
			return nil, err
		}
		// Integer initializers (shapes, axes, indices) stay constants:
		// the operators that read them need their values at import.
		if opts.WeightsAsArgs && v.elem.IsFloat() {
			v.ssa = fmt.Sprintf("%%arg%d", argNo)
			argNo++
			sig = append(sig, fmt.Sprintf("%s: %s {ipu.name = %s} loc(%s)", v.ssa, tensorType(v.elem, v.shape), quote(t.GetName()), quote(t.GetName())))
			v.konst = nil
		}
		im.values[t.GetName()] = v
	}
	im.enterGraph(g)
	im.noDefault = noDefault
	for i, n := range g.GetNode() {
		im.node, im.index, im.line, im.opInNode = n, i, i, 0
		if err := im.convertNode(n); err != nil {
			return nil, err
		}
	}
	im.node = nil
	var results, types, named []string
	for _, out := range g.GetOutput() {
		v, ok := im.values[out.GetName()]
		if !ok {
			return nil, im.fail("graph output '%s' is computed by no node", out.GetName())
		}
		if v.isSeq {
			return nil, im.fail("graph output '%s' is a sequence; the importer resolves sequences at import, and a module's results are tensors", out.GetName())
		}
		if err := im.declaredAs(out, v); err != nil {
			return nil, err
		}
		ssa, err := im.use(v)
		if err != nil {
			return nil, err
		}
		results = append(results, ssa)
		types = append(types, tensorType(v.elem, v.shape))
		named = append(named, fmt.Sprintf("%s {ipu.name = %s}", tensorType(v.elem, v.shape), quote(out.GetName())))
	}
	if len(results) == 0 {
		return nil, im.fail("the graph has no outputs")
	}
	var head strings.Builder
	fmt.Fprintf(&head, "// Imported from %s by ipu-translate --import-onnx (opset %d).\n", filepath.Base(opts.File), im.opset)
	var attrs []string
	if opts.Target != "" {
		attrs = append(attrs, "ipu.target = "+quote(opts.Target))
	}
	switch opts.F64 {
	case "":
	case "f32", "binary64":
		attrs = append(attrs, "ipu.f64 = "+quote(opts.F64))
	default:
		return nil, fmt.Errorf("f64 = %q: it is f32 or binary64", opts.F64)
	}
	if len(attrs) > 0 {
		fmt.Fprintf(&head, "module attributes {%s} {\n", strings.Join(attrs, ", "))
	} else {
		head.WriteString("module {\n")
	}
	ret := "(" + strings.Join(named, ", ") + ")"
	fmt.Fprintf(&head, "  func.func @%s(%s) -> %s {\n", opts.Function, strings.Join(sig, ", "), ret)
	tail := fmt.Sprintf("    return %s : %s\n  }\n}\n", strings.Join(results, ", "), strings.Join(types, ", "))
	body := im.body.text()
	text := &Text{pieces: make([]piece, 0, len(body.pieces)+2)}
	text.pieces = append(append(append(text.pieces, piece{text: []byte(head.String())}), body.pieces...), piece{text: []byte(tail)})
	text.size = int64(head.Len()) + body.size + int64(len(tail))
	return text, nil
}

// sameAsInitializer checks that a graph input listed for initializer t
// declares t's element type and shape (where it declares them).
func (im *importer) sameAsInitializer(in *onnxpb.ValueInfoProto, t *onnxpb.TensorProto) error {
	tt := in.GetType().GetTensorType()
	if tt == nil {
		return im.fail("input '%s', which initializer '%s' fills, is not a tensor", in.GetName(), t.GetName())
	}
	if tt.GetElemType() != t.GetDataType() {
		return im.fail("input '%s' is declared %v, but its initializer is %v", in.GetName(),
			onnxpb.TensorProto_DataType(tt.GetElemType()), onnxpb.TensorProto_DataType(t.GetDataType()))
	}
	if s := tt.GetShape(); s != nil {
		if len(s.GetDim()) != len(t.GetDims()) {
			return im.fail("input '%s' is declared of rank %d, but its initializer has shape %v", in.GetName(), len(s.GetDim()), t.GetDims())
		}
		for i, d := range s.GetDim() {
			if d.Value != nil && d.GetDimValue() != t.GetDims()[i] {
				return im.fail("input '%s' is declared with %d in dimension %d, but its initializer has shape %v", in.GetName(), d.GetDimValue(), i, t.GetDims())
			}
		}
	}
	return nil
}

// declaredAs checks a graph output's computed type against the one the
// graph declares for it (where it declares one): a model whose outputs are
// not what it says is refused, not silently changed.
func (im *importer) declaredAs(out *onnxpb.ValueInfoProto, v *value) error {
	tt := out.GetType().GetTensorType()
	if tt == nil {
		return nil
	}
	if dt := tt.GetElemType(); dt != 0 {
		et, err := im.elemOrString(dt)
		if err != nil || et != v.elem {
			return im.fail("graph output '%s' is declared %v, but the graph computes %s", out.GetName(), onnxpb.TensorProto_DataType(dt), elemName(v.elem))
		}
	}
	if s := tt.GetShape(); s != nil {
		declared := make([]string, len(s.GetDim()))
		bad := len(s.GetDim()) != len(v.shape)
		for i, d := range s.GetDim() {
			declared[i] = d.GetDimParam()
			if d.Value != nil {
				declared[i] = strconv.FormatInt(d.GetDimValue(), 10)
				if !bad && v.shape[i] >= 0 && d.GetDimValue() != v.shape[i] {
					bad = true
				}
			}
			if declared[i] == "" {
				declared[i] = "?"
			}
		}
		if bad {
			return im.fail("graph output '%s' is declared [%s], but the graph computes %v", out.GetName(), strings.Join(declared, ", "), v.shape)
		}
	}
	return nil
}

// pinGivenValues refuses values given for inputs the graph lacks, and pins
// each given input's shape to its value's (unless --input-shape pins it,
// which givenValue then checks against the value).
func (im *importer) pinGivenValues(g *onnxpb.GraphProto, inits map[string]*onnxpb.TensorProto) error {
	if len(im.opts.InputValues) == 0 {
		return nil
	}
	var names []string
	have := map[string]*onnxpb.ValueInfoProto{}
	for _, in := range g.GetInput() {
		if inits[in.GetName()] == nil {
			names = append(names, in.GetName())
			have[in.GetName()] = in
		}
	}
	pins := maps.Clone(im.opts.InputShapes)
	if pins == nil {
		pins = map[string][]int64{}
	}
	for _, name := range slices.Sorted(maps.Keys(im.opts.InputValues)) {
		in := have[name]
		if in == nil {
			return im.fail("--input-value %s: the graph has no input '%s' (its inputs: %s)", name, name, strings.Join(names, ", "))
		}
		if _, pinned := pins[name]; pinned {
			continue
		}
		// The value's extents fill the free dimensions; a numeric one
		// stays, so that givenValue names a value of the wrong shape.
		t := im.opts.InputValues[name]
		pin := slices.Clone(t.Shape)
		if s := in.GetType().GetTensorType().GetShape(); s != nil {
			if len(s.GetDim()) != len(t.Shape) {
				return im.fail("--input-value %s: the value has shape %v; the input is of rank %d", name, t.Shape, len(s.GetDim()))
			}
			for i, d := range s.GetDim() {
				if d.GetDimParam() == "" && d.Value != nil {
					pin[i] = d.GetDimValue()
				}
			}
		}
		pins[name] = pin
	}
	im.opts.InputShapes = pins
	return nil
}

// givenValue is graph input name given at import as t: a constant of the
// input's declared type.
func (im *importer) givenValue(name string, et elem.Type, shape []int64, t *Tensor) (*value, error) {
	if t.Strings != nil || et == stringElem {
		return nil, im.fail("--input-value %s: strings are no values the importer folds (the module holds no string constants)", name)
	}
	if t.Elem != et {
		return nil, im.fail("--input-value %s: the value is %v; the input is declared %v", name, t.Elem, et)
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, im.fail("--input-value %s: the value has shape %v; the input is %v", name, t.Shape, shape)
	}
	if int64(len(t.Values)) != rowmajor.Elements(shape) {
		return nil, im.fail("--input-value %s: %d values for shape %v", name, len(t.Values), shape)
	}
	if err := im.foldable(shape, 1); err != nil {
		return nil, err
	}
	im.folded += 8 * int64(len(t.Values))
	return &value{elem: et, shape: slices.Clone(shape), konst: &konst{vals: t.Values}}, nil
}

// needsValue is the error of an operator that must know v at import and
// does not: what (say "input 1", "the indices") names it in the message,
// and when v is a graph input the error says how to give its value.
func (im *importer) needsValue(v *value, what string) error {
	if v.input == "" {
		return im.fail("%s must be a constant known at import time", what)
	}
	err := im.fail("%s must be known at import time; it is graph input '%s': give its value with --input-value %s=FILE (.npy or a serialized TensorProto)", what, v.input, v.input)
	err.(*Error).NeedsValue = v.input
	return err
}

// checkPins refuses pins of inputs the graph lacks, pins that give one
// symbolic dimension two extents, and inputs with free dimensions and no
// pin, naming every such dimension at once (a user pins them all in one
// go, not one a run).
func (im *importer) checkPins(g *onnxpb.GraphProto, inits map[string]*onnxpb.TensorProto) error {
	var names []string
	byName := map[string]*onnxpb.ValueInfoProto{}
	for _, in := range g.GetInput() {
		if inits[in.GetName()] == nil {
			names = append(names, in.GetName())
			byName[in.GetName()] = in
		}
	}
	var pinnedNames []string
	for name := range im.opts.InputShapes {
		pinnedNames = append(pinnedNames, name)
	}
	slices.Sort(pinnedNames)
	for _, name := range pinnedNames {
		if byName[name] == nil {
			return im.fail("--input-shape %s: the graph has no input '%s' (its inputs: %s)", name, name, strings.Join(names, ", "))
		}
		for _, d := range im.opts.InputShapes[name] {
			if d < 0 {
				return im.fail("--input-shape %s=%s: extents are at least 0", name, dimsText(im.opts.InputShapes[name]))
			}
		}
	}
	symbol := map[string]int64{}
	symbolFrom := map[string]string{}
	var missing []string
	for _, name := range names {
		dims := byName[name].GetType().GetTensorType().GetShape().GetDim()
		pin, pinned := im.opts.InputShapes[name]
		for i, d := range dims {
			if d.GetDimParam() == "" && d.Value != nil {
				continue
			}
			if !pinned {
				what := "unnamed"
				if p := d.GetDimParam(); p != "" {
					what = "'" + p + "'"
				}
				missing = append(missing, fmt.Sprintf("input '%s' dimension %d (%s)", name, i, what))
				continue
			}
			p := d.GetDimParam()
			if p == "" || i >= len(pin) {
				continue
			}
			if v, ok := symbol[p]; ok && v != pin[i] {
				return im.fail("dimension '%s' is %d in --input-shape %s and %d in --input-shape %s", p, v, symbolFrom[p], pin[i], name)
			}
			symbol[p], symbolFrom[p] = pin[i], name
		}
	}
	if len(missing) > 0 {
		return im.fail("free dimensions, which a package cannot have: %s; pin each input's shape with --input-shape NAME=D0,D1,... (e.g. --input-shape %s=%s)",
			strings.Join(missing, ", "), firstUnpinned(names, im.opts.InputShapes), exampleDims(byName[firstUnpinned(names, im.opts.InputShapes)]))
	}
	return nil
}

// firstUnpinned is the first input with free dimensions and no pin.
func firstUnpinned(names []string, pins map[string][]int64) string {
	for _, n := range names {
		if _, ok := pins[n]; !ok {
			return n
		}
	}
	return ""
}

// exampleDims is an input's dimensions with 1 for each free one, as a
// --input-shape value.
func exampleDims(vi *onnxpb.ValueInfoProto) string {
	var out []int64
	for _, d := range vi.GetType().GetTensorType().GetShape().GetDim() {
		if d.GetDimParam() != "" || d.Value == nil {
			out = append(out, 1)
		} else {
			out = append(out, d.GetDimValue())
		}
	}
	return dimsText(out)
}

func dimsText(dims []int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(s, ",")
}

// declaredDims writes an input's dimensions as the model declares them.
func declaredDims(dims []*onnxpb.TensorShapeProto_Dimension) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		switch {
		case d.GetDimParam() != "":
			s[i] = d.GetDimParam()
		case d.Value == nil:
			s[i] = "?"
		default:
			s[i] = strconv.FormatInt(d.GetDimValue(), 10)
		}
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// valueType reads a graph input's type: a tensor of a supported element
// type with a static shape, or with its free dimensions pinned
// (Options.InputShapes).
func (im *importer) valueType(vi *onnxpb.ValueInfoProto) (elem.Type, []int64, error) {
	tt := vi.GetType().GetTensorType()
	if tt == nil {
		return 0, nil, im.fail("input '%s' is not a tensor", vi.GetName())
	}
	et, err := im.elemOrString(tt.GetElemType())
	if err != nil {
		return 0, nil, im.fail("input '%s': %v", vi.GetName(), err)
	}
	if pin, ok := im.opts.InputShapes[vi.GetName()]; ok && tt.GetShape() == nil {
		if err := checkShape(pin); err != nil {
			return 0, nil, im.fail("--input-shape %s=%s: %v", vi.GetName(), dimsText(pin), err)
		}
		return et, slices.Clone(pin), nil
	}
	if tt.GetShape() == nil {
		return 0, nil, im.fail("input '%s' has no shape (not even a rank); give it one with --input-shape %s=D0,D1,...", vi.GetName(), vi.GetName())
	}
	dims := tt.GetShape().GetDim()
	pin, pinned := im.opts.InputShapes[vi.GetName()]
	if pinned && len(pin) != len(dims) {
		return 0, nil, im.fail("--input-shape %s=%s gives %d dimensions; the input has %d (%s)", vi.GetName(), dimsText(pin), len(pin), len(dims), declaredDims(dims))
	}
	var shape []int64
	for i, d := range dims {
		free := d.GetDimParam() != "" || d.Value == nil
		switch {
		case pinned && !free && pin[i] != d.GetDimValue():
			return 0, nil, im.fail("--input-shape %s=%s: dimension %d is %d in the model", vi.GetName(), dimsText(pin), i, d.GetDimValue())
		case pinned:
			shape = append(shape, pin[i])
		case free:
			// checkPins has named every free dimension of an unpinned input.
			return 0, nil, im.fail("input '%s': dimension %d is free; pin it with --input-shape", vi.GetName(), i)
		default:
			shape = append(shape, d.GetDimValue())
		}
	}
	if err := checkShape(shape); err != nil {
		return 0, nil, im.fail("input '%s': %v", vi.GetName(), err)
	}
	return et, shape, nil
}

// stringElem marks an ONNX STRING value: a tensor of !tensor.string,
// which the reference interpreter computes on and no machine does. Only
// the operators in stringOps take one; elemType refuses STRING, so that
// no numeric path meets it, and elemOrString lets strings in where they
// may come: graph inputs and outputs, and Cast's target.
const stringElem = elem.Invalid

// elemOrString is elemType, with STRING as stringElem.
func (im *importer) elemOrString(dt int32) (elem.Type, error) {
	if onnxpb.TensorProto_DataType(dt) == onnxpb.TensorProto_STRING {
		return stringElem, nil
	}
	return im.elemType(dt)
}

func (im *importer) elemType(dt int32) (elem.Type, error) {
	switch onnxpb.TensorProto_DataType(dt) {
	case onnxpb.TensorProto_FLOAT:
		return elem.F32, nil
	case onnxpb.TensorProto_FLOAT16:
		return elem.F16, nil
	case onnxpb.TensorProto_BFLOAT16:
		return elem.BF16, nil
	case onnxpb.TensorProto_DOUBLE:
		return elem.F64, nil
	case onnxpb.TensorProto_INT64:
		return elem.I64, nil
	case onnxpb.TensorProto_INT32:
		return elem.I32, nil
	case onnxpb.TensorProto_INT16:
		return elem.I16, nil
	case onnxpb.TensorProto_INT8:
		return elem.I8, nil
	case onnxpb.TensorProto_UINT64:
		return elem.U64, nil
	case onnxpb.TensorProto_UINT32:
		return elem.U32, nil
	case onnxpb.TensorProto_UINT16:
		return elem.U16, nil
	case onnxpb.TensorProto_UINT8:
		return elem.U8, nil
	case onnxpb.TensorProto_BOOL:
		return elem.I1, nil
	}
	return 0, fmt.Errorf("element type %v is not supported (float, float16, bfloat16, double, the signed and unsigned integers of 8 to 64 bits, and bool are)", onnxpb.TensorProto_DataType(dt))
}

func checkShape(shape []int64) error {
	if len(shape) > maxRank {
		return fmt.Errorf("rank %d, more than %d", len(shape), maxRank)
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("negative dimension %d", d)
		}
		if d > 0 && n > maxElements/d {
			return fmt.Errorf("shape %v has more than %d elements", shape, int64(maxElements))
		}
		n *= d
	}
	return nil
}

func tensorType(et elem.Type, shape []int64) string {
	parts := make([]string, 0, len(shape)+1)
	for _, d := range shape {
		if d < 0 {
			parts = append(parts, "?") // known at run time (dynamicDim)
			continue
		}
		parts = append(parts, strconv.FormatInt(d, 10))
	}
	return "tensor<" + strings.Join(append(parts, elemName(et)), "x") + ">"
}

// elemName spells an element type as the module does.
func elemName(et elem.Type) string {
	if et == stringElem {
		return "!tensor.string"
	}
	return et.String()
}

// dynamicDim is a dimension known only at run time (a StringNormalizer's
// length): only a graph output may have one.
const dynamicDim = -1

// loc is the current node's location.
// loc is the location of the next op of the node being converted: the
// node's name, then its op type (a diagnostic leads with both:
// `/conv1/Conv (Conv): error: ...`), then line N for the graph's Nth node,
// column K for the Kth op the node becomes, so that every op has a place
// of its own (checkpoints are matched to the reference's ops by place).
func (im *importer) loc() string {
	im.opInNode++
	place := fmt.Sprintf("%s:%d:%d", quote(filepath.Base(im.opts.File)), im.line+1, im.opInNode)
	if op := im.node.GetOpType(); op != "" {
		place = quote(op) + "(" + place + ")"
	}
	return fmt.Sprintf("loc(%s(%s))", quote(nodeName(im.node, im.index)), place)
}

// emit writes one op whose result has the given type and returns it.
func (im *importer) emit(et elem.Type, shape []int64, format string, args ...any) *value {
	ssa := fmt.Sprintf("%%v%d", im.n)
	im.n++
	fmt.Fprintf(&im.body, "    %s = %s %s\n", ssa, fmt.Sprintf(format, args...), im.loc())
	return &value{ssa: ssa, elem: et, shape: slices.Clone(shape)}
}

// use returns v's SSA name, emitting a known constant as tensor.constant
// the first time it is used by an op that is not folded.
func (im *importer) use(v *value) (string, error) {
	if v.ssa != "" {
		return v.ssa, nil
	}
	if v.isSeq || v.konst == nil {
		// Sequences are lists known at import: only their tensors reach
		// the module.
		return "", im.fail("a sequence where a tensor is needed (a sequence is a list the importer resolves; a graph output, or an op's operand, must be a tensor)")
	}
	// The literal goes straight into the body: a weight's is as long as
	// its data in hex, and is not copied on the way.
	ssa := fmt.Sprintf("%%v%d", im.n)
	im.n++
	fmt.Fprintf(&im.body, "    %s = tensor.constant ", ssa)
	writeDense(&im.body, v)
	if im.node != nil {
		// A constant returned as it is has no node's location.
		im.body.WriteString(" ")
		im.body.WriteString(im.loc())
	}
	im.body.WriteString("\n")
	v.ssa = ssa
	return ssa, nil
}

// writeDense writes a constant: a splat when all elements are equal, the
// data in hex otherwise (exact, and compact for large weights; straight
// from the model's bytes when they are kept).
func writeDense(b *textBuilder, v *value) {
	ty := tensorType(v.elem, v.shape)
	if k := v.konst; k.vals == nil && k.raw != nil && k.rawElem == v.elem {
		size := v.elem.Bytes()
		splat := true
		for i := size; i < len(k.raw) && splat; i += size {
			splat = string(k.raw[i:i+size]) == string(k.raw[:size])
		}
		if x := numeric.CodecOf(v.elem).Load(k.raw); splat && !math.IsNaN(x) && !math.IsInf(x, 0) {
			fmt.Fprintf(b, "dense<%s> : %s", floatLiteral(x), ty)
			return
		}
		b.WriteString(`dense<"0x`)
		b.blob(k.raw, size)
		b.WriteString(`"> : `)
		b.WriteString(ty)
		return
	}
	vals := v.konst.v()
	finite := len(vals) > 0 && !math.IsNaN(vals[0]) && !math.IsInf(vals[0], 0)
	if finite && !slices.ContainsFunc(vals, func(x float64) bool { return x != vals[0] }) {
		switch {
		case v.elem == elem.I1:
			fmt.Fprintf(b, "dense<%t> : %s", vals[0] != 0, ty)
		case !v.elem.IsFloat():
			fmt.Fprintf(b, "dense<%s> : %s", strconv.FormatFloat(vals[0], 'f', 0, 64), ty)
		default:
			fmt.Fprintf(b, "dense<%s> : %s", floatLiteral(vals[0]), ty)
		}
		return
	}
	if v.elem == elem.I1 {
		// i1 has no byte-per-element hex form (MLIR packs its bits):
		// nested literals.
		b.WriteString("dense<")
		nestedBools(b, vals, v.shape)
		b.WriteString("> : " + ty)
		return
	}
	// Encoded as the package's codec, and written in hex with the Text.
	size := v.elem.Bytes()
	data := make([]byte, 0, size*len(vals))
	c := numeric.CodecOf(v.elem)
	for _, x := range vals {
		data = c.Append(data, x)
	}
	b.WriteString(`dense<"0x`)
	b.blob(data, size)
	b.WriteString(`"> : `)
	b.WriteString(ty)
}

// nestedBools writes vals of shape as nested lists of true and false.
func nestedBools(b *textBuilder, vals []float64, shape []int64) {
	if len(shape) == 0 {
		b.WriteString(strconv.FormatBool(vals[0] != 0))
		return
	}
	b.WriteByte('[')
	step := len(vals) / max(int(shape[0]), 1)
	for i := range shape[0] {
		if i > 0 {
			b.WriteString(", ")
		}
		nestedBools(b, vals[int(i)*step:int(i+1)*step], shape[1:])
	}
	b.WriteByte(']')
}

// floatLiteral writes a finite float as MLIR's grammar takes it (a
// decimal point before the exponent), exactly.
func floatLiteral(x float64) string {
	s := strconv.FormatFloat(x, 'e', -1, 64)
	if mant, exp, ok := strings.Cut(s, "e"); ok && !strings.Contains(mant, ".") {
		return mant + ".0e" + exp
	}
	return s
}

// quote writes s as an MLIR string literal (names in ONNX files are any
// bytes).
func quote(s string) string { return string(ir.AppendQuoted(nil, s)) }

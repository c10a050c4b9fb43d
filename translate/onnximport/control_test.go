package onnximport_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

func graphAttr(name string, g *pb.GraphProto) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_GRAPH.Enum(), G: g}
}

func subgraph(name string, ins []*pb.ValueInfoProto, nodes []*pb.NodeProto, outs ...string) *pb.GraphProto {
	g := &pb.GraphProto{Name: proto.String(name), Input: ins, Node: nodes}
	for _, o := range outs {
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: proto.String(o)})
	}
	return g
}

// Loop, Scan and If unrolled and inlined: a loop that stops on its body's
// condition, with an If in its body that defines the same names every
// iteration; a Scan in reverse with its output stacked on axis 1; and an
// If on a runtime condition, both branches selected.
func TestControlFlowUnrolled(t *testing.T) {
	scalarI64 := pb.TensorValueInfo("i", pb.TensorProto_INT64)
	// for i in 0..: y += (i is even ? 1 : 10) until i + 1 < 3 fails: 1 + 10 + 1.
	body := subgraph("body", []*pb.ValueInfoProto{scalarI64, pb.TensorValueInfo("c", pb.TensorProto_BOOL), input("y_in", 2)}, []*pb.NodeProto{
		node("Constant", "two", nil, []string{"two"}, &pb.AttributeProto{Name: proto.String("value"), Type: pb.AttributeProto_TENSOR.Enum(), T: int64s("", 2)}),
		node("Constant", "three", nil, []string{"three"}, &pb.AttributeProto{Name: proto.String("value"), Type: pb.AttributeProto_TENSOR.Enum(), T: int64s("", 3)}),
		node("Constant", "one", nil, []string{"one"}, &pb.AttributeProto{Name: proto.String("value"), Type: pb.AttributeProto_TENSOR.Enum(), T: int64s("", 1)}),
		node("Mod", "mod", []string{"i", "two"}, []string{"r"}),
		node("Equal", "even", []string{"r", "zero"}, []string{"is_even"}),
		node("If", "pick", []string{"is_even_s"}, []string{"step"},
			graphAttr("then_branch", subgraph("then", nil, []*pb.NodeProto{node("Identity", "t", []string{"ones"}, []string{"picked"})}, "picked")),
			graphAttr("else_branch", subgraph("else", nil, []*pb.NodeProto{node("Identity", "e", []string{"tens"}, []string{"picked"})}, "picked"))),
		node("Add", "acc", []string{"y_in", "step"}, []string{"y_out"}),
		node("Add", "next", []string{"i", "one"}, []string{"i1"}),
		node("Less", "more", []string{"i1", "three"}, []string{"c_out"}),
	}, "c_out", "y_out", "y_out")
	// is_even is [1]; the If takes a scalar view of it.
	body.Node = slices.Insert(body.Node, 5, node("Squeeze", "sq", []string{"is_even"}, []string{"is_even_s"}))
	body.Initializer = []*pb.TensorProto{int64s("zero", 0)}
	m := model(13, []*pb.ValueInfoProto{input("y", 2)}, []*pb.TensorProto{floats("ones", []int64{2}, []float64{1, 1}), floats("tens", []int64{2}, []float64{10, 10})},
		[]*pb.NodeProto{node("Loop", "loop", []string{"", "", "y"}, []string{"y_final", "ys"}, graphAttr("body", body))}, "y_final", "ys")
	got := run(t, m, onnximport.Options{}, array(t, []int{2}, []float64{0, 5}))
	if want := []float64{12, 17}; !slices.Equal(got[0].Data, want) {
		t.Errorf("the loop gives %v, want %v", got[0].Data, want)
	}
	if want := []float64{1, 6, 11, 16, 12, 17}; !slices.Equal(got[1].Data, want) || !slices.Equal(got[1].Shape, []int{3, 2}) {
		t.Errorf("the loop's scan output is %v %v, want [3 2] %v", got[1].Shape, got[1].Data, want)
	}

	// Scan in reverse over axis 0 of x [3, 2], the running sums stacked on
	// axis 1: [2, 3].
	scanBody := subgraph("scan_body", []*pb.ValueInfoProto{input("s_in", 2), input("x_t", 2)},
		[]*pb.NodeProto{node("Add", "sum", []string{"s_in", "x_t"}, []string{"s_out"}), node("Identity", "copy", []string{"s_out"}, []string{"scan_out"})}, "s_out", "scan_out")
	m = model(11, []*pb.ValueInfoProto{input("s0", 2), input("x", 3, 2)}, nil, []*pb.NodeProto{node("Scan", "scan", []string{"s0", "x"}, []string{"s", "z"},
		graphAttr("body", scanBody), intAttr("num_scan_inputs", 1), intsAttr("scan_input_directions", 1), intsAttr("scan_output_axes", 1))}, "s", "z")
	got = run(t, m, onnximport.Options{}, array(t, []int{2}, []float64{0, 0}), array(t, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}))
	if want := []float64{9, 12}; !slices.Equal(got[0].Data, want) {
		t.Errorf("the scan's state is %v, want %v", got[0].Data, want)
	}
	// Steps take rows 2, 1, 0: sums [5 6], [8 10], [9 12], stacked on axis 1.
	if want := []float64{5, 8, 9, 6, 10, 12}; !slices.Equal(got[1].Data, want) || !slices.Equal(got[1].Shape, []int{2, 3}) {
		t.Errorf("the scan's output is %v %v, want [2 3] %v", got[1].Shape, got[1].Data, want)
	}

	// If on a runtime condition.
	branch := func(name, from string) *pb.GraphProto {
		return subgraph(name, nil, []*pb.NodeProto{node("Identity", name, []string{from}, []string{name + "_out"})}, name+"_out")
	}
	m = model(13, []*pb.ValueInfoProto{pb.TensorValueInfo("c", pb.TensorProto_BOOL), input("a", 2), input("b", 2)}, nil,
		[]*pb.NodeProto{node("If", "if", []string{"c"}, []string{"r"}, graphAttr("then_branch", branch("then", "a")), graphAttr("else_branch", branch("else", "b")))}, "r")
	for _, c := range []float64{0, 1} {
		cond, err := arrayOf(t, c)
		if err != nil {
			t.Fatal(err)
		}
		got = run(t, m, onnximport.Options{}, cond, array(t, []int{2}, []float64{1, 2}), array(t, []int{2}, []float64{3, 4}))
		want := []float64{3, 4}
		if c != 0 {
			want = []float64{1, 2}
		}
		if !slices.Equal(got[0].Data, want) {
			t.Errorf("If(%v) gives %v, want %v", c, got[0].Data, want)
		}
	}
}

// Subgraphs nested past the limit, and loops without a known end, are
// refused.
func TestControlFlowRefusals(t *testing.T) {
	leaf := subgraph("leaf", nil, []*pb.NodeProto{node("Identity", "id", []string{"x"}, []string{"leaf_out"})}, "leaf_out")
	g := leaf
	for i := range 40 {
		name := "level" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		g = subgraph(name, nil, []*pb.NodeProto{node("If", name+"_if", []string{"k"}, []string{name + "_out"}, graphAttr("then_branch", g), graphAttr("else_branch", g))}, name+"_out")
	}
	m := model(13, []*pb.ValueInfoProto{input("x", 2)}, []*pb.TensorProto{{Name: proto.String("k"), DataType: proto.Int32(int32(pb.TensorProto_BOOL)), Int32Data: []int32{1}}},
		[]*pb.NodeProto{node("If", "top", []string{"k"}, []string{"y"}, graphAttr("then_branch", g), graphAttr("else_branch", g))}, "y")
	if _, err := onnximport.Import(m, onnximport.Options{File: "deep.onnx"}); err == nil || !strings.Contains(err.Error(), "nested more than 32 deep") {
		t.Errorf("40 nested Ifs: %v", err)
	}
	// Both branches of an If on a runtime condition are imported: 30
	// levels of them would be 2^30 imports of the leaf.
	c := pb.TensorValueInfo("c", pb.TensorProto_BOOL)
	g = leaf
	for i := range 30 {
		name := "run" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		g = subgraph(name, nil, []*pb.NodeProto{node("If", name+"_if", []string{"c"}, []string{name + "_out"}, graphAttr("then_branch", g), graphAttr("else_branch", g))}, name+"_out")
	}
	m = model(13, []*pb.ValueInfoProto{input("x", 2), c}, nil, []*pb.NodeProto{node("If", "top", []string{"c"}, []string{"y"}, graphAttr("then_branch", g), graphAttr("else_branch", g))}, "y")
	if _, err := onnximport.Import(m, onnximport.Options{File: "wide.onnx"}); err == nil || !strings.Contains(err.Error(), "unrolls to more than") {
		t.Errorf("30 nested Ifs on a runtime condition: %v", err)
	}
	forever := subgraph("forever", []*pb.ValueInfoProto{pb.TensorValueInfo("i", pb.TensorProto_INT64), pb.TensorValueInfo("c", pb.TensorProto_BOOL)},
		[]*pb.NodeProto{node("Identity", "keep", []string{"c"}, []string{"c_out"})}, "c_out")
	m = model(13, []*pb.ValueInfoProto{input("x", 2)}, nil, []*pb.NodeProto{node("Loop", "loop", []string{"", ""}, nil, graphAttr("body", forever)),
		node("Identity", "y", []string{"x"}, []string{"y"})}, "y")
	if _, err := onnximport.Import(m, onnximport.Options{File: "forever.onnx"}); err == nil || !strings.Contains(err.Error(), "iterations to unroll") {
		t.Errorf("an endless loop: %v", err)
	}
	// A negative trip count is refused as what it is, not taken for "no
	// count" and reported as too many iterations.
	m = model(13, []*pb.ValueInfoProto{input("x", 2)}, []*pb.TensorProto{scalarInt("m", -5)}, []*pb.NodeProto{node("Loop", "loop", []string{"m", ""}, nil, graphAttr("body", forever)),
		node("Identity", "y", []string{"x"}, []string{"y"})}, "y")
	if _, err := onnximport.Import(m, onnximport.Options{File: "negative.onnx"}); err == nil || !strings.Contains(err.Error(), "the trip count (input 0) is -5; it must be 0 or more") {
		t.Errorf("a trip count of -5: %v", err)
	}
}

// A Split whose parts do not add up to the axis is refused, as ONNX
// Runtime refuses it; an empty file is no model, and says so.
func TestSplitPartsAndEmptyModelsAreRefused(t *testing.T) {
	m := model(13, []*pb.ValueInfoProto{input("x", 2, 6)}, []*pb.TensorProto{int64s("parts", 2, 2)},
		[]*pb.NodeProto{node("Split", "split", []string{"x", "parts"}, []string{"a", "b"}, intAttr("axis", 1))}, "a", "b")
	if _, err := onnximport.Import(m, onnximport.Options{File: "split.onnx"}); err == nil || !strings.Contains(err.Error(), "parts [2 2] sum to 4, but axis 1 has 6") {
		t.Errorf("parts that leave 2 of 6 out: %v", err)
	}
	if _, err := onnximport.Import(&pb.ModelProto{}, onnximport.Options{File: "empty.onnx"}); err == nil || !strings.Contains(err.Error(), "empty.onnx: not an ONNX model: it holds no graph and imports no opset") {
		t.Errorf("an empty model: %v", err)
	}
}

// arrayOf is the bool scalar c.
func arrayOf(t *testing.T, c float64) (*eval.Array, error) {
	t.Helper()
	return eval.FromValues(nil, elem.I1, []float64{c})
}

// QuantizeLinear into int8 with a zero point per channel: round half to
// even, saturate at the type's bounds; and DequantizeLinear back.
func TestQuantizeLinearInt8PerAxis(t *testing.T) {
	zero := &pb.TensorProto{Name: proto.String("zp"), Dims: []int64{2}, DataType: proto.Int32(int32(pb.TensorProto_INT8)), Int32Data: []int32{0, -10}}
	m := model(13, []*pb.ValueInfoProto{input("x", 2, 3)}, []*pb.TensorProto{floats("scale", []int64{2}, []float64{0.5, 2}), zero},
		[]*pb.NodeProto{node("QuantizeLinear", "q", []string{"x", "scale", "zp"}, []string{"y"}, intAttr("axis", 0)),
			node("DequantizeLinear", "dq", []string{"y", "scale", "zp"}, []string{"back"}, intAttr("axis", 0))}, "y", "back")
	// Row 0 (scale 0.5, zero point 0): 2.5 → 2 (even), −3.5 → −4, 200 →
	// 127. Row 1 (scale 2, zero point −10): 1.5 → 2 → −8, −500 → −510 →
	// −128, 2.5 → 2 → −8.
	got := run(t, m, onnximport.Options{}, array(t, []int{2, 3}, []float64{1.25, -1.75, 100, 3, -1000, 5}))
	if want := []float64{2, -4, 127, -8, -128, -8}; !slices.Equal(got[0].Data, want) {
		t.Errorf("QuantizeLinear gives %v, want %v", got[0].Data, want)
	}
	if want := []float64{1, -2, 63.5, 4, -236, 4}; !slices.Equal(got[1].Data, want) {
		t.Errorf("DequantizeLinear gives %v, want %v", got[1].Data, want)
	}
}

// TopK takes ties in index order and excludes the positions it took by a
// mask, so that values equal to -Inf (which a sentinel would be) come out
// once each, at their own indices.
func TestTopKTiesAndInfinities(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct {
		largest     int64
		k           int64
		values, idx []float64
	}{
		{1, 5, []float64{3, 3, 1, inf, inf}, []float64{2, 3, 0, 1, 4}},
		{0, 3, []float64{inf, inf, 1}, []float64{1, 4, 0}},
	} {
		m := model(11, []*pb.ValueInfoProto{input("x", 1, 5)}, []*pb.TensorProto{int64s("k", c.k)},
			[]*pb.NodeProto{node("TopK", "top", []string{"x", "k"}, []string{"v", "i"}, intAttr("largest", c.largest))}, "v", "i")
		got := run(t, m, onnximport.Options{}, array(t, []int{1, 5}, []float64{1, inf, 3, 3, inf}))
		if !slices.Equal(got[0].Data, c.values) || !slices.Equal(got[1].Data, c.idx) {
			t.Errorf("largest=%d k=%d: values %v indices %v, want %v %v", c.largest, c.k, got[0].Data, got[1].Data, c.values, c.idx)
		}
	}
}

// Einsum with ellipses (explicit and implicit output) and diagonals,
// against the sums computed here.
func TestEinsumEllipsesAndDiagonals(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	a, b := randoms(rng, 2*3*4, 1), randoms(rng, 2*4*5, 1)
	bmm := make([]float64, 2*3*5) // [2,3,4]·[2,4,5]
	for z := range 2 {
		for i := range 3 {
			for k := range 5 {
				for j := range 4 {
					bmm[(z*3+i)*5+k] += a[(z*3+i)*4+j] * b[(z*4+j)*5+k]
				}
			}
		}
	}
	sq := randoms(rng, 2*3*3, 1)
	diag, trace := make([]float64, 2*3), make([]float64, 2)
	for z := range 2 {
		for i := range 3 {
			diag[z*3+i] = sq[(z*3+i)*3+i]
			trace[z] += sq[(z*3+i)*3+i]
		}
	}
	eq := func(s string) *pb.AttributeProto { return strAttr("equation", s) }
	for _, c := range []struct {
		equation string
		ins      []*pb.ValueInfoProto
		args     [][]float64
		shapes   [][]int
		want     []float64
	}{
		{"...ij,...jk->...ik", []*pb.ValueInfoProto{input("a", 2, 3, 4), input("b", 2, 4, 5)}, [][]float64{a, b}, [][]int{{2, 3, 4}, {2, 4, 5}}, bmm},
		{"...ij,...jk", []*pb.ValueInfoProto{input("a", 2, 3, 4), input("b", 2, 4, 5)}, [][]float64{a, b}, [][]int{{2, 3, 4}, {2, 4, 5}}, bmm},
		{"bii->bi", []*pb.ValueInfoProto{input("a", 2, 3, 3)}, [][]float64{sq}, [][]int{{2, 3, 3}}, diag},
		{"...ii->...", []*pb.ValueInfoProto{input("a", 2, 3, 3)}, [][]float64{sq}, [][]int{{2, 3, 3}}, trace},
	} {
		names := []string{"a", "b"}[:len(c.ins)]
		m := model(12, c.ins, nil, []*pb.NodeProto{node("Einsum", "e", names, []string{"y"}, eq(c.equation))}, "y")
		var arrays []*eval.Array
		for i, v := range c.args {
			arrays = append(arrays, array(t, c.shapes[i], v))
		}
		got := run(t, m, onnximport.Options{}, arrays...)
		if len(got[0].Data) != len(c.want) {
			t.Fatalf("%s: %d values, want %d", c.equation, len(got[0].Data), len(c.want))
		}
		for i, w := range c.want {
			if math.Abs(got[0].Data[i]-w) > 1e-5*math.Max(1, math.Abs(w)) {
				t.Fatalf("%s: element %d is %v, want %v", c.equation, i, got[0].Data[i], w)
			}
		}
	}
}

// Scatters with known indices: duplicates combined by the reduction,
// negative indices counted from the end, and an index outside refused.
func TestScatterReductions(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct {
		reduction string
		want      []float64
	}{
		{"none", []float64{1, 20, 3, 4, 5}}, // the last of the duplicates
		{"add", []float64{1, 32, 3, 4, 5}},
		{"mul", []float64{1, 400, 3, 4, 5}},
		{"max", []float64{1, 20, 3, 4, 5}},
		{"min", []float64{1, 2, 3, 4, 5}},
	} {
		m := model(18, []*pb.ValueInfoProto{input("x", 1, 5)}, []*pb.TensorProto{
			{Name: proto.String("i"), Dims: []int64{1, 2}, DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: []int64{1, -4}},
			floats("u", []int64{1, 2}, []float64{10, 20})},
			[]*pb.NodeProto{node("ScatterElements", "s", []string{"x", "i", "u"}, []string{"y"}, intAttr("axis", 1), strAttr("reduction", c.reduction))}, "y")
		got := run(t, m, onnximport.Options{}, array(t, []int{1, 5}, data))
		if !slices.Equal(got[0].Data, c.want) {
			t.Errorf("reduction %s: %v, want %v", c.reduction, got[0].Data, c.want)
		}
	}
	// ScatterND: two rows into one slice of [3, 2], added.
	m := model(16, []*pb.ValueInfoProto{input("x", 3, 2)}, []*pb.TensorProto{
		{Name: proto.String("i"), Dims: []int64{2, 1}, DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: []int64{2, 2}},
		floats("u", []int64{2, 2}, []float64{1, 2, 10, 20})},
		[]*pb.NodeProto{node("ScatterND", "s", []string{"x", "i", "u"}, []string{"y"}, strAttr("reduction", "add"))}, "y")
	got := run(t, m, onnximport.Options{}, array(t, []int{3, 2}, []float64{0, 0, 0, 0, 100, 100}))
	if want := []float64{0, 0, 0, 0, 111, 122}; !slices.Equal(got[0].Data, want) {
		t.Errorf("ScatterND add: %v, want %v", got[0].Data, want)
	}
	outside := model(18, []*pb.ValueInfoProto{input("x", 1, 5)}, []*pb.TensorProto{
		{Name: proto.String("i"), Dims: []int64{1, 1}, DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: []int64{5}},
		floats("u", []int64{1, 1}, []float64{10})},
		[]*pb.NodeProto{node("ScatterElements", "s", []string{"x", "i", "u"}, []string{"y"}, intAttr("axis", 1))}, "y")
	if _, err := onnximport.Import(outside, onnximport.Options{File: "s.onnx"}); err == nil || !strings.Contains(err.Error(), "index 5 at [0 0] is outside the axis of 5") {
		t.Errorf("an index outside: %v", err)
	}
}

// MaxPool's indices: ties go to the first position in row-major order, as
// a whole-window search finds it, although the window is taken an axis at
// a time.
func TestMaxPoolIndicesTies(t *testing.T) {
	m := model(12, []*pb.ValueInfoProto{input("x", 1, 2, 2, 2)}, nil,
		[]*pb.NodeProto{node("MaxPool", "p", []string{"x"}, []string{"y", "i"}, intsAttr("kernel_shape", 2, 2))}, "y", "i")
	// Channel 0: 5 at (0, 1) and (1, 0); channel 1: all equal.
	got := run(t, m, onnximport.Options{}, array(t, []int{1, 2, 2, 2}, []float64{0, 5, 5, 0, 7, 7, 7, 7}))
	if want := []float64{5, 7}; !slices.Equal(got[0].Data, want) {
		t.Errorf("values %v, want %v", got[0].Data, want)
	}
	// (0, 1) of channel 0 is index 1; (0, 0) of channel 1 is 4.
	if want := []float64{1, 4}; !slices.Equal(got[1].Data, want) {
		t.Errorf("indices %v, want %v", got[1].Data, want)
	}
}

// A node's name is the model's to choose: its control characters are
// escaped in every message, so a model cannot send escape sequences to
// the user's terminal.
func TestNodeNamesAreEscapedInMessages(t *testing.T) {
	m := model(13, []*pb.ValueInfoProto{input("x", 2)}, nil,
		[]*pb.NodeProto{node("Frobnicate", "evil\x1b[2J\r\nname", []string{"x"}, []string{"y"})}, "y")
	_, err := onnximport.Import(m, onnximport.Options{File: "evil.onnx"})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\r\n") || !strings.Contains(err.Error(), `node 'evil\x1b[2J\x0d\x0aname'`) {
		t.Errorf("got %q", err)
	}
}
